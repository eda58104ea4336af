"""Thread counts docent sets for native libraries (docent/cpu.py, bench/README.md)."""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits

from docent.runtime import build_runtime


def _blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


def test_a_runtime_runs_numpys_blas_on_one_thread(settings):
    """A spare BLAS thread busy-waits between the small products answers make."""
    with threadpool_limits(2, user_api="blas"):  # the process's own count comes back after
        assert _blas_threads() == {2}
        build_runtime(settings).close()
        assert _blas_threads() == {1}
