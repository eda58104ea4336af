"""`docent ask` output: the streamed answer, the final one only when its words differ."""

from __future__ import annotations

import asyncio
import io

from docent.cli import print_stream


def _printed(streamed: list[str], final: str) -> str:
    async def events():
        for token in streamed:
            yield "on_chat_model_stream", {"content": token}
        yield "on_chain_end", {
            "response": final,
            "sources": [{"n": 1, "source_file": "guide.md", "section_title": "Limits",
                         "title": "Guide", "page_url": None}],
            "exit_reason": "COMPLETED",
        }

    out = io.StringIO()
    asyncio.run(print_stream(events(), out))
    return out.getvalue()


def test_answer_printed_once_when_only_spacing_was_tidied():
    text = _printed(["Set `DOCENT_MAX_TOOL_CALLS` :", " the default is 4 [1]."],
                    "Set `DOCENT_MAX_TOOL_CALLS`: the default is 4 [1].")
    assert text.count("default is 4") == 1
    assert "---" not in text
    assert "[1] guide.md — Limits" in text and text.endswith("Exit reason: COMPLETED\n")


def test_final_answer_follows_when_its_words_changed():
    text = _printed(["The limit is set in chunk_0123456789abcdef [1] [7]."],
                    "The limit is set in [1].")
    streamed, _, final = text.partition("\n\n---\n")
    assert "chunk_0123456789abcdef" in streamed
    assert final.startswith("The limit is set in [1].")


def test_answer_that_never_streamed_is_printed():
    text = _printed([], "I don't have enough information.")
    assert text.startswith("I don't have enough information.") and "---" not in text


def test_output_cut_short_by_the_reader_is_no_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "DOCENT_DATA_DIR": str(tmp_path)}
    out = subprocess.run(f'"{sys.executable}" -m docent.cli config | head -1', shell=True,
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
