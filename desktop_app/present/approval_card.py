"""What an approval card shows for a ``write``/``edit``/``bash`` call, as plain data. No Qt.

The agent awaits the window's answer before running a call that changes files or runs commands
(issue 12). The user must see exactly what would happen — the edit's diff (or the error the edit
would give), the path and size of a write, the command and the folder of a shell command — so the
choice of what to show lives here, testable without a window; the widget only renders a
:class:`ApprovalCard`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from desktop_app.tools import (
    ApprovalDecision,
    ApprovalRequest,
    BashApproval,
    EditApproval,
    WriteApproval,
)

__all__ = ["ApprovalButton", "ApprovalCard", "BUTTONS", "approval_card"]

#: Lines of a write's content shown on its card (the file may be large; the size is always given).
WRITE_PREVIEW_LINES = 40


@dataclass(frozen=True)
class ApprovalButton:
    """One answer: its label (``&`` marks the Alt+key mnemonic) and the decision it returns."""

    label: str
    decision: ApprovalDecision


#: The three answers, in the order they are shown (the first is the default).
BUTTONS = (
    ApprovalButton("Allow &once", ApprovalDecision.ALLOW_ONCE),
    ApprovalButton("Allow &always for this session", ApprovalDecision.ALLOW_ALWAYS),
    ApprovalButton("&Deny", ApprovalDecision.DENY),
)


@dataclass(frozen=True)
class ApprovalCard:
    """The card: a title, fact lines, a body (code) with its highlighting language, and a warning."""

    tool_name: str
    title: str
    facts: tuple[str, ...]
    body: str
    language: str | None
    """``"diff"``, ``"bash"`` or ``None`` (plain)."""
    warning: str | None = None
    """Shown in the error colour: the edit would fail, a write overwrites a file."""
    buttons: tuple[ApprovalButton, ...] = BUTTONS


def _preview(content: str, limit: int = WRITE_PREVIEW_LINES) -> str:
    lines = content.split("\n")
    if len(lines) <= limit:
        return content
    return "\n".join(lines[:limit]) + f"\n… {len(lines) - limit:,} more lines"


def approval_card(request: ApprovalRequest) -> ApprovalCard:
    """The card for ``request`` (see the module docstring for what each tool shows)."""
    match request:
        case EditApproval(path=path, abs_path=abs_path, diff=diff, error=error):
            if diff is not None:
                return ApprovalCard("edit", f"Edit {path}?", (abs_path,), diff, "diff")
            return ApprovalCard(
                "edit", f"Edit {path}?", (abs_path,), "", None,
                warning=f"This edit would fail: {error or 'unknown error'}",
            )
        case WriteApproval(path=path, abs_path=abs_path, size_bytes=size, size_text=size_text, exists=exists,
                           content=content):
            lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
            facts = (abs_path, f"{size_text} ({size:,} bytes, {lines:,} line{'s' if lines != 1 else ''})")
            warning = "The file exists and will be overwritten." if exists else None
            return ApprovalCard("write", f"Write {path}?", facts, _preview(content), None, warning=warning)
        case BashApproval(command=command, cwd=cwd, timeout=timeout):
            bash_facts: tuple[str, ...] = (f"in {cwd}",) + ((f"timeout {timeout:g} s",) if timeout else ())
            return ApprovalCard("bash", "Run this command?", bash_facts, command, "bash")
        case _:
            assert_never(request)
