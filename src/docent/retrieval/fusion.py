"""Reciprocal rank fusion of several rankings."""

from __future__ import annotations

from collections.abc import Sequence


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], *, k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Ids by summed `weight / (k + rank)`, best first; ties keep first-seen order."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)


def boost_by_file(
    scores: Sequence[tuple[str, float]], file_of: dict[str, str], *, weight: float, decay: float
) -> list[tuple[str, float]]:
    """Add `weight` x the decayed sum of the other candidates from the same file.

    A page with several matching chunks is usually the page about the topic, where a
    single mention elsewhere (release notes, an API reference) is not.
    """
    by_file: dict[str, list[float]] = {}
    for item, score in scores:
        by_file.setdefault(file_of[item], []).append(score)
    support = {
        f: sum(s * decay**i for i, s in enumerate(sorted(v, reverse=True)))
        for f, v in by_file.items()
    }
    boosted = [(i, s + weight * (support[file_of[i]] - s)) for i, s in scores]
    return sorted(boosted, key=lambda kv: kv[1], reverse=True)


def diversify(ids: Sequence[str], file_of: dict[str, str], *, k: int, per_file: int) -> list[str]:
    """The first `k` ids with at most `per_file` from one file, then the rest in order."""
    if per_file <= 0:
        return list(ids)
    head: list[str] = []
    tail: list[str] = []
    taken: dict[str, int] = {}
    for item in ids:
        f = file_of[item]
        if len(head) < k and taken.get(f, 0) < per_file:
            head.append(item)
            taken[f] = taken.get(f, 0) + 1
        else:
            tail.append(item)
    return head + tail
