"""The tool part of pi's default system prompt (pi-tools.md §3), for whoever builds Arbor's prompt.

pi tells the model which tools are active and how to use them; a model continuing a pi session in
Arbor behaves best with the same words. :func:`tools_prompt` gives items 2-4 of pi's prompt
(``Available tools:``, the custom-tools sentence, ``Guidelines:``) for the active tools, in order;
:func:`environment_prompt` gives its closing date and folder lines.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from .registry import TOOLS

__all__ = ["tools_prompt", "environment_prompt"]

_CUSTOM_TOOLS = (
    "In addition to the tools above, you may have access to other custom tools depending on the project."
)
_CLOSING = ("Be concise in your responses", "Show file paths clearly when working with files")


def _guidelines(names: Sequence[str]) -> list[str]:
    lines: list[str] = []
    if "bash" in names:
        if not any(name in names for name in ("grep", "find", "ls")):
            lines.append("Use bash for file operations like ls, rg, find")
        else:
            lines.append(
                "Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)"
            )
    for name in names:
        lines.extend(TOOLS[name].guidelines)
    lines.extend(_CLOSING)
    return list(dict.fromkeys(lines))


def tools_prompt(names: Sequence[str]) -> str:
    """``Available tools:`` with pi's one-line snippets, then pi's guidelines for those tools."""
    known = [name for name in names if name in TOOLS]
    listing = "\n".join(f"- {name}: {TOOLS[name].snippet}" for name in known) or "(none)"
    guidelines = "\n".join(f"- {line}" for line in _guidelines(known))
    return f"Available tools:\n{listing}\n\n{_CUSTOM_TOOLS}\n\nGuidelines:\n{guidelines}"


def environment_prompt(cwd: str, today: datetime.date | None = None) -> str:
    """pi's last lines: the local date and the working folder."""
    day = (today or datetime.date.today()).isoformat()
    return f"\nCurrent date: {day}\nCurrent working directory: {cwd}"
