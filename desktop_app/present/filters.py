"""pi's ``/tree`` filter modes (pi-spec §6.2): which entries a view of the tree shows.

pi's rules, not the canvas's: they live below ``ui/`` so the graph, a future outline list and the
tests all answer "is this entry shown?" the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of

from .text import has_text_content

__all__ = ["FILTER_MODES", "check_mode", "is_visible", "next_mode", "pi_visible"]

#: pi's ``/tree`` filter modes, in pi's Ctrl+O cycle order.
FILTER_MODES: Final[tuple[str, ...]] = ("default", "no-tools", "user-only", "labeled-only", "all")

_SETTINGS_KINDS = frozenset(
    {EntryKind.LABEL, EntryKind.CUSTOM, EntryKind.MODEL_CHANGE, EntryKind.THINKING_LEVEL_CHANGE, EntryKind.SESSION_INFO}
)
#: pi 1.6.0's ``usage`` entries (a cache warm-up, a classifier call) are bookkeeping outside the
#: context: hidden like settings entries unless the filter is ``all`` (or they carry a label).
#: pi 0.73.1 knows no such type; this is Arbor's rule for it.
_BOOKKEEPING_KINDS = _SETTINGS_KINDS | {EntryKind.USAGE}

# Read once per entry of the file: a global is read faster than an enum member (Python 3.11).
_MESSAGE, _USER, _ASSISTANT, _TOOL_RESULT = EntryKind.MESSAGE, Role.USER, Role.ASSISTANT, Role.TOOL_RESULT


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`FILTER_MODES`; ``ValueError`` otherwise."""
    if mode not in FILTER_MODES:
        raise ValueError(f"unknown filter mode {mode!r}")
    return mode


def next_mode(mode: str, step: int = 1) -> str:
    """pi's Ctrl+O (``step`` 1) and Shift+Ctrl+O (``step`` -1) cycle."""
    return FILTER_MODES[(FILTER_MODES.index(check_mode(mode)) + step) % len(FILTER_MODES)]


def _hidden_by_assistant_rule(entry: Entry, message: Mapping[str, Any], leaf_id: str | None) -> bool:
    """pi hides an assistant without text unless it stopped abnormally or is the current leaf."""
    if entry.get("id") == leaf_id:
        return False
    stop = message.get("stopReason")
    abnormal = bool(stop) and stop not in ("stop", "toolUse")
    return not has_text_content(message.get("content")) and not abnormal


def pi_visible(entry: Entry, mode: str, leaf_id: str | None, labels: Mapping[str, str]) -> bool:
    """pi 0.73.1's ``/tree`` rule for ``mode`` (pi-spec §6.2), the assistant rule included; pi
    1.6.0's ``usage`` entries count as settings entries (hidden but in ``all`` and ``labeled-only``)."""
    kind = kind_of(entry)
    message = entry.get("message") if kind is _MESSAGE else None
    if not isinstance(message, dict):
        message = None
    role = role_of(message) if message is not None else None
    if message is not None and role is _ASSISTANT and _hidden_by_assistant_rule(entry, message, leaf_id):
        return False
    if mode == "user-only":
        return role is _USER
    if mode == "labeled-only":
        return entry.get("id") in labels
    if mode == "all":
        return True
    if kind in _BOOKKEEPING_KINDS:
        return False
    if mode == "no-tools":
        return role is not _TOOL_RESULT
    return True  # "default" (and any unknown mode, as pi's switch falls through to default)


def is_visible(entry: Entry, mode: str, leaf_id: str | None, labels: Mapping[str, str]) -> bool:
    """The graph's rule: pi's, except that ``all`` shows every entry.

    pi's list hides text-less assistants even in ``all`` because they would read "(no content)";
    on a canvas that exists to show the tree as it is, ``all`` means all, and the tool calls such an
    assistant made are its text (see :func:`~desktop_app.present.text.entry_text`).
    """
    if mode == "all":
        return True
    return pi_visible(entry, mode, leaf_id, labels)
