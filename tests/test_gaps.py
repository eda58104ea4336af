"""The opt-in docs-gap report: refused questions logged, then grouped and counted."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from docent.agent.graph import build_graph
from docent.gaps import group_gaps, read_gaps, record_gap
from tests.fakes import GUIDE, FakeRetriever, ScriptedChatModel, call
from tests.http import client_for
from tests.serve_process import docent_env, run_docent


def test_refused_questions_are_logged_only_when_opted_in(settings, tmp_path):
    log = tmp_path / "gaps.jsonl"
    for s, expect in ((settings, False), (settings.model_copy(update={"gap_log": log}), True)):
        model = ScriptedChatModel(steps=[call("quantum flux"), AIMessage("x"),
                                         call("tool-call limit"), AIMessage("Set it [1].")])
        with client_for(build_graph(model, FakeRetriever(chunks=list(GUIDE)), s), s) as c:
            c.post("/chat", json={"message": "What is quantum flux?"})   # refused
            c.post("/chat", json={"message": "tool-call limit?"})        # answered
        assert log.exists() is expect
    assert read_gaps(log) == (["What is quantum flux?"], [])
    assert json.loads(log.read_text())["timestamp"]


@pytest.mark.slow
def test_similar_questions_are_grouped_and_counted(tmp_path):
    from docent.retrieval.embeddings import MiniLMEmbedder

    questions = ["How do I deploy on Kubernetes?", "Can I run docent on kubernetes?",
                 "Kubernetes deployment guide?", "Does it support SAML login?"]
    groups = group_gaps(questions, MiniLMEmbedder(), threshold=0.6)
    assert [g.count for g in groups] == [3, 1]
    assert groups[1].example == "Does it support SAML login?"


def _gaps(tmp_path, *args):
    """`docent gaps ARGS...` with no gap log set (`GAP_LOG` is accepted too)."""
    env = {k: v for k, v in docent_env().items() if k != "GAP_LOG"}
    return run_docent(env, "gaps", *args, check=False, cwd=tmp_path)


def test_gaps_command_explains_when_there_is_no_log(tmp_path):
    out = _gaps(tmp_path)
    assert out.returncode == 1 and "DOCENT_GAP_LOG" in out.stderr
    log = tmp_path / "g.jsonl"
    record_gap(log, "How do I deploy on Kubernetes?")
    out = _gaps(tmp_path, "--log", str(log))
    assert out.returncode == 0 and "1 refused question in 1 group\n" in out.stdout


def test_a_gap_log_line_that_holds_no_question_is_counted_not_hidden(tmp_path):
    # A server killed mid-write leaves its last line cut short; a hand edit can break one.
    log = tmp_path / "g.jsonl"
    record_gap(log, "How do I deploy on Kubernetes?")
    with log.open("a", encoding="utf-8") as f:
        f.write('\n["not a record"]\n{"timestamp": "2026-11-30T10:00:00", "quest')
    assert read_gaps(log) == (["How do I deploy on Kubernetes?"], [3, 4])
    out = _gaps(tmp_path, "--log", str(log))
    assert out.returncode == 0 and "1 refused question in 1 group" in out.stdout
    assert f"skipped 2 lines of {log} that hold no question (line 3, 4)" in out.stderr


def test_a_gap_log_docent_cannot_read_is_said_so(tmp_path):
    log = tmp_path / "g.jsonl"
    log.write_bytes(b'{"question": "caf\xe9?"}\n')
    out = _gaps(tmp_path, "--log", str(log))
    assert out.returncode == 1
    assert out.stderr == f"docent gaps: {log} is not UTF-8 text (invalid byte at offset 17)\n"
    out = _gaps(tmp_path, "--log", str(tmp_path))
    assert out.returncode == 1
    assert out.stderr == f"docent gaps: {tmp_path} is a folder, not a file\n"
