"""Cyclic garbage collection on the GUI thread only.

CPython's cyclic GC runs in whichever thread allocates when a generation's count passes its
threshold. A worker thread (a big session's whole-file parse, a compaction's preparation, the default
executor's I/O) may then finalize Qt objects caught in reference cycles (a widget and a lambda
slot holding it) off the GUI thread, which Qt does not survive: the test suite saw segfaults
"Garbage-collecting" on a build thread, and the app had the same hazard.

So automatic collection is switched off (``gc.disable()``) and a timer on the GUI thread collects
instead, as pyqtgraph's ``GarbageCollector`` does: every :data:`CHECK_INTERVAL_MS` it asks
``gc.get_count()`` whether a collection is due and runs the oldest due generation, as CPython would
(:func:`due_generation`). Young generations are cheap and collected as often as they are due; a
full collection (generation 2) also waits :data:`FULL_COLLECTION_MIN_INTERVAL_S` since the last one,
so a long streamed reply, which allocates all the time, never pays a full collection every few
seconds. What a loaded session holds is frozen (``gc.freeze()`` once the whole graph is in, see
``graph/view.py``), so the full collections that do run walk only what was made since.

Reference counting frees almost everything, on any thread, as before; only cycles wait for the timer.

While a big session's whole file is parsed (on a worker thread) and its whole graph built (a
slice per event-loop turn), collections are *held* (:func:`hold_collections`): each allocates
millions of objects that all survive, and each collection the timer ran meanwhile walked them on
the GUI thread (a 170 ms stall at 100,000 entries, issue 28). Once the session and the graph are
in they are frozen, so the collections after the hold walk none of it.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer

__all__ = [
    "CHECK_INTERVAL_MS",
    "collections_held",
    "hold_collections",
    "release_collections",
    "FULL_COLLECTION_MIN_INTERVAL_S",
    "GuiGarbageCollector",
    "due_generation",
    "install_gui_gc",
]

log = logging.getLogger(__name__)

#: How often the GUI thread asks whether a collection is due (a young collection is ~0.1-1 ms).
CHECK_INTERVAL_MS = 200
#: The least time between two full collections (CPython would also defer most of them, see
#: ``gc.collect`` and "long-lived pending" in its docs; with a frozen session they are cheap anyway).
FULL_COLLECTION_MIN_INTERVAL_S = 30.0


#: Who holds collections off now (:func:`hold_collections`), by ``id``.
_HOLDERS: set[int] = set()


def hold_collections(holder: object) -> None:
    """No collection by the GUI thread's timer until ``holder`` releases it (GUI thread only).
    For a bounded stretch of work that allocates what must survive anyway (module docstring)."""
    _HOLDERS.add(id(holder))


def release_collections(holder: object) -> None:
    """``holder`` no longer holds collections off (nothing if it did not)."""
    _HOLDERS.discard(id(holder))


def collections_held() -> bool:
    return bool(_HOLDERS)


def due_generation(
    counts: tuple[int, int, int],
    thresholds: tuple[int, ...],
    seconds_since_full: float,
    full_min_interval: float = FULL_COLLECTION_MIN_INTERVAL_S,
) -> int | None:
    """The generation to collect now, or ``None``: CPython's choice (the oldest generation whose
    count exceeds its threshold, counted only once the youngest is due), except that a full
    collection waits ``full_min_interval`` seconds since the last one (generation 1 meanwhile)."""
    t0, t1, t2 = (list(thresholds) + [10, 10])[:3]
    c0, c1, c2 = counts
    if t0 <= 0 or c0 <= t0:
        return None
    if c1 <= t1:
        return 0
    if c2 <= t2 or seconds_since_full < full_min_interval:
        return 1
    return 2


class GuiGarbageCollector(QObject):
    """Automatic collection off; a timer on the GUI thread collects what is due (:func:`due_generation`).

    Made on the GUI thread (its timer runs there). :meth:`stop` turns the timer off and gives the
    interpreter its automatic collection back if it had it. ``counts``, ``collect`` and ``clock``
    are the interpreter's (``gc.get_count``, ``gc.collect``, ``time.monotonic``) unless a test
    gives its own.
    """

    def __init__(
        self,
        parent: QObject | None = None,
        interval_ms: int = CHECK_INTERVAL_MS,
        full_min_interval: float = FULL_COLLECTION_MIN_INTERVAL_S,
        *,
        counts: Callable[[], tuple[int, int, int]] = gc.get_count,
        collect: Callable[[int], object] = gc.collect,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.thread_id = threading.get_ident()
        self.full_min_interval = full_min_interval
        self.thresholds = gc.get_threshold()
        self._counts, self._collect, self._clock = counts, collect, clock
        self.last_full = clock()
        self.collections = [0, 0, 0]  # how many of each generation this collector ran
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_if_due)
        self._timer.start()

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def collect_if_due(self) -> int | None:
        """Collect the due generation, if any (the generation collected, else ``None``)."""
        if gc.isenabled():  # someone switched it back on: threads would collect again
            log.debug("automatic garbage collection was re-enabled; switching it off again")
            gc.disable()
        if _HOLDERS:
            return None
        now = self._clock()
        counts = self._counts()
        generation = due_generation(counts, self.thresholds, now - self.last_full, self.full_min_interval)
        if generation is None:
            return None
        self._collect(generation)
        self.collections[generation] += 1
        if generation == 2:
            self.last_full = now
        return generation

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


_installed: GuiGarbageCollector | None = None


def install_gui_gc(app: QCoreApplication | None = None) -> GuiGarbageCollector:
    """The application's collector, made on first call (a child of ``app``; the current
    application by default). Call it on the GUI thread; later calls return the same one."""
    global _installed
    app = app or QCoreApplication.instance()
    if app is None:
        raise RuntimeError("install_gui_gc needs a QApplication")
    collector = _installed
    if collector is not None:
        try:
            if collector.parent() is app and collector.active:
                gc.disable()  # its own state stays as the app needs it even if a caller changed it
                return collector
        except RuntimeError:  # its C++ side went with a previous application
            pass
    _installed = GuiGarbageCollector(app)
    return _installed
