"""Hybrid retrieval: keyword rescue, scores, the results cache and its invalidation."""

from __future__ import annotations

import numpy as np
import pytest

from docent.config import load_settings
from docent.ingest import ingest_path
from docent.retrieval import retriever as retriever_module
from docent.retrieval.retriever import HybridRetriever, build_retriever
from docent.retrieval.store import open_store
from tests.retrieval.conftest import FakeEmbedder, RandomEmbedder, write_docs

TOPICS = ["weather", "cooking", "gardening", "music", "travel", "sports", "history", "art"]


def _corpus(tmp_path):
    files = {
        f"{topic}-{i}.md": f"# {topic.title()} {i}\n\nNotes about {topic} number {i}, "
        f"with ordinary words on {topic}.\n"
        for topic in TOPICS for i in range(5)
    }
    files["flags.md"] = "# Flags\n\nSet ZQX_TURBO_MODE to enable the fast path.\n"
    return write_docs(tmp_path / "docs", files)


def _ingested(tmp_path, settings):
    """A random embedder, and `_corpus` ingested with it."""
    embedder = RandomEmbedder()
    ingest_path(_corpus(tmp_path), settings, embedder=embedder, progress=False)
    return embedder


def _retriever(settings, embedder, **kw):
    # Fake embedders carry no meaning, so the meaning-shift refusal is off unless asked for.
    kw.setdefault("max_unknown_shift", 2.0)
    return HybridRetriever(open_store(settings, embedder), embedder, settings, **kw)


def test_keywords_find_an_exact_identifier_that_vectors_miss(tmp_path, data_settings):
    embedder = _ingested(tmp_path, data_settings)
    query = "How do I turn on ZQX_TURBO_MODE?"
    vector_only = _retriever(data_settings, embedder, keyword_weight=0.0, depth=3)
    assert "flags.md" not in [h.chunk.source_file for h in vector_only.search(query, 3)]
    hybrid = _retriever(data_settings, embedder)
    assert "flags.md" in [h.chunk.source_file for h in hybrid.search(query, 3)]


def test_a_slip_in_the_question_is_searched_as_the_docs_word(tmp_path, data_settings):
    embedder = RandomEmbedder()  # no meaning: only the keyword search can find the page
    files = {f"{topic}.md": f"# {topic.title()}\n\nNotes about {topic}.\n" for topic in TOPICS}
    files["kiln.md"] = "# Kiln\n\nThe kiln's thermostat reads the temperature.\n"
    ingest_path(write_docs(tmp_path / "docs", files), data_settings, embedder=embedder,
                progress=False)
    retriever = _retriever(data_settings, embedder, keyword_weight=1.0, vector_weight=0.0)
    assert [h.chunk.source_file for h in retriever.search("thremostat", 1)] == ["kiln.md"]
    assert retriever.respelled("Where is the thremostat?") == "Where is the thermostat?"


def test_every_score_is_the_clipped_cosine_similarity(tmp_path, data_settings):
    embedder = _ingested(tmp_path, data_settings)
    retriever = _retriever(data_settings, embedder)
    query = "ZQX_TURBO_MODE fast path"
    hits = retriever.search(query, 5)
    q = embedder.embed([query])[0]
    stored = retriever.store.embeddings([h.chunk.chunk_id for h in hits])
    for hit in hits:
        expected = min(max(float(np.dot(q, stored[hit.chunk.chunk_id])), 0.0), 1.0)
        assert 0.0 <= hit.score <= 1.0
        assert hit.score == pytest.approx(expected, abs=1e-4)


def test_a_repeated_query_is_a_cache_hit(tmp_path, data_settings, fake_embedder):
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder)
    first = retriever.search("notes about cooking", 4)
    embedded = fake_embedder.embedded
    again = retriever.search("  notes about   cooking ", 4)
    assert again == first
    assert fake_embedder.embedded == embedded  # answered without embedding the query
    info = retriever.cache_info()
    assert (info.hits, info.misses, info.size) == (1, 1, 1)
    retriever.search("notes about cooking", 2)  # k is part of the key
    assert retriever.cache_info().misses == 2


def test_empty_results_are_never_cached(data_settings, fake_embedder):
    retriever = _retriever(data_settings, fake_embedder)
    assert retriever.search("anything at all", 5) == []
    assert retriever.search("anything at all", 5) == []
    info = retriever.cache_info()
    assert (info.hits, info.size) == (0, 0)


def test_questions_about_what_the_docs_never_mention_count_as_empty(data_settings, fake_embedder):
    retriever = _retriever(data_settings, fake_embedder)
    assert retriever.search("How do I deploy on Kubernetes?", 3) == []
    assert retriever.cache_info().size == 0  # empty results are never cached


def test_a_name_only_in_the_scene_before_the_question_is_the_users_own(
    tmp_path, data_settings
):
    # "Kubernetes" is in no doc. Where it only describes the user's setup, the question is
    # still about ZQX_TURBO_MODE; where the question asks about it, the docs cannot answer.
    embedder = _ingested(tmp_path, data_settings)
    retriever = _retriever(data_settings, embedder, min_coverage=0.0)
    assert retriever.search("My service runs on Kubernetes. How do I turn on ZQX_TURBO_MODE?", 3)
    assert retriever.search("How do I turn on ZQX_TURBO_MODE on Kubernetes?", 3) == []
    assert retriever.search("My service runs on Kubernetes. How do I turn on ZQX_TURBO_MODE "
                            "there?", 3) == []
    # When a scene the question points back at ("it") also names a thing of the docs as
    # code writes it (ZQX_TURBO_MODE), "it" is that, and its unknown names are the user's
    # own; beside a proper name of the docs ("Music"), the question may be about the unknown.
    assert retriever.search("Our Kubernetes jobs set ZQX_TURBO_MODE. How do I turn it off?", 3)
    assert retriever.search("Our jobs run on Kubernetes. How do I turn it off?", 3) == []
    assert retriever.search("Our Kubernetes jobs play Music. How do I turn it off?", 3) == []
    # a name the asking part gives itself is asked about either way
    assert retriever.search("Our jobs set ZQX_TURBO_MODE. How do I turn it off on "
                            "Kubernetes?", 3) == []


def test_an_acronym_the_scene_spells_out_is_no_unknown_name(tmp_path, data_settings):
    # "Django REST Framework was the go-to. Which companies use DRF?": the names are read
    # from the part that asks, the spelled-out words from the whole question
    embedder = _ingested(tmp_path, data_settings)
    retriever = _retriever(data_settings, embedder, min_coverage=0.0)
    assert retriever.search("We used Zqx Turbo Mode before. How do I turn on ZTM?", 3)
    assert retriever.search("How do I turn on ZTM?", 3) == []


def test_a_built_in_feature_the_docs_never_name_is_refused(tmp_path, data_settings):
    # Every word is in the docs ("fast", "notes"), but "fast notes" is no thing they name,
    # so a question taking it for granted as built in cannot be answered.
    embedder = _ingested(tmp_path, data_settings)
    retriever = _retriever(data_settings, embedder, min_coverage=0.0)
    assert retriever.search("How do I turn on the built-in fast path?", 3)
    assert retriever.search("How do I turn on the built-in fast notes?", 3) == []
    # it is part of the unknown-name check, and off with it
    assert _retriever(data_settings, embedder, min_coverage=0.0, check_names=False).search(
        "How do I turn on the built-in fast notes?", 3)


def test_blank_queries_return_nothing_without_searching(data_settings, fake_embedder):
    retriever = _retriever(data_settings, fake_embedder)
    assert retriever.search("   \n\t", 5) == []
    assert fake_embedder.embedded == 0 and retriever.cache_info().misses == 0


def test_cache_size_zero_disables_the_cache(tmp_path, fake_embedder):
    settings = load_settings(data_dir=tmp_path / "data", retrieval_cache_size=0)
    ingest_path(_corpus(tmp_path), settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(settings, fake_embedder)
    retriever.search("music notes", 3)
    retriever.search("music notes", 3)
    assert retriever.cache_info().hits == 0


def test_reingestion_invalidates_the_cache_and_the_keyword_index(tmp_path, data_settings):
    embedder = FakeEmbedder()
    docs = _corpus(tmp_path)
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    # The sufficiency check would refuse a name the corpus lacks; this test is about caching.
    retriever = _retriever(data_settings, embedder, min_coverage=0.0, check_names=False)
    assert retriever.search("QWERTY_LIMIT", 3)[0].chunk.source_file != "limits.md"
    write_docs(docs, {"limits.md": "# Limits\n\nQWERTY_LIMIT caps the rate.\n"})
    # Another store object stands in for another process doing the ingestion.
    ingest_path(docs, data_settings, embedder=embedder, progress=False,
                store=open_store(data_settings, embedder))
    # The search notices the new fingerprint and waits (up to `stale_wait`) for the index.
    hits = retriever.search("QWERTY_LIMIT", 3)
    assert hits[0].chunk.source_file == "limits.md"
    assert retriever.cache_info().hits == 0
    assert retriever.count() == len(retriever.keyword_index().chunks)


def test_build_retriever_opens_the_configured_store(tmp_path, data_settings, fake_embedder):
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = build_retriever(data_settings, fake_embedder)
    assert retriever.count() == 41
    assert retriever.search("notes about travel", 2)[0].chunk.title.startswith("Travel")


def _guide_corpus(tmp_path):
    files = {
        f"{topic}-{i}.md": f"# {topic.title()} {i}\n\nNotes about {topic} number {i}.\n"
        for topic in TOPICS for i in range(3)
    }
    filler = " ".join(f"word{j}" for j in range(150))  # keeps each section a chunk of its own
    sections = "".join(
        f"## Kiln step {i}\n\nThe kiln glaze step {i} fires at {900 + i} degrees. {filler}\n\n"
        for i in range(4)
    )
    long = "Kiln notes in full. " + "firing " * 500
    files["kiln.md"] = f"# Kiln\n\n{sections}## Kiln appendix\n\n{long}\n"
    files["glaze.md"] = "# Glaze\n\nA kiln glaze recipe.\n"
    return write_docs(tmp_path / "docs", files)


def test_more_chunks_of_the_best_file_follow_the_diverse_hits(tmp_path, data_settings):
    embedder = FakeEmbedder()
    ingest_path(_guide_corpus(tmp_path), data_settings, embedder=embedder, progress=False)
    plain = _retriever(data_settings, embedder, expand=0).search("kiln glaze step", 3)
    hits = _retriever(data_settings, embedder, expand=2).search("kiln glaze step", 3)
    assert hits[:3] == plain  # the k diverse hits are unchanged
    files = [h.chunk.source_file for h in hits]
    assert len(set(files[:3])) == 3 and files[0] == "kiln.md"
    # then two more of the best file, and its third, which ranks among the first 2k
    assert files[3:] == ["kiln.md", "kiln.md", "kiln.md"]
    assert len({h.chunk.chunk_id for h in hits}) == 6  # no repeats


def test_the_best_pages_section_closest_to_the_question_is_its_last_further_chunk(
    tmp_path, data_settings
):
    # "If it doesn't see an Authorization header... it responds with a 401" ranks far down
    # for "what does a caller get back if they leave out the header?", but that statement
    # is closer to the question than any of the passages found.
    embedder = FakeEmbedder()
    plain, chunks, unseen = _best_page_unseen(tmp_path, data_settings, embedder)
    closest = next(c for c in unseen if len(c.text) <= 1500)
    appendix = next(c for c in unseen if len(c.text) > 1500)
    focus = np.eye(embedder.dim, dtype=np.float32)[0]
    aside = np.eye(embedder.dim, dtype=np.float32)[1]

    def search(cosine: float) -> list[str]:
        # Every found passage's best statement at cosine 0.6 with the question; the unseen
        # section's at `cosine`; the long appendix's at 1.
        tables = {c.chunk_id: {"u": 0.6 * focus + 0.8 * aside} for c in chunks}
        tables[closest.chunk_id] = {"u": cosine * focus + np.sqrt(1 - cosine**2) * aside}
        tables[appendix.chunk_id] = {"u": focus}
        retriever = _retriever(data_settings, embedder, expand=1)
        retriever.focus_vector = lambda text: focus
        retriever.unit_vectors = lambda ids: {i: tables[i] for i in ids if i in tables}
        return [h.chunk.chunk_id for h in retriever.search("kiln glaze step", 3)]

    ids = [h.chunk.chunk_id for h in plain]
    assert len(ids) == 5 and search(0.9) == [*ids[:4], closest.chunk_id]  # >= 0.85 * 0.6
    assert search(0.5) == ids  # else the next chunk ranking among the first 2k, as before


def test_the_best_pages_section_closest_to_a_later_ask_joins_too(tmp_path, data_settings):
    # "Which REST endpoint do I hit, and how do I authenticate?": the page's
    # "Authentication" section is far from the whole question, close to its second ask.
    embedder = FakeEmbedder()
    plain, chunks, unseen = _best_page_unseen(tmp_path, data_settings, embedder)
    section = next(c for c in unseen if len(c.text) <= 1500)
    focus, aside, ask = np.eye(embedder.dim, dtype=np.float32)[:3]

    def search(asks: tuple[np.ndarray, ...]) -> list[str]:
        # Every passage's best statement at cosine 0.6 with the question and 0.3 with the
        # ask; the section's at 0.2 with the question and 0.9 with the ask.
        tables = {c.chunk_id: {"u": 0.6 * focus + 0.3 * ask + 0.74 * aside} for c in chunks}
        tables[section.chunk_id] = {"u": 0.2 * focus + 0.9 * ask + 0.39 * aside}
        retriever = _retriever(data_settings, embedder, expand=1)
        vectors = retriever._question_vectors
        retriever._question_vectors = lambda text, also=(): (*vectors(text, also)[:2], asks)
        retriever.focus_vector = lambda text: focus
        retriever.unit_vectors = lambda ids: {i: tables[i] for i in ids if i in tables}
        return [h.chunk.chunk_id for h in retriever.search("kiln glaze step", 3)]

    ids = [h.chunk.chunk_id for h in plain]
    assert search(()) == ids  # one ask: as before
    assert search((ask,)) == [*ids[:4], section.chunk_id, *ids[4:]]


def _best_page_unseen(tmp_path, data_settings, embedder):
    """The guide corpus ingested: what "kiln glaze step" finds (expand=1), every chunk,
    and the best page's chunks it leaves out."""
    ingest_path(_guide_corpus(tmp_path), data_settings, embedder=embedder, progress=False)
    plain = _retriever(data_settings, embedder, expand=1).search("kiln glaze step", 3)
    found = {h.chunk.chunk_id for h in plain}
    chunks = _retriever(data_settings, embedder).keyword_index().chunks
    unseen = [c for c in chunks if c.source_file == "kiln.md" and c.chunk_id not in found]
    return plain, chunks, unseen


def _kiln_with_pictures(tmp_path):
    files = {
        f"{topic}-{i}.md": f"# {topic.title()} {i}\n\nNotes about {topic} number {i}.\n"
        for topic in TOPICS for i in range(3)
    }
    filler = " ".join(f"word{j}" for j in range(150))
    # A crawled page's section: a few sentences between screenshots whose links make it
    # 3,500 characters long though its text is short ("Deploy the Smart Contract").
    stages = "".join(
        f"Raise the heat, stage {i}. {' '.join(f'w{i}x{j}' for j in range(40))}\n\n"
        f"![](https://img.example.com/{'x' * 600}{i}.png)\n\n"
        for i in range(4)
    )
    files["kiln.md"] = (
        f"# Kiln\n\n## Kiln setup\n\nKiln setup: stand the kiln on bricks. {filler}\n\n"
        f"## Kiln firing\n\n{stages}"
    )
    return write_docs(tmp_path / "docs", files)


def test_a_long_section_of_the_best_page_joins_when_a_search_ranks_it_among_its_first(
    tmp_path, data_settings, monkeypatch
):
    embedder = FakeEmbedder()
    ingest_path(_kiln_with_pictures(tmp_path), data_settings, embedder=embedder,
                progress=False)

    def found() -> list[tuple[str, int]]:
        hits = _retriever(data_settings, embedder, expand=1).search("kiln setup", 3)
        return [(h.chunk.source_file, len(h.chunk.text)) for h in hits]

    hits = found()
    assert hits[0][0] == "kiln.md" and len({f for f, _ in hits[:3]}) == 3
    # the firing section, second of both searches, is longer than expand_chars (1500)
    assert hits[3:] == [("kiln.md", hits[3][1])] and hits[3][1] > 1500
    monkeypatch.setattr(retriever_module, "_EITHER_TOP", 1)  # only each search's first
    assert found() == hits[:3]


def test_the_value_check_reads_the_top_k_and_the_best_pages_further_sections(
    tmp_path, data_settings, fake_embedder
):
    # A figure is often in a later section of the best page: the value check reads the
    # more of that page that follows the top hits too, as the answer does; not another
    # page's second passage, which the answer may quote but which is not what it is about.
    ingest_path(_two_section_pages(tmp_path, 0), data_settings, embedder=fake_embedder,
                progress=False)
    retriever = _retriever(data_settings, fake_embedder)
    read: list[list[str]] = []
    retriever.states_value = lambda query, hits, fingerprint=None: read.append(
        [f"{h.chunk.source_file} {h.chunk.section_title.split(' > ')[-1]}" for h in hits]) or True
    hits = retriever.search("How do I mount a Flask app under a path with WSGIMiddleware?", 2)
    found = [f"{h.chunk.source_file} {h.chunk.section_title.split(' > ')[-1]}" for h in hits]
    assert found == ["routers.md Mount", "wsgi.md Using the middleware", "routers.md Flask",
                     "wsgi.md Check it"]
    assert read == [found[:3]]


def test_extra_chunks_of_the_best_file_are_limited_in_size(tmp_path, data_settings):
    embedder = FakeEmbedder()
    ingest_path(_guide_corpus(tmp_path), data_settings, embedder=embedder, progress=False)
    long = [c for c in _retriever(data_settings, embedder).keyword_index().chunks
            if c.source_file == "kiln.md" and len(c.text) > 2000]
    assert long  # the appendix, a long chunk of the same file
    retriever = _retriever(data_settings, embedder, expand=10, expand_chars=2000)
    hits = retriever.search("kiln glaze step", 3)
    extra = hits[3:]
    assert len(extra) >= 2 and all(len(h.chunk.text) <= 2000 for h in extra)
    assert long[0].chunk_id not in [h.chunk.chunk_id for h in hits[1:]]
    assert all(h.chunk.source_file == "kiln.md" for h in extra)


def test_a_chunk_written_after_the_keyword_index_was_built_is_still_found(
    tmp_path, data_settings, fake_embedder
):
    # Vector search returns ids only; their chunks come from the in-memory keyword index,
    # and one an ingestion under way has written since (no new fingerprint yet) from the store.
    from docent.retrieval.chunking import embedding_text
    from docent.retrieval.types import Chunk

    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, min_coverage=0.0)
    retriever.warm_up()
    late = Chunk(chunk_id="late-1", source_file="late.md", title="Late", section_title="Late",
                 slug="late", page_url="", text="Quokka zebra umbrella notes.")
    retriever.store.upsert([late], fake_embedder.embed([embedding_text(late)]),
                           file_hash="x", source_root=str(tmp_path))
    hits = retriever.search("quokka zebra umbrella", 3)
    assert hits[0].chunk == late


def test_warm_up_loads_the_vector_index_too(tmp_path, data_settings, fake_embedder, monkeypatch):
    """At 100,000 chunks Chroma takes seconds to load its index: before /ready, not after."""
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder)
    asked: list[int] = []
    real = retriever.store.nearest
    monkeypatch.setattr(retriever.store, "nearest", lambda v, n: asked.append(n) or real(v, n))
    retriever.warm_up()
    assert asked == [1]


def test_warm_up_reads_the_unit_vectors_so_answers_read_none(
    tmp_path, data_settings, fake_embedder
):
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, min_coverage=0.0)
    reads: list[list[str]] = []
    real = retriever.store.unit_vectors
    retriever.store.unit_vectors = lambda ids: reads.append(list(ids)) or real(ids)
    retriever.warm_up()
    every = {c.chunk_id for c in retriever.keyword_index().chunks}
    assert {i for ids in reads for i in ids} == every
    reads.clear()
    ids = [h.chunk.chunk_id for h in retriever.search("music notes", 3)]
    assert set(retriever.unit_vectors(ids)) == set(ids) and reads == []


def test_stored_vectors_are_read_once_per_chunk_until_the_collection_changes(
    tmp_path, data_settings
):
    embedder = FakeEmbedder()
    docs = _corpus(tmp_path)
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    retriever = _retriever(data_settings, embedder, min_coverage=0.0, check_names=False)
    reads: list[list[str]] = []
    real = retriever.store.unit_vectors
    retriever.store.unit_vectors = lambda ids: reads.append(list(ids)) or real(ids)
    ids = [h.chunk.chunk_id for h in retriever.search("music notes", 3)]
    first = retriever.unit_vectors(ids)
    assert set(first) == set(ids) and reads == [ids]
    assert retriever.unit_vectors(ids).keys() == first.keys() and len(reads) == 1
    # Another process re-ingests: the next search sees the new fingerprint, reads again.
    write_docs(docs, {"limits.md": "# Limits\n\nQWERTY_LIMIT caps the rate.\n"})
    ingest_path(docs, data_settings, embedder=embedder, progress=False,
                store=open_store(data_settings, embedder))
    retriever.search("music notes", 3)
    retriever.unit_vectors(ids)
    assert len(reads) == 2


def test_a_changelog_full_of_mentions_does_not_outrank_the_page_about_the_topic(
    tmp_path, data_settings
):
    # Eight release notes each mention webhooks once; one page is about them. The release
    # notes' many matching chunks must not lift each other above that page.
    filler = " ".join(f"word{j}" for j in range(120))
    notes = "# Release Notes\n\n" + "".join(
        f"## 0.{i}.0\n\nFixed a typo in the webhooks docs. {filler}\n\n" for i in range(8)
    )
    page = "# Webhooks\n\nWebhooks send events to the URLs of your users: declare webhooks.\n"
    docs = write_docs(tmp_path / "docs", {"release-notes.md": notes, "webhooks.md": page,
                                          "cooking.md": "# Cooking\n\nNotes about cooking.\n"})
    embedder = RandomEmbedder()
    ingest_path(docs, data_settings, embedder=embedder, progress=False)
    retriever = _retriever(data_settings, embedder, vector_weight=0.0, expand=0)
    hits = retriever.search("How do I declare webhooks?", 3)
    assert hits[0].chunk.source_file == "webhooks.md"


def test_a_question_with_an_unknown_word_asked_again_embeds_nothing(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    # The meaning-shift check embeds the question without its unknown word; both vectors
    # come from the recent ones when the question comes back.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, max_unknown_shift=1.5,
                           min_coverage=0.0, check_names=False)
    question = "How do I enable the fast path with quuxification?"
    first = retriever.unknown_shift(question)
    embedded: list[str] = []
    real = fake_embedder.embed
    monkeypatch.setattr(fake_embedder, "embed", lambda texts: embedded.extend(texts) or real(texts))
    assert retriever.unknown_shift(question) == first and 0.0 < first < 1.0
    assert embedded == []


def test_a_search_embeds_the_question_and_its_text_without_unknown_words_in_one_run(
    tmp_path, data_settings, fake_embedder, monkeypatch
):
    # The meaning-shift checks compare the question's vector with its vector without the
    # names and the words the corpus never uses: all are embedded in the search's one
    # model run, not one run each.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, max_unknown_shift=1.5,
                           min_coverage=0.0, check_names=True)
    runs: list[list[str]] = []
    real = fake_embedder.embed_spans
    monkeypatch.setattr(fake_embedder, "embed_spans",
                        lambda texts, spans: runs.append(list(texts)) or real(texts, spans))
    question = "How do I enable the fast path with quuxification from Zorblatt?"
    retriever.search(question, 3)
    assert len(runs) == 1
    # without the name; without every word the corpus never uses (the name is one)
    assert runs[0] == [question, "How do I enable the fast path with quuxification from ?",
                       "How do I enable the fast path with from ?"]
    shift = retriever.unknown_shift(question)  # from the vectors that run made
    assert len(runs) == 1 and 0.0 < shift < 1.0


def test_an_incidental_unknown_word_does_not_count_against_coverage(
    tmp_path, data_settings, fake_embedder
):
    # "chokes" is a word the docs never use that barely moves the question's vector: it
    # is paraphrase, so coverage is read without it. A word that moves the question more
    # (though not enough to refuse on its own) still counts against coverage.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, max_unknown_shift=0.24,
                           check_names=False, min_coverage=0.9)
    paraphrase = ("The fast path chokes: how do I set ZQX_TURBO_MODE to enable the fast path "
                  "with the flags?")
    assert retriever.unknown_shift(paraphrase) < 0.1
    assert retriever.search(paraphrase, 3)[0].chunk.source_file == "flags.md"
    moved = "Quuxification of ZQX_TURBO_MODE?"
    assert 0.1 < retriever.unknown_shift(moved) < 0.24
    assert retriever.search(moved, 3) == []  # refused: coverage 0.75 with the word
    # The scene is split off before such words go ("noob question: what is an ABI..."):
    # without "quuxy", "cooking:" is too short a scene to split, and its word uncovered.
    strict = _retriever(data_settings, fake_embedder, max_unknown_shift=0.24,
                        check_names=False, min_coverage=0.95)
    question = ("quuxy cooking: how do I set ZQX_TURBO_MODE to enable the fast path, the fast "
                "path with the turbo mode on?")
    assert strict.unknown_shift(question) < 0.1
    hits = strict.search(question, 1)
    assert [h.chunk.source_file for h in hits] == ["flags.md"]
    assert strict.coverage(question.replace("quuxy ", ""), hits) < 0.95


def test_an_unknown_name_in_passing_does_not_refuse_one_the_question_is_about_does(
    tmp_path, data_settings, fake_embedder
):
    # The user's own device named in passing hardly moves the question's vector; a name
    # that is what the question is about moves it, and the docs never naming it refuses.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, check_names=True, min_coverage=0.0)
    in_passing = ("Our old Arduino board reads the flags notes: how do I set ZQX_TURBO_MODE to "
                  "enable the fast path with the flags and the notes on flags?")
    assert retriever.search(in_passing, 3)[0].chunk.source_file == "flags.md"
    assert retriever.search("How do I set ZQX_TURBO_MODE on Arduino?", 3) == []
    # A name the question asks whether there is, an option say, is what it is about, however
    # little it moves the vector: the docs never naming it cannot say there is one.
    asked = ("How do I set ZQX_TURBO_MODE to enable the fast path with the flags and the notes "
             "on flags? Is there an arduino_board option?")
    assert retriever.unknown_names(asked) == ["arduino_board"]
    assert retriever.search(asked, 3) == []
    assert retriever.search(asked.replace("arduino_board", "ZQX_TURBO_MODE"), 3)


def test_an_unknown_name_in_a_yes_no_question_refuses_however_little_it_moves_it(
    tmp_path, data_settings, fake_embedder
):
    # A how-to naming the user's board barely moves with it, and is answered; a yes/no
    # question naming it asks whether the docs' thing works there, which docs that never
    # name the board cannot say ("Does FastAPI answer a request carrying If-None-Match with a
    # 304?"). The dots of "i.e." end no question.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, check_names=True, min_coverage=0.0)
    long = "the fast path with the flags and the notes on flags and the flags of the notes"
    how_to = f"How do I set ZQX_TURBO_MODE to enable {long} on an Arduino board?"
    assert retriever.unknown_names(how_to) == ["Arduino"]
    assert retriever.search(how_to, 3)[0].chunk.source_file == "flags.md"
    yes_no = f"Does ZQX_TURBO_MODE enable {long}, i.e. run on an Arduino board?"
    assert retriever.unknown_names(yes_no) == ["Arduino"]
    assert retriever.search(yes_no, 3) == []
    assert retriever.search(yes_no.replace("Arduino", "notes"), 3)


def test_a_long_scene_before_the_question_does_not_dilute_its_coverage(
    tmp_path, data_settings, fake_embedder
):
    # The scene's words are in no passage; the question after it is covered whole.
    ingest_path(_corpus(tmp_path), data_settings, embedder=fake_embedder, progress=False)
    retriever = _retriever(data_settings, fake_embedder, check_names=False, min_coverage=0.5)
    question = "How do I set ZQX_TURBO_MODE to enable the fast path?"
    scene = ("Our compliance reviewers insist that every deployment justifies each toggle, "
             "quarterly, in writing, before approvals. ")
    assert retriever.coverage(scene + question, retriever.search(question, 3)) < 0.5
    assert retriever.search(scene + question, 3)[0].chunk.source_file == "flags.md"
    # a question whose own words are not covered is still refused
    assert retriever.search(
        scene + "Does ZQX_TURBO_MODE pass quarterly compliance audits by reviewers?", 3) == []


def _two_section_pages(tmp_path, rivals: int):
    pad = " ".join(f"word{i}" for i in range(60))  # sections big enough to stay chunks
    files = {f"{t}-{i}.md": f"# {t.title()} {i}\n\nNotes about {t} number {i}.\n"
             for t in TOPICS for i in range(3)}
    files["wsgi.md"] = (
        f"# Including WSGI\n\n## Check it\n\nRequests under the path go to the Flask app. {pad}\n\n"
        f"## Using the middleware\n\nWrap the Flask app in WSGIMiddleware and mount it. {pad}\n")
    files["routers.md"] = (
        f"# Routers\n\n## Mount\n\nMount a Flask app under a path with WSGIMiddleware: mount the "
        f"Flask app. {pad}\n\n## Flask\n\nFlask blueprints and a path: mount a Flask app. {pad}\n")
    for n in range(rivals):  # other pages that outrank a page's second chunk
        files[f"flask-{n}.md"] = f"# Flask {n}\n\nA Flask app mounted under a path. {pad}\n"
    return write_docs(tmp_path / "docs", files)


@pytest.mark.parametrize(("rivals", "either_top"), [(0, 0), (4, 0), (4, 3)])
def test_a_pages_second_chunk_joins_when_it_ranks_among_the_first_2k(
    tmp_path, data_settings, fake_embedder, monkeypatch, rivals, either_top
):
    # One chunk a page in the top k; a second one of a page other than the best (whose
    # further chunks `expand` adds) comes after them when it ranks among the first 2 k of
    # the fused ranking, or among the first `_EITHER_TOP` of either search ("Check it" is
    # the third by keywords: its page's title names WSGI).
    monkeypatch.setattr(retriever_module, "_EITHER_TOP", either_top)
    ingest_path(_two_section_pages(tmp_path, rivals), data_settings, embedder=fake_embedder,
                progress=False)
    retriever = _retriever(data_settings, fake_embedder, expand=0)
    query = "How do I mount a Flask app under a path with WSGIMiddleware?"
    found = [(h.chunk.source_file, h.chunk.section_title.split(" > ")[-1])
             for h in retriever.search(query, 2)]
    top = [("routers.md", "Mount"), ("wsgi.md", "Using the middleware")]
    joins = rivals == 0 or either_top == 3
    assert found == (top + [("wsgi.md", "Check it")] if joins else top)
    assert [h.chunk.source_file for h in retriever.search(query, 1)] == ["routers.md"]


def test_coverage_reads_every_passage_an_answer_may_quote(tmp_path, data_settings, fake_embedder):
    # The best page's further section (which `expand` adds) holds the question's rarest word:
    # the question is covered, though the top k alone would not cover it.
    pad = " ".join(f"word{i}" for i in range(60))
    files = {f"{t}-{i}.md": f"# {t.title()} {i}\n\nNotes about {t} number {i}.\n"
             for t in TOPICS for i in range(3)}
    files["flags.md"] = (
        f"# Flags\n\n## Turbo\n\nSet ZQX_TURBO_MODE to enable the fast path. {pad}\n\n"
        f"## Limits\n\nThe fast path throttles quuxwidgets. {pad}\n")
    ingest_path(write_docs(tmp_path / "docs", files), data_settings, embedder=fake_embedder,
                progress=False)
    question = "How do I set ZQX_TURBO_MODE for the fast path of quuxwidgets?"
    strict = _retriever(data_settings, fake_embedder, check_names=False, min_coverage=0.9,
                        check_values=False)
    found = strict.search(question, 1)
    assert [h.chunk.section_title.split(" > ")[-1] for h in found] == ["Turbo", "Limits"]
    assert strict.coverage(question, found[:1]) < 0.9
    # without the further section the same question is refused
    assert _retriever(data_settings, fake_embedder, check_names=False, min_coverage=0.9,
                      check_values=False, expand=0).search(question, 1) == []


def test_one_more_chunk_of_the_best_page_joins_when_it_ranks_high(
    tmp_path, data_settings, fake_embedder
):
    # Past the `expand` further chunks of the best page, one more comes when it ranks among
    # the first 2 k of the fused ranking: third of all here, so for k = 2, not for k = 1.
    pad = " ".join(f"word{i}" for i in range(60))
    files = {f"{t}-{i}.md": f"# {t.title()} {i}\n\nNotes about {t} number {i}.\n"
             for t in TOPICS for i in range(3)}
    files["gasless.md"] = "# Gasless mint\n\n" + "".join(
        f"## {name}\n\nA gasless mint with a sponsored smart wallet: {name.lower()}. {pad}\n\n"
        for name in ("Overview", "Layout")) + f"## Constants\n\nThe flag lives here. {pad}\n"
    ingest_path(write_docs(tmp_path / "docs", files), data_settings, embedder=fake_embedder,
                progress=False)
    retriever = _retriever(data_settings, fake_embedder, expand=1, check_values=False)
    question = "How do I make a gasless mint with a sponsored smart wallet?"

    def sections(k: int) -> list[str]:
        return sorted(h.chunk.section_title.split(" > ")[-1]
                      for h in retriever.search(question, k) if h.chunk.source_file == "gasless.md")

    assert sections(2) == ["Constants", "Layout", "Overview"]
    assert sections(1) == ["Layout", "Overview"]


def _pinned_team_corpus(tmp_path):
    files = {
        f"pins-{name}.md": f"# Pins {name}\n\nA team on an old pin sees Depends blow up when "
        f"the pin is old, as {name} notes.\n"
        for name in ("ada", "bo", "cy", "di", "ed", "flo")
    }
    files["annotated.md"] = ("# Annotated\n\nSupport for Annotated started in version 0.95.0 "
                             "of the framework.\n")
    return write_docs(tmp_path / "docs", files)


def test_a_scene_pulling_the_search_away_from_the_value_asked_is_searched_without(
    tmp_path, data_settings, fake_embedder
):
    # The scene's words rank its pages first, and they give no version; the asking
    # sentence alone finds the page that does, before the question counts as uncovered.
    ingest_path(_pinned_team_corpus(tmp_path), data_settings, embedder=fake_embedder,
                progress=False)
    # coverage off: the whole question's passages fail only the value check
    retriever = _retriever(data_settings, fake_embedder, check_names=False, expand=0,
                           min_coverage=0.0)
    scene = "Our team is on an old pin and Depends blows up on the old pin. "
    hits = retriever.search(scene + "Starting with which version is Annotated supported?", 1)
    assert [h.chunk.source_file for h in hits][:1] == ["annotated.md"]
    # an asking part too short to stand alone leans on the scene: still refused
    assert retriever.search(scene + "Since which version?", 1) == []


def _example_page(tmp_path, fenced: bool):
    files = {
        f"{topic}-{i}.md": f"# {topic.title()} {i}\n\nNotes about {topic} number {i}.\n"
        for topic in TOPICS for i in range(3)
    }
    # An example page: one block of code too long for a chunk, then a line linking to it
    # live, which a chunk of its own holds.
    lines = [f"  let v{j} = step(v{j - 1}, {j});" for j in range(1, 400)]
    code = ("```js\n" + "\n".join(lines) + "\n```" if fenced
            else "\n".join("    " + line for line in lines))
    files["dice.md"] = (f"# Dice\n\n{code}\n\n"
                        "Interactive live page -> <https://dice.example/roll>\n")
    return write_docs(tmp_path / "docs", files)


@pytest.mark.parametrize("fenced", [True, False])
def test_the_block_a_found_line_follows_joins_it(tmp_path, data_settings, fenced):
    embedder = FakeEmbedder()
    ingest_path(_example_page(tmp_path, fenced), data_settings, embedder=embedder,
                progress=False)
    hits = _retriever(data_settings, embedder).search("interactive live page", 3)
    texts = [h.chunk.text for h in hits if h.chunk.source_file == "dice.md"]
    assert texts[0].startswith("Interactive live page")
    # the code it is about comes along, though neither search ranks it
    assert any("let v399" in t for t in texts[1:])
