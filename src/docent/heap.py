"""What Python's cycle collector scans in a server: not the objects its start-up made.

A server starts by loading the keyword index, the passages' units and their terms, and
imports that make a few hundred thousand objects. Every full collection of the cycle
collector scanned all of them: under ten clients one ran every 7 s or so and stopped the
server for 140-170 ms, and the ~10 answers in flight each took that much longer (the 20
slowest of 1,460 answers in 15 s, p99 222-250 ms against a p50 of 90-105). Frozen after
warm-up, those objects are never scanned again: a full collection takes ~3 ms and p99 is
153 ms (bench/README.md).

Frozen objects that later become cyclic garbage are not freed until they are thawed; a
whole runtime dropped leaves 142 such objects, so a server thaws them only as it stops.
Nothing is collected first: a full collection right after warm-up found nothing to free
and took 150 ms (the collections during start-up had freed what it left).
"""

from __future__ import annotations

import gc


def freeze_start_up_objects() -> None:
    """Keep every object alive now out of the cycle collector's scans."""
    gc.freeze()


def thaw() -> None:
    """Let collections scan the frozen objects again (when the server stops)."""
    gc.unfreeze()
