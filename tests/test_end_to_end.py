"""The whole offline pipeline on docent's own docs/: ingest, retrieve, answer, cite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from docent.api.app import create_app
from docent.config import load_settings
from docent.evaluation.metrics import lead_statement
from docent.exit_reasons import REFUSAL
from docent.ingest import ingest_path
from docent.retrieval.retriever import build_retriever
from docent.runtime import build_runtime

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e")
    report = ingest_path(DOCS, load_settings(data_dir=data), progress=False)
    assert report.total_chunks > 20 and not report.skipped
    return data


@pytest.fixture(scope="module")
def client(data_dir):
    settings = load_settings(data_dir=data_dir)
    with TestClient(create_app(settings, build_runtime)) as c:
        yield c


def test_tool_call_limit_question_is_answered_from_the_configuration_page(client):
    body = client.post("/chat", json={"message": "How do I change the tool-call limit?"}).json()
    assert body["exit_reason"] == "COMPLETED"
    assert "DOCENT_MAX_TOOL_CALLS" in body["response"]
    files = {s["source_file"] for s in body["sources"]}
    assert "configuration.md" in files
    for s in body["sources"]:
        assert f"[{s['n']}]" in body["response"]


@pytest.mark.parametrize("question, page", [
    ("What happens when a client disconnects from the stream?", "streaming.md"),
    ("Which files does ingestion skip?", "ingestion.md"),
    ("What does MAX_CONTEXT_REACHED mean?", "exit-reasons.md"),
    ("How do I deploy docent?", "deployment.md"),  # the docs only say "deployment"
])
def test_questions_cite_the_page_that_answers_them(client, question, page):
    body = client.post("/chat", json={"message": question}).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert page in {s["source_file"] for s in body["sources"]}


def test_questions_outside_the_docs_are_refused(client):
    body = client.post("/chat", json={"message": "What is the boiling point of mercury?"}).json()
    assert body["response"] == REFUSAL and body["sources"] == []


def test_a_question_that_hinges_on_a_word_the_docs_never_use_is_refused(client):
    # "sign" and "mentorship" appear nowhere in docs/, and the question is about them.
    question = "How do I sign up for the docent mentorship scheme?"
    body = client.post("/chat", json={"message": question}).json()
    assert body["response"] == REFUSAL and body["sources"] == []


def test_an_incidental_word_the_docs_never_use_does_not_refuse(client):
    body = client.post("/chat", json={
        "message": "How do I change the tool-call limit on my workstation?"
    }).json()
    assert body["exit_reason"] == "COMPLETED" and "DOCENT_MAX_TOOL_CALLS" in body["response"]


def test_the_unknown_word_check_can_be_turned_off(data_dir):
    question = "How do I sign up for the docent mentorship scheme?"
    on = build_retriever(load_settings(data_dir=data_dir, min_coverage=0.0))
    off = build_retriever(load_settings(data_dir=data_dir, min_coverage=0.0,
                                        max_unknown_shift=2.0))
    assert on.unknown_shift(question) > on.max_unknown_shift
    assert on.search(question, 3) == [] and off.search(question, 3) != []


def test_a_which_question_about_a_thing_the_docs_never_name_is_refused(data_dir):
    # Every other word is docent's own; the docs never say "continents", so they cannot say
    # which ones: the shift is total though removing the word moves the vector little.
    question = "In which continents can docent run?"
    retriever = build_retriever(load_settings(data_dir=data_dir, min_coverage=0.0))
    assert retriever.unknown_shift(question) == 1.0
    assert retriever.search(question, 3) == []


def test_health_counts_the_ingested_chunks(client):
    assert client.get("/health").json()["chunks"] > 20
    assert client.get("/ready").status_code == 200


def test_chat_history_is_never_written_to_disk(client, data_dir):
    marker = "zebracornflakes"
    client.post("/chat", json={"message": f"Does {marker} change the tool-call limit?"})
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), path


def test_cli_ask_streams_then_prints_sources_and_exit_reason(data_dir):
    env = {**os.environ, "DOCENT_DATA_DIR": str(data_dir)}
    env.pop("GOOGLE_API_KEY", None)
    out = subprocess.run([sys.executable, "-m", "docent.cli", "ask",
                          "How do I change the tool-call limit?"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "DOCENT_MAX_TOOL_CALLS" in out.stdout
    assert "Sources:" in out.stdout and "configuration.md" in out.stdout
    assert out.stdout.rstrip().endswith("Exit reason: COMPLETED")


def test_ingest_script_reports_and_is_incremental(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nAlpha pages explain the alpha setting in detail.\n")
    (docs / "bad.md").write_bytes(b"\xff\xfe not utf-8 \x81")
    env = {**os.environ, "DOCENT_DATA_DIR": str(tmp_path / "data")}
    run = lambda *a: subprocess.run([sys.executable, str(ROOT / "ingest.py"), *a],  # noqa: E731
                                    capture_output=True, text=True, env=env, timeout=120)
    first = run(str(docs), "--quiet")
    assert first.returncode == 0, first.stderr
    assert "bad.md" in first.stdout + first.stderr and "Traceback" not in first.stderr
    second = run(str(docs), "--quiet")
    assert second.returncode == 0 and "unchanged" in second.stdout.lower()
    missing = run(str(tmp_path / "nope"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "nope" in missing.stderr


@pytest.mark.parametrize("question, lead", [
    ("Which environment variable sets the Gemini model?", "`DOCENT_GEMINI_MODEL`"),
    ("What happens when the rate limit is hit?", "HTTP 429"),
    ("Do I need an API key or a database server to run docent?", "no API key"),
    ("What does MAX_TURNS_REACHED mean?", "`MAX_TURNS_REACHED` means"),
    ("How do I read the /chat/stream response in a web page?", "`fetch`"),
    # The guide said "website" only in an example of a link's text, which then led
    ("How do I ingest a website?", "sitemap"),
])
def test_the_example_questions_lead_with_their_answer(client, question, lead):
    # The questions users were first shown answers to: the first statement answers them.
    body = client.post("/chat", json={"message": question}).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert lead in lead_statement(body["response"]), body["response"]


def test_how_long_a_field_may_be_is_answered_with_its_length(client):
    # "How long" of a field asks for characters, not a time: no duration in the docs refuses it
    body = client.post("/chat", json={"message": "How long can the selected_text field be?"}).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert "10000 characters" in body["response"]


@pytest.mark.parametrize("question, follow_up, answer", [
    # "it" may be a length or a time: the field's length answers
    ("What is the selected_text field in a chat request?", "How long can it be?",
     "10000 characters"),
    # "they" says of what only by pointing back: the value check lets it through
    ("Why do I see ': ping' lines in the event stream?", "How often are they sent?",
     "DOCENT_SSE_PING_SECONDS"),
    # "earlier" says which turns, not what is counted: "the last 10 turns" answers it
    ("How does docent remember a conversation?", "How many earlier turns does it keep?",
     "10 turns"),
])
def test_a_follow_up_asking_for_a_value_by_a_pronoun_is_answered(client, question, follow_up,
                                                                  answer):
    first = client.post("/chat", json={"message": question}).json()
    after = client.post("/chat", json={"message": follow_up,
                                       "session_id": first["session_id"]}).json()
    assert after["exit_reason"] == "COMPLETED", after["response"]
    assert answer in after["response"], after["response"]


@pytest.mark.parametrize("courtesy", ["thanks!", "ok"])
def test_a_follow_up_after_a_thanks_still_points_back_to_the_answer(client, courtesy):
    first = client.post("/chat", json={"message": "What is the tool-call limit?"}).json()
    sid = first["session_id"]
    thanks = client.post("/chat", json={"message": courtesy, "session_id": sid}).json()
    assert thanks["metadata"]["model"] == "greeting"
    after = client.post("/chat", json={"message": "How do I change it?", "session_id": sid}).json()
    assert after["exit_reason"] == "COMPLETED", after["response"]
    assert "DOCENT_MAX_TOOL_CALLS" in after["response"], after["response"]


@pytest.mark.parametrize(("question", "lead"), [
    ("How many sesions can one worker keep?", "DOCENT_SESSION_MAX_COUNT"),
    ("Where are the ingestion progress lines writen?", "progress line"),
])
def test_a_question_typed_with_a_slip_is_answered_as_if_typed_right(client, question, lead):
    body = client.post("/chat", json={"message": question}).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert lead in body["response"].split("\n\n")[1], body["response"]


def test_a_name_typed_as_code_is_known_when_the_docs_spell_it_as_words(client):
    # The docs say "no cookies and no local storage"; they never write "localStorage".
    body = client.post("/chat", json={
        "message": "Does the web chat page save my conversation in cookies or localStorage?"}).json()
    assert body["exit_reason"] == "COMPLETED", body["response"]
    assert "local storage" in body["response"], body["response"]


@pytest.mark.parametrize("question", [
    "Can docent ingest pages from Confluence?",
    # The guide explains the refusal checks with example names; names a docent user asks
    # about there ("grpc", "docker") made its paragraph answer them.
    "Does docent support gRPC?",
    "How do I run docent in Docker?",
])
def test_a_question_the_docs_do_not_cover_is_refused_without_sources(client, question):
    body = client.post("/chat", json={"message": question}).json()
    assert body["response"] == REFUSAL
    assert body["sources"] == []


@pytest.mark.parametrize("question", [
    "My docs are in a private Git repository. How do I ingest them?",
    "What is MAX_TURNS_REACHED and how do I avoid it?",
    "Which files does ingestion skip, and can I change them?",
    "Which exit reasons mean it is worth sending the same request again?",
    "How long does docent give one model call before it counts as failed, and what is the"
    " highest value I'm allowed to set?",
])
def test_a_new_question_in_a_conversation_is_answered_as_if_asked_alone(client, question):
    # A pronoun whose thing the question names itself does not pull in the previous turn.
    alone = client.post("/chat", json={"message": question}).json()
    first = client.post("/chat", json={"message": "How do I change the tool-call limit?"}).json()
    after = client.post("/chat", json={"message": question,
                                       "session_id": first["session_id"]}).json()
    assert after["metadata"]["session_status"] == "continued"
    assert after["response"] == alone["response"]
