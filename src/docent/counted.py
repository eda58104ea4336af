"""Counts as people write them in a summary: "1 file", "2 files"."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, the noun with an "s" unless n is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
