"""What F1 shows: every key of the window, grouped. No Qt.

The window's own shortcuts are read from its actions at the moment F1 is pressed (so the list can
never drift from what the keys really do); the keys that widgets handle themselves (the composer,
the canvas, the sessions list) are listed here, next to the code that says what they mean.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["FIXED_KEYS", "KeyRow", "KeySection", "help_sections", "tooltip_with_shortcut"]


@dataclass(frozen=True)
class KeyRow:
    keys: str
    what: str


@dataclass(frozen=True)
class KeySection:
    title: str
    rows: tuple[KeyRow, ...]


FIXED_KEYS: tuple[KeySection, ...] = (
    KeySection("Panes", (
        KeyRow("F6 / Shift+F6", "Next / previous pane: toolbar, side column, canvas, chat, message box"),
        KeyRow("Tab / Shift+Tab", "Next / previous control, pane by pane in that order"),
    )),
    KeySection("Chat", (
        KeyRow("Enter", "Send the message"),
        KeyRow("Shift+Enter", "New line in the message"),
        KeyRow("Esc", "Stop the running reply (or close the approval card)"),
    )),
    KeySection("Tree (click the canvas first)", (
        KeyRow("Up / Down", "Previous / next entry in pi's /tree order"),
        KeyRow("Left / Right", "Fold or unfold; jump between branch segments"),
        KeyRow("Page Up / Page Down, Home / End", "Move by a page; first / last entry"),
        KeyRow("Enter or double-click", "Continue from the selected entry (asks about a summary)"),
        KeyRow("+ / −, Ctrl+wheel", "Zoom in / out"),
        KeyRow("Esc", "Clear the selection"),
    )),
    KeySection("Sessions panel", (
        KeyRow("Click", "Open the session"),
        KeyRow("F2", "Rename the selected session"),
        KeyRow("Delete", "Move the selected session to the trash (asks first)"),
        KeyRow("Ctrl+Shift+F", "Search every session's text"),
    )),
)


def tooltip_with_shortcut(tip: str, shortcut: str) -> str:
    """``"Open a session file (Ctrl+O)"``: a tooltip names its shortcut (issue 11 item 6)."""
    return f"{tip} ({shortcut})" if shortcut and shortcut not in tip else tip


def help_sections(window_actions: Iterable[tuple[str, str]]) -> tuple[KeySection, ...]:
    """The window's ``(text, shortcut)`` actions (those with a shortcut) first, then the fixed keys."""
    rows: list[KeyRow] = []
    seen: set[str] = set()
    for text, shortcut in window_actions:
        label = text.replace("&", "").rstrip(".…").strip()
        if not shortcut or not label or shortcut in seen:
            continue
        seen.add(shortcut)
        rows.append(KeyRow(shortcut, label))
    return (KeySection("Window", tuple(rows)), *FIXED_KEYS)
