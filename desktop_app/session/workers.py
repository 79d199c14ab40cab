"""Serial worker threads for background work off the event loop's thread (fsyncs, small file writes)."""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

__all__ = ["serial_worker"]


@functools.cache
def serial_worker(name: str) -> ThreadPoolExecutor:
    """The one thread that runs ``name``'s jobs, in the order they were given. Made on first use;
    Python joins it when it exits, so nothing handed to it is lost."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"arbor-{name}")
