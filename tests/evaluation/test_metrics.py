"""Scoring conventions of ../shared/eval/README.md, checked on hand-made cases."""

from __future__ import annotations

import pytest

from docent.evaluation import metrics as m
from docent.exit_reasons import REFUSAL

RANKING = ["a.md", "b.md", "a.md", "gold.md", "c.md", "d.md", "e.md", "f.md", "g.md", "h.md",
           "late.md"]


def test_recall_at_k_counts_a_gold_file_among_the_top_k_chunks():
    assert m.recall_at(RANKING, ["gold.md"], 5)
    assert not m.recall_at(RANKING, ["gold.md"], 3)
    assert m.recall_at(RANKING, ["a.md"], 1)
    assert m.recall_at(RANKING, ["nope.md", "b.md"], 2)  # any-of gold
    assert not m.recall_at([], ["a.md"], 5)


def test_reciprocal_rank_is_one_over_the_first_gold_chunk_within_k():
    assert m.reciprocal_rank(RANKING, ["gold.md"]) == pytest.approx(1 / 4)
    assert m.reciprocal_rank(RANKING, ["b.md", "gold.md"]) == pytest.approx(1 / 2)
    assert m.reciprocal_rank(RANKING, ["late.md"], 10) == 0.0  # rank 11 is outside MRR@10
    assert m.reciprocal_rank(RANKING, ["late.md"], 11) == pytest.approx(1 / 11)
    assert m.first_gold_rank(RANKING, ["zzz.md"], 10) == 0


def test_keywords_are_case_insensitive_substrings_with_alternatives():
    answer = "Use `Query(max_length=50)` in the path operation."
    assert m.keyword_hit(answer, ["query", "MAX_LENGTH"])
    assert m.keyword_hit(answer, ["maxlength|max_length"])
    assert m.missing_keywords(answer, ["Query", "min_length|regex", "50"]) == ["min_length|regex"]
    assert m.keyword_hit(answer, [])


def test_citations_are_valid_only_when_every_number_maps_to_a_listed_source():
    sources = [{"n": 1, "source_file": "a.md"}, {"n": 3, "source_file": "gold.md"}]
    assert m.invalid_citations("A [1]. B [3].", sources) == []
    assert m.invalid_citations("A [1]. B [2]. C [2].", sources) == [2]
    assert m.invalid_citations("Code `items[7]` and items[8] are not citations.", sources) == []
    assert m.cites_gold(sources, ["gold.md"]) and not m.cites_gold(sources, ["x.md"])


def test_refusal_is_the_exact_sentence_with_no_sources():
    assert m.is_refusal({"response": REFUSAL, "sources": []})
    assert not m.is_refusal({"response": REFUSAL, "sources": [{"n": 1}]})
    assert not m.is_refusal({"response": REFUSAL + " But here is a guess.", "sources": []})


def test_rates_ignore_not_applicable_values_and_percentiles_use_nearest_rank():
    assert m.rate([True, False, None, True]) == pytest.approx(2 / 3)
    assert m.rate([None]) is None
    assert m.mean([1.0, None, 0.5]) == pytest.approx(0.75)
    values = [float(v) for v in range(1, 101)]
    assert m.percentile(values, 50) == 50.0
    assert m.percentile(values, 95) == 95.0
    assert m.percentile([7.0], 95) == 7.0
    assert m.percentile([], 50) is None
