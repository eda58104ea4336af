"""Answer-unit vectors: made once at ingestion, read back at answer time (issue 11).

An answer embeds nothing but the question, and the question only when the search has not
just embedded it; an index built before unit vectors existed is rebuilt by the next
ingestion and still answers meanwhile.
"""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.messages import HumanMessage

from docent.agent.graph import build_graph
from docent.config import load_settings
from docent.ingest import ingest_path
from docent.models.extractive import ExtractiveChatModel
from docent.models.unit_vectors import (
    AnswerVectors,
    encode_chunks,
    locate,
    scored_units,
    unit_key,
)
from docent.retrieval.embeddings import MiniLMEmbedder
from docent.retrieval.retriever import HybridRetriever
from docent.retrieval.store import UNITS_KEY, open_store, pack, unpack
from docent.retrieval.types import Chunk
from tests.retrieval.conftest import FakeEmbedder, write_docs

DOCS = {
    "limits.md": "# Limits\n\n## Tool calls\n\nThe tool-call limit caps searches per run. "
    "Set `DOCENT_MAX_TOOL_CALLS` to change it.\n\n- The default is 3.\n- Retries never count.\n\n"
    "| Setting | Default |\n|---|---|\n| DOCENT_MAX_TURNS | 6 |\n",
    "stream.md": "# Streaming\n\nAnswers stream as server-sent events. "
    "Pings arrive every 15 seconds.\n",
}


@pytest.fixture
def data_settings(tmp_path):
    return load_settings(data_dir=tmp_path / "data")


@pytest.fixture(scope="module")
def real_embedder():
    return MiniLMEmbedder()


class CountingEmbedder(FakeEmbedder):
    """Records every text it embeds, spans included."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return super().embed(texts)


def _retriever(settings, embedder):
    return HybridRetriever(open_store(settings, embedder), embedder, settings,
                           max_unknown_shift=2.0, min_coverage=0.0)


def test_ingestion_stores_a_vector_for_every_scored_unit(tmp_path, data_settings):
    embedder = FakeEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    store = open_store(data_settings, embedder)
    chunks = store.all_chunks()
    stored = store.unit_vectors([c.chunk_id for c in chunks])
    assert set(stored) == {c.chunk_id for c in chunks}
    for chunk in chunks:
        keys = {unit_key(u.text) for u in scored_units(chunk.text)}
        assert keys and set(stored[chunk.chunk_id]) == keys
        for vector in stored[chunk.chunk_id].values():
            assert vector.shape == (embedder.dim,)
            assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-2)


async def test_an_answer_embeds_only_the_question_and_that_once(tmp_path, data_settings):
    embedder = CountingEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    retriever = _retriever(data_settings, embedder)
    retriever.warm_up()
    embedder.texts.clear()
    model = ExtractiveChatModel(vectors=AnswerVectors(embedder, retriever))
    graph = build_graph(model, retriever, data_settings)
    question = "How do I change the tool-call limit?"
    state = await graph.ainvoke({"messages": [HumanMessage(question)]})
    assert state["exit_reason"] == "COMPLETED" and "DOCENT_MAX_TOOL_CALLS" in state["response"]
    assert embedder.texts == [question]  # the search's; the answer reused it


async def test_after_warm_up_an_answer_splits_and_tokenises_no_passage(
    tmp_path, data_settings, monkeypatch
):
    """A server prepares every chunk's units and terms at start-up, not per answer."""
    from docent.models import scoring
    from docent.retrieval import sufficiency
    from docent.runtime import Runtime

    embedder = FakeEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    retriever = _retriever(data_settings, embedder)
    model = ExtractiveChatModel(vectors=AnswerVectors(embedder, retriever))
    graph = build_graph(model, retriever, data_settings)
    for remembered in (scoring._units, sufficiency._terms_of, sufficiency._terms_and_roots):
        remembered.cache_clear()
    Runtime(settings=data_settings, graph=graph, retriever=retriever,
            model_id="extractive").warm_up()
    split: list[str] = []
    indexed: list[str] = []
    real_split, real_text = scoring.split_units, sufficiency.embedding_text
    monkeypatch.setattr(scoring, "split_units", lambda body: split.append(body) or real_split(body))
    monkeypatch.setattr(sufficiency, "embedding_text",
                        lambda chunk: indexed.append(chunk.chunk_id) or real_text(chunk))
    state = await graph.ainvoke({"messages": [HumanMessage("How do I change the tool-call limit?")]})
    assert state["exit_reason"] == "COMPLETED" and "DOCENT_MAX_TOOL_CALLS" in state["response"]
    assert split == [] and indexed == []


def test_a_failed_preparation_does_not_stop_the_start(tmp_path, data_settings, monkeypatch,
                                                      caplog):
    from docent import runtime as runtime_module
    from docent.runtime import Runtime

    embedder = FakeEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    retriever = _retriever(data_settings, embedder)

    def broken(bodies):
        raise ValueError("a passage the splitter cannot read")

    monkeypatch.setattr(runtime_module, "remember_passages", broken)
    Runtime(settings=data_settings, graph=None, retriever=retriever,  # type: ignore[arg-type]
            model_id="extractive").warm_up()
    assert "answers prepare them" in caplog.text


def test_a_passage_without_stored_vectors_is_encoded_at_answer_time(tmp_path, data_settings):
    embedder = CountingEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    store = open_store(data_settings, embedder)
    store._units_collection().delete(ids=[c.chunk_id for c in store.all_chunks()])
    retriever = _retriever(data_settings, embedder)
    vectors = AnswerVectors(embedder, retriever)
    hit = retriever.search("tool-call limit", 1)[0]
    embedder.texts.clear()
    [table] = vectors.units([(hit.chunk.chunk_id, hit.chunk.title, hit.chunk.text)])
    assert set(table) == {unit_key(u.text) for u in scored_units(hit.chunk.text)}
    assert len(embedder.texts) == 1 and hit.chunk.text.split(".")[0] in embedder.texts[0]


def test_an_index_from_an_older_docent_is_re_embedded_once(tmp_path, data_settings):
    root = write_docs(tmp_path / "docs", DOCS)
    embedder = FakeEmbedder()
    ingest_path(root, data_settings, embedder=embedder, progress=False)
    store = open_store(data_settings, embedder)
    meta = dict(store._current().metadata)
    meta.pop(UNITS_KEY)  # as written before unit vectors existed
    store._current().modify(metadata=meta)
    store._units_collection().delete(ids=[c.chunk_id for c in store.all_chunks()])

    report = ingest_path(root, data_settings, embedder=embedder, progress=False)
    assert report.rebuilt and report.updated == 2 and "re-embedded" in report.summary()
    store = open_store(data_settings, embedder)
    assert len(store.unit_vectors([c.chunk_id for c in store.all_chunks()])) == 2
    again = ingest_path(root, data_settings, embedder=embedder, progress=False)
    assert not again.rebuilt and again.unchanged == 2 and again.chunks_written == 0


def test_deleting_a_file_deletes_its_unit_vectors(tmp_path, data_settings):
    root = write_docs(tmp_path / "docs", DOCS)
    embedder = FakeEmbedder()
    ingest_path(root, data_settings, embedder=embedder, progress=False)
    store = open_store(data_settings, embedder)
    gone = [c.chunk_id for c in store.all_chunks() if c.source_file == "stream.md"]
    (root / "stream.md").unlink()
    ingest_path(root, data_settings, embedder=embedder, progress=False)
    assert gone and store.unit_vectors(gone) == {}


def test_units_are_located_in_the_text_they_were_cut_from():
    body = "Intro line.\n\n- First item here.\n- Second [item](http://x/y) here.\n\n" \
           "| Name | Value |\n|---|---|\n| turns | 6 |\n"
    text = "Title\n\n" + body
    units = [u.text for u in scored_units(body)]
    spans = locate(units, text, len("Title\n\n"))
    got = [" ".join(text[a:b].split()) if (a, b) != (0, 0) else None for a, b in spans]
    assert got == ["Intro line", "First item here", "Second [item](http://x/y) here",
                   "turns | 6"]


def test_a_unit_with_long_links_is_pooled_from_the_chunk_not_embedded_again():
    # The embedded text has link targets cleaned out; a unit's words must be read the same
    # way, or a unit whose link holds more words than its prose is "not found" and costs a
    # model run of its own (a fifth of the FastAPI docs' model time went to such units).
    body = ("See the [OpenAPI Response Object](https://github.com/OAI/OpenAPI-Specification/"
            "blob/main/versions/3.1.0.md#response-object) for the fields.\n\n"
            "- [Download Traefik](https://github.com/traefik/traefik/releases/latest/download),"
            " a single binary.\n- Plain item.")
    chunk = Chunk(chunk_id="c1", source_file="a.md", title="A", section_title="",
                  slug="", page_url="", text=body)
    embedder = CountingEmbedder()
    vectors, [table] = encode_chunks(embedder, [chunk])
    assert embedder.embedded == 1  # the chunk's own run, nothing else
    assert set(table) == {unit_key(u.text) for u in scored_units(body)}
    assert all(np.linalg.norm(v) == pytest.approx(1.0, abs=1e-2) for v in table.values())


def test_packed_vectors_round_trip():
    rng = np.random.default_rng(1)
    table = {f"k{i}": v / np.linalg.norm(v) for i, v in enumerate(rng.standard_normal((3, 8)))}
    back = unpack(*pack(table), dim=8)
    assert list(back) == list(table)
    for key, vector in table.items():
        assert np.allclose(back[key], vector, atol=2e-3)
    assert unpack(*pack({}), dim=8) == {}


@pytest.mark.slow
def test_a_span_vector_is_the_meaning_of_that_span_in_context(real_embedder):
    text = "Rate limits. A request over the limit gets HTTP 429 and a Retry-After header."
    whole = real_embedder.embed([text])
    vectors, [spans] = real_embedder.embed_spans([text], [[(0, len(text)), (13, len(text))]])
    assert np.allclose(vectors, whole, atol=1e-5)
    assert float(spans[0] @ whole[0]) > 0.99  # the whole text as a span: the same vector
    alone = real_embedder.embed([text[13:]])[0]
    banana = real_embedder.embed(["Bananas ripen next to apples."])[0]
    assert float(spans[1] @ alone) > float(spans[1] @ banana) + 0.3


def test_a_unit_its_stored_table_lacks_is_embedded_at_answer_time():
    # A table stored by a docent that cut the passage otherwise (an older UNITS_VERSION)
    # lacks a unit: that unit is embedded now, the ones stored are read, not embedded.
    from docent.intent import intent_of
    from docent.models.scoring import candidates, score
    from docent.models.text import Reference

    embedder = CountingEmbedder()
    stored = "The tool-call limit caps searches per run."
    lacking = "Testnet Faucet: <https://f.example/>"
    body = f"{stored}\n\n{lacking}"

    class Index:
        def focus_vector(self, text):
            return embedder.embed([text])[0]

        def unit_vectors(self, chunk_ids):
            return {"c1": {unit_key(stored): embedder.embed([stored])[0]}}

    refs = [Reference(1, "Limits (limits.md)", body, "c1")]
    question = "Which faucet caps the tool-call limit?"
    embedder.texts.clear()
    scored = score(question, intent_of(question), candidates(refs), refs,
                   AnswerVectors(embedder, Index()))
    assert lacking in embedder.texts and embedder.texts.count(stored) == 1  # read, not re-embedded
    assert [c.unit.text for c in scored] == [stored, lacking]


def test_code_opening_a_passage_is_scored_by_the_chunks_stored_vector():
    # The retriever has the chunk's vector: reading it costs no model run.
    from docent.intent import intent_of
    from docent.models.scoring import candidates, score
    from docent.models.text import Reference

    embedder = CountingEmbedder()
    body = "```\nsetInterval(update, 1000)\n```"
    question = "How does the clock update?"

    class Index:
        def focus_vector(self, text):
            return embedder.embed([text])[0]

        def unit_vectors(self, chunk_ids):
            return {"c1": {}}

        def chunk_vectors(self, chunk_ids):
            return {"c1": self.focus_vector(question)}

    refs = [Reference(1, "A Simple Clock (clock.md)", body, "c1")]
    embedder.texts.clear()
    [code] = score(question, intent_of(question), candidates(refs), refs,
                   AnswerVectors(embedder, Index()))
    assert embedder.texts == [question, question]  # the index's; the passage is not embedded
    assert code.score > 0.99  # cosine 1 with the stored vector, plus its words


def test_the_retriever_reads_a_chunks_vector_as_stored(tmp_path, data_settings):
    from docent.retrieval.recovering import RecoveringRetriever

    embedder = FakeEmbedder()
    ingest_path(write_docs(tmp_path / "docs", DOCS), data_settings, embedder=embedder,
                progress=False)
    store = open_store(data_settings, embedder)
    ids = [c.chunk_id for c in store.all_chunks()]
    stored = store.embeddings(ids)
    for retriever in (_retriever(data_settings, embedder),
                      RecoveringRetriever(data_settings, embedder)):
        cold = retriever.chunk_vectors(ids)  # before any search: read from Chroma
        retriever.search("tool-call limit", 3)  # the exact-search table is now in memory
        warm = retriever.chunk_vectors(ids)
        for found in (cold, warm):
            assert set(found) == set(ids)
            assert all(np.allclose(found[i], stored[i], atol=1e-6) for i in ids)


class _FailingIndex:
    def respelled(self, text: str) -> str:
        raise RuntimeError("the store went away")


def test_the_question_is_read_as_typed_without_an_index_or_when_it_fails():
    from tests.retrieval.conftest import FakeEmbedder

    assert AnswerVectors(FakeEmbedder()).respelled("the paarmeter") == "the paarmeter"
    failing = AnswerVectors(FakeEmbedder(), _FailingIndex())  # type: ignore[arg-type]
    assert failing.respelled("the paarmeter") == "the paarmeter"
