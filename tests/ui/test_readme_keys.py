"""The README lists every key once (issue 22 item 16): each key F1 shows — the window's shortcuts, read
from its actions, and the keys widgets handle — is in the README's key table, in exactly one row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction

from desktop_app.present.keys_help import help_sections
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump

README = Path(__file__).resolve().parents[2] / "README.md"


def _key_rows() -> list[str]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("### Keys") :].split("\n## ", 1)[0]
    return [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]


def _keys(cell: str) -> set[str]:
    """The keys one cell names: "Ctrl+N, Ctrl+Shift+N, Ctrl+O" → three; "F6 / Shift+F6" → two."""
    return {part.strip() for part in re.split(r",|/(?![^ ]*\+)| or ", cell) if part.strip()}


@pytest.fixture
def window() -> Iterator[MainWindow]:
    opened = open_window(None)
    yield opened
    opened.close()
    pump(50)


def test_every_key_f1_shows_is_in_one_row_of_the_readme(window: MainWindow) -> None:
    rows = [_keys(cell) for cell in _key_rows()]
    actions = [(a.text(), a.shortcut().toString()) for a in window.findChildren(QAction)]
    wanted = {key for section in help_sections(actions) for row in section.rows for key in _keys(row.keys)}
    wanted -= {"Click", "double-click"}  # mouse, said in words
    missing = sorted(key for key in wanted if not any(key in row for row in rows))
    assert missing == []
    twice = sorted(key for key in wanted if sum(key in row for row in rows) > 1)
    assert twice == []
