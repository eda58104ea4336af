"""A circuit breaker per provider: one that failed recently is skipped for a cool-down.

Without it every run pays for a provider that is down (its deadline, its retries) before
the fallback answers. After `failures` failed calls in a row (each already past its own
retries, or a timeout) the circuit opens for `cooldown` seconds: calls skip the provider.
Once the cool-down has passed the next call is a probe: a success closes the circuit, a
failure opens it again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Circuit:
    failures: int = 0  # failed calls in a row
    open_until: float = 0.0  # monotonic time the cool-down ends
    last_error: BaseException | None = None  # what opened it, to say how a skipped run ends


class CircuitOpenError(Exception):
    """A provider was skipped because its circuit is open; `last_error` opened it."""

    def __init__(self, provider: str, remaining: float, last_error: BaseException | None):
        super().__init__(
            f"model {provider} skipped: failed recently, {remaining:.0f} s of cool-down left"
        )
        self.provider = provider
        self.last_error = last_error


class CircuitBreaker:
    """Per-provider circuits, shared by every run of a process (thread-safe)."""

    def __init__(
        self, failures: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._threshold = failures
        self._cooldown = cooldown
        self._clock = clock
        self._circuits: dict[str, _Circuit] = {}
        self._lock = threading.Lock()

    def check(self, provider: str) -> None:
        """Raise CircuitOpenError while `provider`'s circuit is open."""
        with self._lock:
            circuit = self._circuits.get(provider)
            if circuit is None:
                return
            remaining = circuit.open_until - self._clock()
            if remaining > 0:
                raise CircuitOpenError(provider, remaining, circuit.last_error)

    def failed(self, provider: str, error: BaseException) -> bool:
        """Record a failed call; True when this failure opened the circuit."""
        with self._lock:
            circuit = self._circuits.setdefault(provider, _Circuit())
            circuit.failures += 1
            circuit.last_error = error
            if self._cooldown <= 0 or circuit.failures < self._threshold:
                return False
            circuit.open_until = self._clock() + self._cooldown
            return True

    def succeeded(self, provider: str) -> None:
        """A call answered: the circuit closes and the failure count starts again."""
        with self._lock:
            self._circuits.pop(provider, None)
