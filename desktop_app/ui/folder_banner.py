"""``FolderBanner``: the session's working folder is missing, said in the chat when a tool needs it.

A session names the folder its tools run in (the header's ``cwd``). A file from another machine,
or the sample (``/home/you/trips``), names one that does not exist here. That is no reason to stop
a person at the door with a folder picker (issue 22 item 3): reading, branching and chatting need
no folder. Only a tool call does, and then this strip above the composer says so, with
"Choose folder…" (the picker) and a dismiss button. Cancelling the picker changes nothing: the tools
keep reporting pi's "Working directory does not exist" error.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QBoxLayout, QFileDialog, QLayout, QPushButton, QWidget

from .chat.banner import Banner
from .plain import plain_text

__all__ = ["FolderBanner", "folder_dialog", "missing_folder_text", "place_above_composer"]


def missing_folder_text(cwd: str) -> str:
    """What the banner says: which folder, and why it matters (short: the chat can be narrow)."""
    return f"This session's folder, {cwd}, does not exist on this computer: its tools cannot run until you choose one."


def folder_dialog(parent: QWidget, missing: str) -> QFileDialog:
    """The picker "Choose folder…" opens: folders only, window-modal, starting at the nearest
    existing parent of the missing folder (not opened: the caller connects it first)."""
    dialog = QFileDialog(parent, f"Choose the folder for this session's tools (instead of {missing})")
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setLabelText(QFileDialog.DialogLabel.Accept, "Use this folder")
    start = Path(missing).parent
    while not start.is_dir() and start != start.parent:
        start = start.parent
    dialog.setDirectory(str(start))
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    return dialog


MISSING_FOLDER_TIP = (
    "Tools (read, write, edit, bash, …) run in the session's working folder. Choosing another one "
    "lasts while this session is open; the session file is not changed."
)


class FolderBanner(Banner):
    """An info strip with "Choose folder…"; ``choose_requested`` when that is clicked."""

    choose_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("info", parent)
        self.setObjectName("folderBanner")
        self.apply_theme(dark=False)  # the style sheet names the object
        self._choose = QPushButton("Choose folder…", self)
        self._choose.setObjectName("chooseFolder")
        self._choose.setToolTip("Pick the folder this session's tools run in (the file is not changed)")
        self._choose.clicked.connect(self.choose_requested)
        layout = self.layout()
        if isinstance(layout, QBoxLayout):
            layout.insertWidget(1, self._choose)

    def show_missing(self, cwd: str) -> None:
        """Say that ``cwd`` is missing, in the colours of the theme now in use."""
        self.apply_theme(dark=self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5)
        self.show_text(missing_folder_text(cwd))
        self.setToolTip(plain_text(f"{missing_folder_text(cwd)}\n\n{MISSING_FOLDER_TIP}"))

    def buttons(self) -> list[QPushButton]:
        return [self._choose]

    @property
    def choose_button(self) -> QPushButton:
        return self._choose


def place_above_composer(chat: QWidget, banner: QWidget, beside: QWidget) -> None:
    """Put ``banner`` in the layout that holds ``beside`` (the chat's own banners), just before it;
    at the top of the chat when that layout cannot be found."""

    def holder(layout: QLayout | None) -> QBoxLayout | None:
        if layout is None:
            return None
        if isinstance(layout, QBoxLayout) and layout.indexOf(beside) >= 0:
            return layout
        for i in range(layout.count()):
            item = layout.itemAt(i)
            found = holder(item.layout()) if item is not None else None
            if found is not None:
                return found
        return None

    box = holder(chat.layout())
    if box is not None:
        box.insertWidget(box.indexOf(beside), banner)
        return
    top = chat.layout()
    if isinstance(top, QBoxLayout):
        top.insertWidget(0, banner)
