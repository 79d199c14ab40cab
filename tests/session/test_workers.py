"""``serial_worker``: one thread per name, jobs run in the order given."""

from __future__ import annotations

import threading

from desktop_app.session.workers import serial_worker


def test_one_thread_per_name_running_jobs_in_order() -> None:
    worker = serial_worker("test-order")
    assert serial_worker("test-order") is worker and serial_worker("test-other") is not worker
    seen: list[tuple[int, str]] = []
    futures = [worker.submit(lambda i=i: seen.append((i, threading.current_thread().name))) for i in range(20)]
    for future in futures:
        future.result()
    assert [i for i, _ in seen] == list(range(20))
    assert len({name for _, name in seen}) == 1 and seen[0][1].startswith("arbor-test-order")
