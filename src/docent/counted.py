"""Counts as people write them in a summary: "1 file", "2 files"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, the noun in the plural (`plural`, else with an "s") unless n is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"
