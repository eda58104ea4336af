"""CONTRACT.md §5, answer format: retrieval bookkeeping never reaches the answer text."""

from __future__ import annotations

import pytest

from docent.agent.sanitize import strip_internal_metadata


@pytest.mark.parametrize(
    "leaky, clean",
    [
        ("Set it to 3 [1]. Chunk ID: 42", "Set it to 3 [1]."),
        ("Set it to 3 [1] [Retrieved from: configuration.md].", "Set it to 3 [1]."),
        ("Set it to 3 [1] (Retrieved from: configuration.md).", "Set it to 3 [1]."),
        ("Based on chunk 12, set it to 3 [1].", "Set it to 3 [1]."),
        ("According to document configuration.md, set it to 3 [1].", "Set it to 3 [1]."),
        ("The limit, according to chunk 3f1c2a9b, is 3 [1].", "The limit is 3 [1]."),
        ("Set it to 3 [1]. Source: chunk 12", "Set it to 3 [1]."),
        ("Set it [1] (Source: chunk 7).", "Set it [1]."),
        ("Set it [1] (chunk_id: 3f1c2a9b).", "Set it [1]."),
        ("Set it [1] (3f1c2a9b3f1c2a9b3f1c2a9b3f1c2a9b).", "Set it [1]."),
        ("- Based on chunk 4, it is 3 [1].\n- Per document a.md, it is 6 [2].",
         "- It is 3 [1].\n- It is 6 [2]."),
    ],
)
def test_bookkeeping_is_removed_and_the_sentence_still_reads(leaky, clean):
    assert strip_internal_metadata(leaky) == clean


@pytest.mark.parametrize(
    "text",
    [
        "Checksum: `0123456789abcdef0123456789abcdef` [1].",
        "Set `chunk_id: 5` and `score: 0.5` in the file [1].",
        "The release digest is d41d8cd98f00b204e9800998ecf8427e [1].",
        "Sort the list according to document order [1].",
        "According to the documentation, the default is 3 [1].",
        # a list item opening with an ellipsis stays a list item
        "- ...as `description` is optional, this would also be valid [1]",
        "1. ...and then run it [1]",
        # a name or number that a dot opens keeps the space before it
        "Create a .env file and add it to your .gitignore file [1].",
        "The fee is .5 STT [1].",
    ],
)
def test_what_only_looks_like_bookkeeping_is_kept(text):
    assert strip_internal_metadata(text) == text
