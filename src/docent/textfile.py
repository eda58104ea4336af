"""Text files a person hands docent: a question set to evaluate, the gap log; and how a
file that is not UTF-8 is named (doc files, `.env`)."""

from __future__ import annotations

from pathlib import Path


def read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, a byte-order mark (as Windows editors write one)
    left out. ValueError naming the file when it is a folder or not UTF-8 text."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder, not a file") from None
    try:
        return data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is {not_utf8(exc)}") from None


def not_utf8(exc: UnicodeDecodeError) -> str:
    """How docent says a file is not UTF-8: "not UTF-8 text (invalid byte at offset 5)"."""
    return f"not UTF-8 text (invalid byte at offset {exc.start})"
