"""Approval cards, session-long approvals and denials."""

from __future__ import annotations

from pathlib import Path

from desktop_app.tools import ToolContext
from desktop_app.tools.approval import (
    ApprovalDecision,
    SessionApprovals,
    denied_result,
    describe_approval,
)
from desktop_app.tools.edit import EditApproval
from desktop_app.tools.write import WriteApproval
from tests.tools.conftest import tool_call


def test_edit_card_shows_pis_diff_without_writing(project: Path) -> None:
    (project / "f.py").write_text("a = 1\nb = 2\n")
    ctx = ToolContext(cwd=str(project))
    card = describe_approval(
        tool_call("edit", path="f.py", edits=[{"oldText": "b = 2", "newText": "b = 3"}]), ctx
    )
    assert card == EditApproval(
        tool_call_id=card.tool_call_id if card else "",
        path="f.py",
        abs_path=f"{project}/f.py",
        diff=" 1 a = 1\n-2 b = 2\n+2 b = 3",  # the empty "line" after the final newline is not a line
        first_changed_line=2,
        error=None,
    )
    assert card is not None and card.tool_name == "edit"
    assert (project / "f.py").read_text() == "a = 1\nb = 2\n"
    failing = describe_approval(
        tool_call("edit", path="f.py", edits=[{"oldText": "zzz", "newText": "y"}]), ctx
    )
    assert isinstance(failing, EditApproval) and failing.diff is None
    assert failing.error is not None and failing.error.startswith("Could not find the exact text in f.py.")
    legacy = describe_approval(tool_call("edit", path="f.py", oldText="a = 1", newText="a = 0"), ctx)
    assert isinstance(legacy, EditApproval) and legacy.diff is not None and "+1 a = 0" in legacy.diff


def test_write_card_and_reading_tools_need_none(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    (project / "old.txt").write_text("x")
    write = describe_approval(tool_call("write", path="old.txt", content="é" * 1000), ctx)
    assert isinstance(write, WriteApproval)
    assert (write.path, write.size_bytes, write.size_text, write.exists) == ("old.txt", 2000, "2.0KB", True)
    assert describe_approval(tool_call("read", path="old.txt"), ctx) is None
    assert describe_approval(tool_call("nonsense"), ctx) is None


def test_session_approvals_remember_only_always() -> None:
    approvals = SessionApprovals()
    approvals.record("bash", ApprovalDecision.ALLOW_ONCE)
    approvals.record("write", ApprovalDecision.DENY)
    assert not approvals.is_preapproved("bash") and not approvals.is_preapproved("write")
    approvals.record("edit", ApprovalDecision.ALLOW_ALWAYS)
    assert approvals.is_preapproved("edit") and approvals.always == {"edit"}


def test_denied_result_shape() -> None:
    call = tool_call("write", path="x", content="y")
    message = denied_result(call).to_message()
    assert message["toolCallId"] == call["id"] and message["toolName"] == "write"
    assert message["content"] == [
        {"type": "text", "text": "The user denied this write call, so it was not run."}
    ]
    assert message["isError"] is True and message["details"] == {}
    custom = denied_result(call, "arbor ask runs without --yes: write, edit and bash are denied.")
    assert custom.text == "arbor ask runs without --yes: write, edit and bash are denied."
