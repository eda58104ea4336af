"""Progress counted in chunks, with a rate and the time left; log lines when not a terminal."""

from __future__ import annotations

import io

from docent.ingest import ingest_path
from docent.ingestion.progress import ChunkProgress, duration
from tests.retrieval.conftest import write_docs


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_show_count_rate_and_time_left_every_interval():
    out, clock = io.StringIO(), Clock()
    bar = ChunkProgress(1000, stream=out, tty=False, interval=10, clock=clock)
    clock.now += 4
    bar.update(40)  # under the interval: no line yet
    clock.now += 6
    bar.update(60)
    clock.now += 10
    bar.update(100)
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines == [
        "ingest: 1000 chunks to embed",
        "ingest: 100/1000 chunks embedded (10%), 10.0 chunks/s, about 1 min 30 s left",
        "ingest: 200/1000 chunks embedded (20%), 10.0 chunks/s, about 1 min 20 s left",
        "ingest: 200/1000 chunks embedded (20%), 10.0 chunks/s, about 1 min 20 s left in 20 s",
    ]


def test_durations_read_naturally():
    assert [duration(s) for s in (0.2, 42, 185, 3725)] == ["0 s", "42 s", "3 min 05 s", "1 h 02 min"]


def test_ingestion_writes_progress_lines_when_stderr_is_not_a_terminal(
    tmp_path, data_settings, fake_embedder, capsys
):
    root = write_docs(tmp_path / "docs", {f"p{n}.md": f"# P{n}\n\nText {n}.\n" for n in range(3)})
    ingest_path(root, data_settings, embedder=fake_embedder, progress=True)
    err = capsys.readouterr().err
    assert "ingest: reading 3 files" in err
    assert "ingest: 3 chunks to embed" in err
    assert "ingest: 3/3 chunks embedded (100%)" in err and "chunks/s" in err
    (root / "p1.md").unlink()
    (root / "p2.md").unlink()
    (root / "p0.md").write_text("# P0\n\nText changed.\n")
    ingest_path(root, data_settings, embedder=fake_embedder, progress=True)
    err = capsys.readouterr().err
    assert "ingest: reading 1 file\n" in err and "ingest: 1 chunk to embed\n" in err


def test_quiet_ingestion_prints_nothing(tmp_path, data_settings, fake_embedder, capsys):
    root = write_docs(tmp_path / "docs", {"a.md": "# A\n\nText.\n"})
    ingest_path(root, data_settings, embedder=fake_embedder, progress=False)
    assert capsys.readouterr().err == ""
