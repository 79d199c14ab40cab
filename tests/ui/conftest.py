"""Qt runs offscreen in every UI test."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import anthropic_server as fa

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.testing import open_window, pump  # noqa: E402
from tests.present.conftest import open_case  # noqa: E402, F401  (the shared conformance-case fixture)


def pytest_asyncio_loop_factories(config, item):  # type: ignore[no-untyped-def]
    """Async UI tests run on the Qt event loop through qasync, exactly as the app does."""
    if "tests/ui" not in str(getattr(item, "path", "")):
        return None
    import qasync
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.gui_gc import install_gui_gc

    def factory():  # type: ignore[no-untyped-def]
        app = QApplication.instance() or QApplication([])
        install_gui_gc(app)  # as the app's loop does: garbage collected on this thread only
        return qasync.QEventLoop(app)

    return {"qasync": factory}


@pytest.fixture(autouse=True)
def _pump_loop_closed() -> Iterator[None]:
    """A test that ran ``testing.pump`` leaves its loop running (that is the point of it); the next
    test starts with no running loop, as pytest-asyncio and ``asyncio.run`` require."""
    yield
    testing = sys.modules.get("desktop_app.ui.testing")
    if testing is not None:
        testing.release_loop()


@pytest.fixture(autouse=True)
def _workers_joined_and_garbage_collected_on_the_main_thread() -> Iterator[None]:
    """Python's cyclic GC runs in whichever thread happens to allocate. A worker thread still
    running into the next test (a replaced graph's release, a file's background parse) could collect
    that test's Qt objects (widgets in reference cycles) there, which Qt does not survive (a segfault
    "Garbage-collecting" seen in ~1 of 4 runs of tests/ui/graph when the whole graph was built on a
    worker). So, as in the app (``desktop_app/ui/gui_gc.py``), automatic collection is off while a UI
    test runs (the app's collector, where a window or loop installed it, collects on this thread), and
    each UI test ends with the graph's release threads joined and its garbage collected here, on the
    main thread. Tests outside tests/ui get the interpreter's GC back."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        whole_graph = sys.modules.get("desktop_app.ui.graph.whole_graph")
        if whole_graph is not None:
            whole_graph.release_waiting_now()  # no need to sleep through the canvas's 1 s delay
        for thread in threading.enumerate():
            if thread.name == "arbor-release":  # the whole graph is built on this thread now, in slices
                thread.join(30)
        gc.collect()
        # What survived is frozen, as the app freezes a loaded session (``gui_gc``): the next test's
        # full collection walks only what that test made, not every object every test left behind
        # (~70 ms a collection otherwise, 8 s of one UI file's 11).
        gc.freeze()
        if was_enabled:
            gc.enable()


@pytest.fixture
def server() -> Iterator[fa.FakeAnthropicServer]:
    """The fake Anthropic server on 127.0.0.1 (tests/fakes/anthropic_server.py)."""
    fake = fa.FakeAnthropicServer().start()
    yield fake
    fake.stop()


REAL = Path(__file__).parents[1] / "fixtures" / "conformance" / "before-compaction.jsonl"  # written by pi 0.73.1


@pytest.fixture
def real_window(tmp_path: Path) -> Iterator[MainWindow]:
    """pi 0.73.1's own 1,000-line session with compactions, open at 1280×800 (tidy layout, no dot)."""
    path = tmp_path / "real.jsonl"
    shutil.copyfile(REAL, path)
    opened = open_window(path, size=(1280, 800))
    opened.graph.set_use_dot(False)
    yield opened
    opened.close()
    pump(50)
