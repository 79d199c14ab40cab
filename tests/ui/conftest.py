"""Qt runs offscreen in every UI test."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.session import SessionManager  # noqa: E402

from .conformance_cases import open_copy  # noqa: E402


@pytest.fixture
def open_case(tmp_path: Path) -> Callable[[str], SessionManager]:
    """Open a copy of a conformance case by name (the copy lives in the test's tmp_path)."""
    return lambda case: open_copy(case, tmp_path)


def pytest_asyncio_loop_factories(config, item):  # type: ignore[no-untyped-def]
    """Async UI tests run on the Qt event loop through qasync, exactly as the app does."""
    if "tests/ui" not in str(getattr(item, "path", "")):
        return None
    import qasync
    from PySide6.QtWidgets import QApplication

    def factory():  # type: ignore[no-untyped-def]
        app = QApplication.instance() or QApplication([])
        return qasync.QEventLoop(app)

    return {"qasync": factory}
