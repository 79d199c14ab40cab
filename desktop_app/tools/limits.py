"""The footer grep, find and ls share: notices joined by ``. `` in one ``[...]`` after a blank line."""

from __future__ import annotations

from typing import Any

from .results import ToolOutput
from .truncate import Truncation, format_size

__all__ = ["limit_notices"]


def limit_notices(
    cut: Truncation,
    notices: list[str],
    details: dict[str, Any],
    trailing: list[tuple[str, str, Any]] | None = None,
) -> ToolOutput:
    """Assemble text and details: limit notice(s), then the byte cut, then ``trailing`` notices.

    ``details`` keeps pi's key order: the limit key (already in it), ``truncation``, then whatever
    ``trailing`` notices with their details key and value (grep's ``linesTruncated``).
    """
    text = cut.content
    all_notices = list(notices)
    if cut.truncated:
        all_notices.append(f"{format_size(cut.max_bytes)} limit reached")
        details["truncation"] = cut.to_details()
    for notice, key, value in trailing or []:
        all_notices.append(notice)
        details[key] = value
    if all_notices:
        text += "\n\n[" + ". ".join(all_notices) + "]"
    return ToolOutput.text(text, details or None)
