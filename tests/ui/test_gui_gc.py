"""Cyclic garbage is collected on the GUI thread only (issue 23 item 6): automatic collection is off
once the app's loop or a test window is up, a timer on the GUI thread collects what is due, and a
long stream of allocations never pays a full collection more often than the collector allows."""

from __future__ import annotations

import gc
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from desktop_app.ui.event_loop import qt_event_loop
from desktop_app.ui.gui_gc import (
    CHECK_INTERVAL_MS,
    FULL_COLLECTION_MIN_INTERVAL_S,
    GuiGarbageCollector,
    due_generation,
    install_gui_gc,
)
from desktop_app.ui.testing import open_window
from tests.ui.conformance_cases import FIXTURES

THRESHOLDS = (700, 10, 10)


@pytest.fixture
def app() -> QApplication:
    existing = QApplication.instance()
    return existing if isinstance(existing, QApplication) else QApplication([])


@pytest.fixture
def gc_enabled() -> Iterator[None]:
    """Automatic collection on, as in a fresh interpreter (the UI conftest turns it off per test)."""
    gc.enable()
    yield
    gc.disable()


def test_due_generation_is_cpythons_choice_with_full_collections_spaced() -> None:
    far = FULL_COLLECTION_MIN_INTERVAL_S
    assert due_generation((700, 50, 50), THRESHOLDS, far) is None  # the young generation is not due
    assert due_generation((701, 10, 50), THRESHOLDS, far) == 0
    assert due_generation((701, 11, 10), THRESHOLDS, far) == 1
    assert due_generation((701, 11, 11), THRESHOLDS, far) == 2
    assert due_generation((701, 11, 11), THRESHOLDS, far - 0.1) == 1  # a full one only so often
    assert due_generation((10_000, 0, 0), (0, 10, 10), far) is None  # gc.set_threshold(0): never


def test_a_long_stream_of_allocations_runs_young_collections_and_rare_full_ones() -> None:
    """Ten minutes of a reply streaming (the young generation due at every check): the collector
    follows the counts as CPython keeps them and never runs two full collections closer than
    the minimum interval, nor young ones less often than they are due."""
    counts = [0, 0, 0]
    now, last_full = 0.0, 0.0
    fulls: list[float] = []
    chosen = {0: 0, 1: 0, 2: 0}
    for _ in range(int(600 / (CHECK_INTERVAL_MS / 1000))):
        now += CHECK_INTERVAL_MS / 1000
        counts[0] += 5000  # far more than the threshold between two checks
        generation = due_generation((counts[0], counts[1], counts[2]), THRESHOLDS, now - last_full)
        assert generation is not None
        chosen[generation] += 1
        if generation + 1 < 3:  # what gc.collect(generation) does to the counts
            counts[generation + 1] += 1
        for younger in range(generation + 1):
            counts[younger] = 0
        if generation == 2:
            fulls.append(now)
            last_full = now
    assert chosen[0] > chosen[1] > chosen[2] > 0
    assert all(b - a >= FULL_COLLECTION_MIN_INTERVAL_S for a, b in zip(fulls, fulls[1:], strict=False))
    assert len(fulls) <= 600 / FULL_COLLECTION_MIN_INTERVAL_S


def test_the_collector_runs_the_due_generation_and_spaces_full_ones(app: QApplication) -> None:
    """The collector itself, on counts and a clock of the test's: what it collects, and a full
    collection only once the minimum interval has passed since the last."""
    counts = (0, 0, 0)
    now = [100.0]
    collected: list[int] = []
    collector = GuiGarbageCollector(
        app, 10_000, 30.0, counts=lambda: counts, collect=collected.append, clock=lambda: now[0]
    )
    collector.thresholds = THRESHOLDS
    try:
        assert collector.collect_if_due() is None and collected == []
        counts = (701, 0, 0)
        assert collector.collect_if_due() == 0
        counts = (701, 11, 11)
        now[0] += 29.0
        assert collector.collect_if_due() == 1  # a full one is due by the counts, not yet by time
        now[0] += 1.0
        assert collector.collect_if_due() == 2 and collector.last_full == now[0]
        now[0] += 5.0
        assert collector.collect_if_due() == 1
        assert collected == [0, 1, 2, 1] and collector.collections == [1, 2, 1]
    finally:
        collector.stop()
        collector.deleteLater()
        gc.disable()


@pytest.mark.usefixtures("gc_enabled")
def test_the_apps_event_loop_switches_automatic_collection_off(app: QApplication) -> None:
    loop = qt_event_loop(app)
    try:
        assert not gc.isenabled()
        collector = install_gui_gc(app)
        assert collector.active and collector.parent() is app
        assert install_gui_gc(app) is collector  # one per application
    finally:
        loop.close()


@pytest.mark.usefixtures("gc_enabled")
def test_open_window_switches_automatic_collection_off(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(FIXTURES / "gen-0004.jsonl", path)
    window = open_window(path, size=(800, 600))
    try:
        assert not gc.isenabled()
    finally:
        window.close()


def test_the_collector_switches_automatic_collection_back_off(app: QApplication) -> None:
    collector = install_gui_gc(app)
    gc.enable()
    collector.collect_if_due()
    assert not gc.isenabled()


class _Cycle:
    """Half of a reference cycle that records which thread finalized it."""

    finalized_on: list[int] = []

    def __init__(self) -> None:
        self.other: object = [self]

    def __del__(self) -> None:
        _Cycle.finalized_on.append(threading.get_ident())


def test_a_cycle_made_on_a_worker_thread_is_collected_on_the_gui_thread(app: QApplication) -> None:
    """The worker makes a garbage cycle, then allocates far past the young generation's threshold:
    with automatic collection on, the worker itself would collect the cycle (and, in the app, any
    Qt object caught in one). The GUI thread's timer collects it instead."""
    collector = install_gui_gc(app)
    _Cycle.finalized_on.clear()
    kept: list[object] = []

    def work() -> None:
        _Cycle()
        kept.extend([] for _ in range(20 * gc.get_threshold()[0]))

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert _Cycle.finalized_on == []  # nobody collected on the worker
    deadline = time.monotonic() + 5 + 3 * CHECK_INTERVAL_MS / 1000
    while not _Cycle.finalized_on and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert _Cycle.finalized_on == [threading.get_ident()] == [collector.thread_id]
    assert sum(collector.collections) >= 1


def test_stop_gives_the_interpreter_its_collection_back(app: QApplication) -> None:
    gc.enable()
    collector = GuiGarbageCollector(app)
    try:
        assert not gc.isenabled() and collector.active
    finally:
        collector.stop()
        collector.deleteLater()
    assert gc.isenabled() and not collector.active
    gc.disable()
