"""The last ingestion as every server can see it: `docent ingest` publishes it, `/metrics` reads.

`docent ingest` is its own process, so its progress reaches the servers through a place
they share: the Redis of `DOCENT_REDIS_URL` (every replica sees it), else a JSON file in
`DOCENT_DATA_DIR` (a server on the same machine and data directory sees it). Publishing
never fails an ingestion: a status that can't be written is a warning.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent.config import Settings
from docent.metrics import Row

if TYPE_CHECKING:
    from docent.ingest import IngestReport
    from docent.state.client import SharedState

log = logging.getLogger(__name__)

STATUS_FILE = "ingest-status.json"


@dataclass
class IngestStatus:
    """One ingestion: started, and once it ended, how it went."""

    started: float  # Unix time
    finished: float | None = None
    ok: bool | None = None
    seconds: float = 0.0
    chunks_written: int = 0
    total_chunks: int = 0
    files: dict[str, int] = field(default_factory=dict)  # by outcome

    @classmethod
    def ended(cls, started: float, report: IngestReport | None) -> IngestStatus:
        """The status of a run that ended: with its report, or failed without one."""
        now = time.time()
        if report is None:
            return cls(started=started, finished=now, ok=False, seconds=now - started)
        files = {"added": report.added, "updated": report.updated, "removed": report.removed,
                 "unchanged": report.unchanged, "skipped": len(report.skipped)}
        return cls(started=started, finished=now, ok=True, seconds=report.seconds,
                   chunks_written=report.chunks_written, total_chunks=report.total_chunks,
                   files=files)

    def gauges(self) -> list[Row]:
        """The status as Prometheus gauges (name, help, value, labels)."""
        rows: list[Row] = [
            ("docent_ingest_running", "1 while an ingestion has started and not ended.",
             float(self.finished is None), {}),
            ("docent_ingest_last_started_timestamp_seconds",
             "When the last ingestion started (Unix time).", self.started, {}),
        ]
        if self.finished is None:
            return rows
        rows += [
            ("docent_ingest_last_finished_timestamp_seconds",
             "When the last ingestion ended (Unix time).", self.finished, {}),
            ("docent_ingest_last_success", "1 if the last ingestion completed, else 0.",
             float(bool(self.ok)), {}),
            ("docent_ingest_last_duration_seconds", "How long the last ingestion took.",
             self.seconds, {}),
            ("docent_ingest_last_chunks_written", "Chunks the last ingestion embedded and wrote.",
             float(self.chunks_written), {}),
        ]
        rows += [("docent_ingest_last_files", "Files of the last ingestion, by outcome.",
                  float(n), {"outcome": outcome}) for outcome, n in self.files.items()]
        return rows


def publish(settings: Settings, status: IngestStatus,
            shared: SharedState | None = None) -> None:
    """Make `status` the last ingestion's, where the servers look for it."""
    data = json.dumps(asdict(status))
    try:
        if shared is not None:
            shared.health.call("ingest.publish", lambda: shared.sync.set(_key(shared), data))
        else:
            path = settings.data_dir / STATUS_FILE
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(data)
            tmp.replace(path)  # readers never see half a file
    except Exception as exc:  # noqa: BLE001 - the ingestion itself must not fail for this
        log.warning("ingestion status not published", extra={"error_type": type(exc).__name__,
                                                            "detail": str(exc)[:300]})


def read(settings: Settings, shared: SharedState | None = None) -> IngestStatus | None:
    """The last ingestion's status, or None when none was published (or it can't be read)."""
    try:
        if shared is not None:
            raw: Any = shared.health.call("ingest.read", lambda: shared.sync.get(_key(shared)))
        else:
            path: Path = settings.data_dir / STATUS_FILE
            raw = path.read_text() if path.is_file() else None
        return None if raw is None else IngestStatus(**json.loads(raw))
    except Exception:  # noqa: BLE001 - no status is better than a failed scrape
        return None


def _key(shared: SharedState) -> str:
    return shared.key("ingest", "last")
