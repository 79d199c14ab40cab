"""Export… on the toolbar: a save dialog, then :mod:`desktop_app.export` off the UI thread.

The dialog is Qt's own (not the desktop's), opened without blocking and kept on
:attr:`SessionExport.dialog` while it is up, so a test answers it as a person would. The page (or
the Markdown, by the file type chosen) is written from a snapshot of the session file at the leaf
the window shows; the status bar says where it went, or why it could not be written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow

from desktop_app.session import SessionView
from desktop_app.session.store import SessionFileError

from .plain import plain_text

if TYPE_CHECKING:
    from desktop_app.export import ExportReport

__all__ = ["MARKDOWN_FILTER", "PAGE_FILTER", "SessionExport"]

log = logging.getLogger(__name__)

PAGE_FILTER = "Web page, opens in any browser (*.html)"
MARKDOWN_FILTER = "Markdown of the active path (*.md)"


class SessionExport:
    """The Export… action of one window and its save dialog."""

    def __init__(self, window: QMainWindow, session: Callable[[], SessionView]) -> None:
        self.window = window
        self.session = session  #: the session the window shows now
        self.action = QAction("Export…", window)
        self.action.setToolTip(
            plain_text("Export this session as one web page (tree, chat, compaction audits) or as Markdown")
        )
        self.action.triggered.connect(self.ask)
        window.addAction(self.action)
        self.dialog: QFileDialog | None = None  #: the save dialog while it is open
        self.last: ExportReport | None = None  #: what the last export wrote
        self.failure: str | None = None  #: why the last export failed
        self.task: asyncio.Future[None] | None = None  #: the export running now

    def ask(self) -> None:
        """Open the save dialog (once), starting with the session's name as an .html file."""
        window = self.window
        source = self.session().session_file
        if not source or not Path(source).is_file():
            window.statusBar().showMessage("Nothing to export yet: this session has no file.", 5000)
            return
        if self.dialog is not None:
            self.dialog.raise_()
            return
        dialog = QFileDialog(window, "Export session")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters([PAGE_FILTER, MARKDOWN_FILTER])
        dialog.setDefaultSuffix("html")
        dialog.setDirectory(str(Path.home()))
        dialog.selectFile(Path(source).stem + ".html")
        dialog.filterSelected.connect(lambda chosen: dialog.setDefaultSuffix("md" if chosen == MARKDOWN_FILTER else "html"))

        def finished(_result: int) -> None:
            self.dialog = None
            dialog.deleteLater()

        dialog.fileSelected.connect(lambda path: self.export_to(path, dialog.selectedNameFilter() == MARKDOWN_FILTER))
        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()

    def export_to(self, path: str, markdown: bool = False) -> None:
        """Write the page (or the Markdown) of the open session to ``path``, off the UI thread."""
        from desktop_app.export import export_file  # its markdown parser loads on first use, not at start

        source = self.session().session_file
        if not source:
            return
        leaf = self.session().leaf_id
        work = partial(
            export_file, source, None if markdown else path, path if markdown else None, leaf_id=leaf
        )
        self.window.statusBar().showMessage(f"Exporting to {path}…")
        self.task = asyncio.ensure_future(self._run(work, path))

    async def _run(self, work: partial[ExportReport], path: str) -> None:
        status = self.window.statusBar()
        try:
            report = await asyncio.get_running_loop().run_in_executor(None, work)
        except (OSError, SessionFileError) as exc:
            self.failure = f"Could not export to {path}: {getattr(exc, 'strerror', None) or exc}"
            status.showMessage(self.failure, 10_000)
            return
        except Exception as exc:  # noqa: BLE001 - a bug: said in the window and logged, not lost in the task
            log.exception("export to %s failed", path)
            self.failure = f"Could not export to {path}: {exc}"
            status.showMessage(self.failure, 10_000)
            return
        self.last, self.failure = report, None
        size = (report.html_bytes or report.markdown_bytes) / 1e6
        status.showMessage(f"Exported to {path} ({size:.1f} MB, {report.seconds:.1f} s)", 10_000)
