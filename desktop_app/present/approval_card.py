"""What an approval card shows for a ``write``/``edit``/``bash`` call, as plain data. No Qt.

The agent awaits the window's answer before running a call that changes files or runs commands
(issue 12). The user must see exactly what would happen — the edit's diff (or the error the edit
would give), the path and size of a write, the command and the folder of a shell command. Each
tool's module says what its card shows (the request's ``card()``); here it gets the three answers,
testable without a window; the widget only renders a :class:`ApprovalCard`.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.tools import ApprovalDecision, ApprovalRequest

__all__ = ["ApprovalButton", "ApprovalCard", "BUTTONS", "approval_card"]


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


def approval_card(request: ApprovalRequest) -> ApprovalCard:
    """The card for ``request``: what its tool says (``request.card()``) with the three answers."""
    text = request.card()
    return ApprovalCard(request.tool_name, text.title, text.facts, text.body, text.language, text.warning)
