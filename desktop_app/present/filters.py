"""pi's ``/tree`` filter modes (pi-spec §6.2): which entries a view of the tree shows.

pi's rules, not the canvas's: they live below ``ui/`` so the graph, a future outline list and the
tests all answer "is this entry shown?" the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from desktop_app.session.entries import Entry

from .text import has_text_content

__all__ = ["FILTER_MODES", "check_mode", "is_visible", "next_mode", "pi_visible"]

#: pi's ``/tree`` filter modes, in pi's Ctrl+O cycle order.
FILTER_MODES: Final[tuple[str, ...]] = ("default", "no-tools", "user-only", "labeled-only", "all")

_SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
#: pi 1.6.0's ``usage`` entries (a cache warm-up, a classifier call) are bookkeeping outside the
#: context: hidden like settings entries unless the filter is ``all`` (or they carry a label).
#: pi 0.73.1 knows no such type; this is Arbor's rule for it.
_BOOKKEEPING_TYPES = _SETTINGS_TYPES | {"usage"}


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`FILTER_MODES`; ``ValueError`` otherwise."""
    if mode not in FILTER_MODES:
        raise ValueError(f"unknown filter mode {mode!r}")
    return mode


def next_mode(mode: str, step: int = 1) -> str:
    """pi's Ctrl+O (``step`` 1) and Shift+Ctrl+O (``step`` -1) cycle."""
    return FILTER_MODES[(FILTER_MODES.index(check_mode(mode)) + step) % len(FILTER_MODES)]


def _hidden_by_assistant_rule(entry: Entry, leaf_id: str | None) -> bool:
    """pi hides an assistant without text unless it stopped abnormally or is the current leaf."""
    if entry.get("type") != "message" or entry.get("id") == leaf_id:
        return False
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    stop = message.get("stopReason")
    abnormal = bool(stop) and stop not in ("stop", "toolUse")
    return not has_text_content(message.get("content")) and not abnormal


def pi_visible(entry: Entry, mode: str, leaf_id: str | None, labels: Mapping[str, str]) -> bool:
    """pi 0.73.1's ``/tree`` rule for ``mode`` (pi-spec §6.2), the assistant rule included; pi
    1.6.0's ``usage`` entries count as settings entries (hidden but in ``all`` and ``labeled-only``)."""
    if _hidden_by_assistant_rule(entry, leaf_id):
        return False
    entry_type = entry.get("type")
    if mode == "user-only":
        message = entry.get("message")
        return entry_type == "message" and isinstance(message, dict) and message.get("role") == "user"
    if mode == "labeled-only":
        return entry.get("id") in labels
    if mode == "all":
        return True
    if entry_type in _BOOKKEEPING_TYPES:
        return False
    if mode == "no-tools":
        message = entry.get("message")
        return not (
            entry_type == "message" and isinstance(message, dict) and message.get("role") == "toolResult"
        )
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
