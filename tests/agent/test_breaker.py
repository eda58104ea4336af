"""CONTRACT.md §5, Models and fallback: the circuit breaker's states, on a fake clock."""

from __future__ import annotations

import pytest

from docent.agent.breaker import CircuitBreaker, CircuitOpenError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_failure_opens_the_circuit_for_the_cool_down_then_a_probe_is_allowed():
    clock = Clock()
    breaker = CircuitBreaker(failures=1, cooldown=60, clock=clock)
    breaker.check("gemini")  # closed: no error
    error = TimeoutError("hung")
    assert breaker.failed("gemini", error) is True
    with pytest.raises(CircuitOpenError) as skipped:
        breaker.check("gemini")
    assert skipped.value.last_error is error and "60 s" in str(skipped.value)
    breaker.check("openai")  # circuits are per provider
    clock.now += 60.5
    breaker.check("gemini")  # the cool-down is over: the next call is a probe
    assert breaker.failed("gemini", error) is True  # the probe failed: open again
    with pytest.raises(CircuitOpenError):
        breaker.check("gemini")


def test_a_success_closes_the_circuit_and_resets_the_count():
    clock = Clock()
    breaker = CircuitBreaker(failures=2, cooldown=30, clock=clock)
    assert breaker.failed("p", ValueError()) is False  # one of two
    breaker.succeeded("p")
    assert breaker.failed("p", ValueError()) is False  # counting starts again
    assert breaker.failed("p", ValueError()) is True
    clock.now += 31
    breaker.succeeded("p")
    breaker.check("p")


def test_no_cool_down_never_opens():
    breaker = CircuitBreaker(failures=1, cooldown=0)
    assert breaker.failed("p", ValueError()) is False
    breaker.check("p")
