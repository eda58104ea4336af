"""Structured logging: one JSON object a line, with whatever `extra` a record carries."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        body = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        body.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info and "stack" not in body:
            body["stack"] = self.formatException(record.exc_info)
        return json.dumps(body, default=str)


def configure_logging(level: str) -> None:
    """Send every record to stderr as a JSON line (called by `docent serve`)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
