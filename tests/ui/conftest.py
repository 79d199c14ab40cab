"""Qt runs offscreen in every UI test."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.present.conftest import open_case  # noqa: E402, F401  (the shared conformance-case fixture)


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
