"""The evaluation harness: `docent eval` end to end on a tiny corpus, with the real pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from docent.chat import ChatTurn
from docent.config import get_settings, load_settings
from docent.evaluation.harness import (
    EvalConfig,
    ask,
    collection_name,
    eval_settings,
    load_jsonl,
    load_pairs,
    load_questions,
    run_eval,
)
from docent.exit_reasons import REFUSAL
from docent.runtime import Runtime
from tests.fakes import GUIDE, FakeRetriever

CORPUS = {
    "index.md": "# Widgetron\n\nWidgetron is a command-line tool that turns spreadsheets into "
                "charts.\n\n## Installation\n\nInstall Widgetron with `pip install widgetron`. "
                "It needs Python 3.11 or newer.\n",
    "guide/cache.md": "# Caching\n\n## The render cache\n\nWidgetron keeps rendered charts in "
                      "a render cache, so repeated renders of the same spreadsheet are "
                      "instant.\n\n## Configuring the render cache\n\nSet "
                      "`WIDGETRON_CACHE_SIZE` to change how many charts the render cache "
                      "keeps; the default is 128. Set it to 0 to turn the render cache off.\n",
    "guide/themes.md": "# Themes\n\nCharts use the light theme by default. Pass `--theme dark` "
                       "to render a chart with the dark theme. Custom themes are TOML files "
                       "with a palette and a font.\n",
}
QUESTIONS = [
    {"id": "w-1", "question": "How do I install Widgetron?", "gold_sources": ["index.md"],
     "answer_keywords": ["pip install widgetron"], "type": "howto"},
    {"id": "w-2", "question": "How many charts does the render cache keep by default?",
     "gold_sources": ["guide/cache.md"], "answer_keywords": ["128", "WIDGETRON_CACHE_SIZE"],
     "type": "factual"},
    {"id": "w-3", "question": "How can I render a chart with the dark theme?",
     "gold_sources": ["guide/themes.md"], "answer_keywords": ["--theme dark|--theme=dark"],
     "type": "howto"},
    {"id": "w-4", "question": "Who painted the Mona Lisa?", "gold_sources": [],
     "answer_keywords": [], "type": "unanswerable", "absent_terms": ["Mona Lisa"]},
]
FOLLOWUPS = [
    {"id": "w-fu-1", "turns": ["What is the render cache?", "How do I turn it off?"],
     "gold_sources": ["guide/cache.md"], "answer_keywords": ["0"]},
]


def _write(root: Path) -> tuple[Path, Path, Path]:
    docs = root / "widgetron" / "docs"
    for rel, text in CORPUS.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    qa, fu = root / "qa.jsonl", root / "fu.jsonl"
    qa.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    fu.write_text("".join(json.dumps(q) + "\n" for q in FOLLOWUPS), encoding="utf-8")
    return docs, qa, fu


async def test_retrieval_is_scored_over_every_retrieved_chunk_not_only_the_cited(settings):
    """The public response lists cited sources; the harness also sees the full ranking."""
    from docent.agent.graph import build_graph
    from tests.fakes import ScriptedChatModel

    model = ScriptedChatModel(steps=[AIMessage("Set DOCENT_MAX_TURNS [2].")])
    graph = build_graph(model, FakeRetriever(chunks=list(GUIDE)), settings)
    runtime = Runtime(settings=settings, graph=graph, retriever=FakeRetriever(), model_id="s")
    run = await ask(runtime, ChatTurn(message="tool-call limit, turn limit and streams?"))
    assert run.response["exit_reason"] == "COMPLETED"
    assert [s["n"] for s in run.response["sources"]] == [1]  # cited: one source, renumbered
    assert len(run.retrieved) == 3 and set(run.retrieved) == {"guide.md", "streaming.md"}
    assert run.latency_ms > 0


@pytest.mark.parametrize("bad", ["abc..def", "10.0.0.1", "-abc-"])
def test_an_eval_collection_chroma_would_refuse_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="invalid collection name"):
        eval_settings(load_settings(), bad)


def test_collection_name_keeps_the_corpus_apart():
    assert collection_name(Path("/x/shared/eval/fastapi/docs")) == "eval-fastapi-docs"
    assert collection_name(Path("/x/shared/eval/somnia/docs")) == "eval-somnia-docs"


@pytest.mark.slow
def test_eval_command_scores_a_tiny_corpus_and_reruns_incrementally(
    tmp_path, monkeypatch, capsys
):
    from docent.cli import main

    docs, qa, fu = _write(tmp_path)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    out = tmp_path / "out" / "report.json"
    try:
        code = main(["eval", "--docs", str(docs), "--qa", str(qa), "--followups", str(fu),
                     "--out", str(out)])
    finally:
        get_settings.cache_clear()
    assert code == 0
    printed = capsys.readouterr().out
    assert "w-4" in printed and "recall@1" in printed and "follow-up recall@5" in printed
    assert "ingestion: 3 files (3 added, 0 updated, 0 unchanged, 0 skipped), " in printed

    report = json.loads(out.read_text())
    s = report["summary"]
    for key in ("recall_at_1", "recall_at_5", "mrr_at_10", "keyword_hit_rate",
                "citation_validity", "refusal_rate_unanswerable", "false_refusal_rate",
                "followup_recall_at_5"):
        assert 0.0 <= s[key] <= 1.0, key
    assert report["config"]["collection"] == "eval-widgetron-docs"
    assert report["ingest"]["added"] == 3 and report["warnings"] == []

    by_id = {r["id"]: r for r in report["questions"]}
    # Gold paths (relative to docs/) line up with docent's source_file (relative to the root).
    assert by_id["w-2"]["gold_rank"] == 1 and by_id["w-2"]["retrieved"][0] == "guide/cache.md"
    assert by_id["w-2"]["keyword_hit"] and by_id["w-2"]["cites_gold"]
    assert by_id["w-4"]["refused"] and by_id["w-4"]["response"] == REFUSAL
    assert by_id["w-4"]["recall_at_5"] is None and s["refusal_rate_unanswerable"] == 1.0
    assert s["citation_validity"] == 1.0 and s["false_refusal_rate"] == 0.0
    answerable = [r for r in report["questions"] if r["type"] != "unanswerable"]
    assert s["recall_at_5"] == sum(r["recall_at_5"] for r in answerable) / len(answerable)

    (pair,) = report["followups"]
    assert pair["recall_at_5"] and s["followup_recall_at_5"] == 1.0
    assert s["followup_lead_keyword_rate"] == float(pair["lead_has_keyword"])
    assert pair["first_retrieved"] and pair["retrieved"]

    # A rerun skips the unchanged files and scores the same.
    settings = load_settings(data_dir=tmp_path / "data")
    again = run_eval(settings, EvalConfig(docs=docs, qa=qa, followups=fu), progress=False)
    assert again["ingest"]["added"] == 0 and again["ingest"]["unchanged"] == 3
    latency = {"latency_p50_ms", "latency_p95_ms", "followup_latency_p50_ms"}
    assert {k: v for k, v in again["summary"].items() if k not in latency} == {
        k: v for k, v in s.items() if k not in latency
    }


@pytest.mark.parametrize(("lines", "message"), [
    (b'{"id": "q-1"}\nnot json\n', "line 2 is not valid JSON: Expecting value"),
    (b'{"id": "q-1"}\n\n[1, 2]\n', "line 3 is not a JSON object"),
    (b'{"id": "q-1", "question": "caf\xe9?"}\n', "is not UTF-8 text (invalid byte at offset 30)"),
    (b'{"id": "q-1"}\n', 'line 1: "question" must be a non-empty string (has none)'),
    (b'{"id": "q-1", "question": "a?"}\n{"question": 5}\n',
     'line 2: "question" must be a non-empty string (has 5)'),
    (b'{"question": "a?", "answer_keywords": "key"}\n',
     'line 1: "answer_keywords" must be a list of strings (has "key")'),
    (b'{"question": "a?", "gold_sources": ["a.md", 2]}\n',
     'line 1: "gold_sources" must be a list of paths (has ["a.md", 2])'),
])
def test_a_bad_question_file_is_named_with_its_line_before_anything_is_ingested(
    tmp_path, monkeypatch, capsys, lines, message
):
    from docent.cli import main

    docs, qa, _ = _write(tmp_path)
    qa.write_bytes(lines)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    try:
        assert main(["eval", "--docs", str(docs), "--qa", str(qa)]) == 1
    finally:
        get_settings.cache_clear()
    out, err = capsys.readouterr()
    assert err == f"docent eval: {qa} {message}\n" and out == ""
    assert not any((tmp_path / "data").iterdir())  # nothing was ingested


def test_a_question_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    # Windows editors (Notepad, PowerShell's Out-File) open a UTF-8 file with one.
    qa = tmp_path / "qa.jsonl"
    qa.write_bytes('{"id": "q-1", "question": "What is a widget?"}\n'.encode("utf-8-sig"))
    assert load_jsonl(qa) == [{"id": "q-1", "question": "What is a widget?"}]



def test_follow_up_pairs_need_two_turns_and_an_id_defaults_to_the_line(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "p-1", "turns": ["What is a widget?", "And a gadget?"]}\n'
                     '{"turns": ["What is a widget?"]}\n')
    with pytest.raises(ValueError, match=r'line 2: "turns" must be a list of at least two '
                                         r'questions \(has \["What is a widget\?"\]\)'):
        load_pairs(pairs)
    qa = tmp_path / "qa.jsonl"
    qa.write_text('\n{"question": "What is a widget?"}\n')
    assert load_questions(qa) == [{"id": "line 2", "question": "What is a widget?"}]


async def test_a_conversation_asks_every_turn_with_the_ones_before_and_scores_the_last(
    tmp_path, monkeypatch
):
    """Three turns: the third is asked with both earlier turns and their answers, and it is
    the one scored; a blank later turn is a clear error, not a turn left out."""
    from types import SimpleNamespace

    from docent.evaluation import harness

    asked: list[ChatTurn] = []

    async def fake_ask(runtime, turn):
        asked.append(turn)
        n = len(asked)
        answer = f"Answer {n} [1]." if n < 3 else "Set `WIDGETRON_CACHE_SIZE` to 0 [1]."
        source = {"n": 1, "source_file": "guide/cache.md" if n == 3 else "index.md"}
        return harness.Run(response={"response": answer, "sources": [source],
                                     "exit_reason": "COMPLETED"},
                           retrieved=[source["source_file"]], latency_ms=1.0)

    monkeypatch.setattr(harness, "ask", fake_ask)
    turns = ["What is Widgetron?", "Does it cache charts?", "How do I turn that off?"]
    conversations = tmp_path / "fu.jsonl"
    conversations.write_text(json.dumps({"id": "c-1", "turns": turns,
                                         "gold_sources": ["guide/cache.md"],
                                         "answer_keywords": ["WIDGETRON_CACHE_SIZE"]}) + "\n")
    qa = tmp_path / "qa.jsonl"
    qa.write_text("")
    settings = SimpleNamespace(collection="c", effective_provider="extractive",
                               chunk_max_tokens=256)
    runtime = SimpleNamespace(settings=settings, model_id="m")
    report = await harness.evaluate(runtime, EvalConfig(docs=tmp_path, qa=qa,
                                                        followups=conversations))
    assert [t.message for t in asked] == turns
    assert [role for role, _ in asked[2].history] == ["user", "assistant"] * 2
    assert asked[2].history[2:] == [("user", turns[1]), ("assistant", "Answer 2 [1].")]
    (scored,) = report["followups"]
    assert scored["turns"] == turns and scored["keyword_hit"] and scored["recall_at_5"]
    assert scored["first_retrieved"] == ["index.md"]

    conversations.write_text(json.dumps({"turns": [*turns[:2], " "]}) + "\n")
    with pytest.raises(ValueError, match=r'line 1: "turns" must be a list of at least two'):
        load_pairs(conversations)


def test_a_question_without_a_type_is_not_shown_as_a_follow_up():
    from docent.evaluation.report import question_line

    record = {"id": "line 1", "type": "", "gold_rank": 1, "keyword_hit": True, "refused": False,
              "citations_valid": True, "cites_gold": True, "exit_reason": "COMPLETED",
              "latency_ms": 12.0}
    assert question_line("question", record).split()[:3] == ["line", "1", "-"]
    pair = {**record, "id": "fu-1"}
    del pair["type"]
    assert question_line("followup", pair).split()[:2] == ["fu-1", "follow-up"]
