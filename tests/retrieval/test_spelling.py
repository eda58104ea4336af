"""Typing slips in a question are read as the words the docs use (docent.retrieval.spelling)."""

from __future__ import annotations

import pytest

from docent.retrieval.bm25 import KeywordIndex
from docent.retrieval.spelling import is_english, respelled
from tests.fakes import chunk


def _index(*texts: str, source_file: str | None = None) -> KeywordIndex:
    return KeywordIndex([chunk(i, t, source_file=source_file or f"p{i}.md")
                         for i, t in enumerate(texts)])


DOCS = _index(
    "Declare a query parameter with a default. The server listens on a port.",
    "Each parameter is validated. Set the port with --port.",
    "Sessions should be kept in Redis when replicas share them.",
    "Run the report nightly; it frobnicates.",
    "Fill the carts, deal the cards.",
    "It will frobnicate; it frobnicates twice.",
    "It deploys; it was deployed.",
    "The timeout is 30 seconds.",
    "Set the time zone. The agent runs.",
)


def fix(text: str, index: KeywordIndex = DOCS) -> str:
    return respelled(text, index)


@pytest.mark.parametrize(("typed", "meant"), [
    ("How long may a query paarmeter be?", "How long may a query parameter be?"),  # swapped
    ("Sohuld I keep sesions in Redis?", "Should I keep sessions in Redis?"),  # capital kept
    ("Is each parmeter validated?", "Is each parameter validated?"),  # a letter left out
    ("Is each parameterr validated?", "Is each parameter validated?"),  # one added
    ("What is the timout? Sesions expire.", "What is the timeout? Sessions expire."),
])
def test_a_slip_one_edit_from_a_word_of_the_docs_is_read_as_that_word(typed, meant):
    assert fix(typed) == meant


def test_a_slip_one_edit_from_two_forms_of_one_word_is_read_as_that_word():
    assert fix("Was it deployd?") in ("Was it deployed?", "Was it deploys?")


@pytest.mark.parametrize("text", [
    "Can I ingest from Confluence?",  # no word of the docs one edit away
    "Where does the folder go?",  # an English word the docs do not use
    "Is there a resort?",  # English, though one edit from "report"
    "Are parameters validated?",  # a form of a word the docs use
    "Was it frobnicated?",  # a form of theirs too, though one edit from "frobnicates"
    "What does `paarmeter` do?",  # code as typed
    "Is the paarmeter_name set?",  # part of an identifier
    "Does Paarmeter work here?",  # capitalised inside a sentence: a name
    "How many carxs?",  # "carts" and "cards": one chunk each, a tie
    "How many crts?",  # under five letters: shorthand and names more often than slips
    "How do I wrtie it?",  # "write" is nowhere in the docs
    "Why shouldn't it, and why arent they?",  # contractions, though "should" is in the docs
    "Is the file's mtime kept?",  # "time" is one edit away, but under five letters
])
def test_words_that_are_no_slip_or_have_no_single_reading_stay(text):
    assert fix(text) == text


def test_a_word_only_a_changelog_writes_is_no_reading():
    index = KeywordIndex([chunk(1, "Configure the timeout.", source_file="guide.md"),
                          chunk(2, "Fixed the frobulator.", source_file="release-notes.md")])
    assert fix("Is there a frobulatro?", index) == "Is there a frobulatro?"
    assert fix("Which timoeut?", index) == "Which timeout?"


def test_the_english_word_list_has_whole_words_of_five_letters_or_more():
    assert all(map(is_english, ["whine", "lumps", "expiry", "accented", "folder"]))
    assert not any(map(is_english, ["paarmeter", "sohuld", "hine", "whin", "ine\nwhi"]))


def test_the_word_list_read_in_blocks_is_the_whole_list():
    import gzip
    import re
    from importlib.resources import files

    from docent.retrieval.spelling import _english

    raw = gzip.decompress((files("spellchecker") / "resources" / "en.json.gz").read_bytes())
    words = re.findall(rb'"([a-z]{5,})":', raw)
    assert len(words) > 100_000
    assert _english() == b"\n" + b"".join(w + b"\n" for w in words)
