"""Failure categories in the logs (docs/deployment.md): what an operator filters on."""

from __future__ import annotations

import sqlite3

import httpx

from docent.failures import classify


def _caused_by(cause: BaseException) -> ValueError:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise ValueError("Could not connect to a Chroma server") from inner
    except ValueError as outer:
        return outer


def test_connection_failures_are_network_even_when_wrapped():
    assert classify(httpx.ConnectError("refused")).category == "network"
    assert classify(ConnectionRefusedError(), "database").category == "network"
    assert classify(_caused_by(httpx.ConnectError("refused")), "database").category == "network"


def test_store_errors_are_database_and_the_rest_falls_to_the_caller():
    assert classify(sqlite3.OperationalError("locked")).category == "database"
    assert classify(ValueError("bad"), "database").category == "database"
    assert classify(ValueError("bad")).category == "unknown"
