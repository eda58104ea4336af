"""CONTRACT.md §5, rate limits: sliding windows that forget idle clients as they go."""

from __future__ import annotations

from docent.api.ratelimit import SlidingWindow


def test_a_key_is_limited_within_its_window_and_free_after_it():
    now = [0.0]
    window = SlidingWindow(2, 60.0, clock=lambda: now[0])
    window.record("a")
    window.record("a")
    assert window.retry_after("a") == 60.0
    now[0] += 30
    assert window.retry_after("a") == 30.0
    now[0] += 30
    assert window.retry_after("a") == 0.0


def test_keys_idle_for_a_whole_window_are_forgotten_as_new_events_arrive():
    """Memory follows the clients active in one window, not every client ever seen."""
    now = [0.0]
    window = SlidingWindow(5, 60.0, clock=lambda: now[0])
    for i in range(500):
        window.record(f"203.0.113.{i}")
    now[0] += 30
    window.record("198.51.100.1")
    assert len(window) == 501  # all still within the window
    now[0] += 31
    window.record("198.51.100.2")
    assert len(window) == 2  # the 500 went idle a window ago
