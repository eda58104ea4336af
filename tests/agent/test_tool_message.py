"""The tool message a model reads: numbered passages, without lines that are only images."""

from __future__ import annotations

from docent.agent.tools import format_references


def test_a_line_that_is_only_an_image_is_left_out_of_the_passage():
    shot = "![](https://docs.example/~gitbook/image?url=" + "x" * 300 + ")"
    text = f"Copy your secret key.\n\n{shot}\n\nSee ![the logo](logo.png) in the corner."
    message = format_references([{"n": 1, "section_title": "Deploy", "title": "Guide",
                                  "source_file": "guide.md", "text": text}])
    assert message == ("[1] Deploy (guide.md)\nCopy your secret key.\n\n"
                       "See ![the logo](logo.png) in the corner.")
