"""A server keeps its start-up objects out of the cycle collector's scans (docent/heap.py)."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from docent.api.app import create_app
from docent.runtime import build_runtime


def test_a_server_freezes_what_start_up_made_and_thaws_it_as_it_stops(settings):
    gc.unfreeze()
    with TestClient(create_app(settings, build_runtime)) as client:
        assert client.get("/health").status_code == 200
        # Full collections skip these: under load one had stopped the server for ~160 ms.
        assert gc.get_freeze_count() > 10_000
    assert gc.get_freeze_count() == 0  # cyclic garbage among them can be freed again
