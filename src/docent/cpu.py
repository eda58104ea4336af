"""Thread counts docent sets for the native libraries it runs, chosen by measurement."""

from __future__ import annotations

from threadpoolctl import threadpool_limits


def single_threaded_blas() -> None:
    """NumPy's BLAS (OpenBLAS) on one thread in this process, from now on.

    Every product docent computes is small: a question against at most 4,096 stored vectors,
    a passage's unit vectors. A second BLAS thread saves ~0.1 ms on such a product and then
    busy-waits for the next one: under ten clients that thread burned 13 of the 29 ms of CPU
    a server spent an answer, a core that answers could have used (bench/README.md).
    """
    threadpool_limits(1, user_api="blas")
