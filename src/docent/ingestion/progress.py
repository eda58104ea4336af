"""Ingestion progress counted in chunks embedded, with a rate and the time left.

Embedding is nearly all of an ingestion's time and files differ a thousandfold in size, so
progress counts chunks, not files. On a terminal it is a tqdm bar; otherwise (a log, CI,
`docent ingest ... 2>file`) one line every `interval` seconds, so a long run is never silent.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from docent.counted import counted


def duration(seconds: float) -> str:
    """`seconds` as "1 h 02 min", "3 min 05 s" or "42 s"."""
    seconds = max(int(seconds + 0.5), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


class ChunkProgress:
    """Counts chunks embedded out of `total`; `update` after each batch, `close` at the end."""

    def __init__(
        self, total: int, *, stream: TextIO | None = None, tty: bool | None = None,
        interval: float = 10.0, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._interval = interval
        self._started = clock()
        self._last_line = self._started
        self._bar: Any = None
        if tty if tty is not None else self._stream.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc="embedding", unit="chunk", file=self._stream)
        else:
            self._stream.write(f"ingest: {counted(total, 'chunk')} to embed\n")
            self._stream.flush()

    def update(self, n: int) -> None:
        """`n` more chunks are embedded."""
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = self._clock()
        if now - self._last_line >= self._interval:
            self._last_line = now
            self._stream.write(self.line(now) + "\n")
            self._stream.flush()

    def line(self, now: float | None = None) -> str:
        """The progress as one line: count, share, rate, time left."""
        elapsed = (now if now is not None else self._clock()) - self._started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        share = self.done / self.total if self.total else 1.0
        text = (f"ingest: {self.done}/{self.total} chunks embedded ({share:.0%}), "
                f"{rate:.1f} chunks/s")
        if rate > 0 and self.done < self.total:
            text += f", about {duration((self.total - self.done) / rate)} left"
        return text

    def close(self) -> None:
        """End the bar, or write the last line."""
        if self._bar is not None:
            self._bar.close()
            return
        self._stream.write(self.line() + f" in {duration(self._clock() - self._started)}\n")
        self._stream.flush()
