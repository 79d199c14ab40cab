"""run_tool_calls: approval in call order, denial, session-long approval, parallel runs, abort."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.tools import APPROVAL_TOOLS, ToolContext, ToolResult
from desktop_app.tools.approval import (
    ApprovalDecision,
    ApprovalRequest,
    SessionApprovals,
)
from desktop_app.tools.batch import ASK_DENIED_TEXT, run_tool_calls
from desktop_app.tools.edit import EditApproval
from desktop_app.tools.write import WriteApproval
from tests.tools.conftest import tool_call


class Card:
    """A scripted user: answers each card with the next decision and remembers what it saw."""

    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.seen: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.seen.append(request)
        return self.answers.pop(0)


@pytest.mark.asyncio
async def test_allowed_write_runs_and_reads_run_without_asking(project: Path) -> None:
    (project / "a.txt").write_text("A")
    ctx = ToolContext(cwd=str(project))
    user = Card(ApprovalDecision.ALLOW_ONCE)
    calls = [tool_call("read", path="a.txt"), tool_call("write", path="b.txt", content="hello")]
    results = await run_tool_calls(calls, ctx, SessionApprovals(), user)
    assert [r.tool_call_id for r in results] == [c["id"] for c in calls]
    assert [r.text for r in results] == ["A", "Successfully wrote 5 bytes to b.txt"]
    assert len(user.seen) == 1 and isinstance(user.seen[0], WriteApproval)
    assert (project / "b.txt").read_text() == "hello"


@pytest.mark.asyncio
async def test_denied_write_leaves_no_file_and_tells_the_model(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    (result,) = await run_tool_calls(
        [tool_call("write", path="x.txt", content="no")], ctx, SessionApprovals(), Card(ApprovalDecision.DENY)
    )
    assert not (project / "x.txt").exists()
    message = result.to_message()
    assert message["isError"] is True and message["details"] == {}
    assert message["content"] == [
        {"type": "text", "text": "The user denied this write call, so it was not run."}
    ]


@pytest.mark.asyncio
async def test_without_an_approver_writing_tools_are_denied_like_arbor_ask(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    calls = [tool_call("bash", command="touch made"), tool_call("ls")]
    denied, listed = await run_tool_calls(calls, ctx, SessionApprovals(), None)
    assert denied.is_error and denied.text == ASK_DENIED_TEXT.format(tool="bash")
    assert listed.text == "(empty directory)"
    assert not (project / "made").exists()
    yes = SessionApprovals(APPROVAL_TOOLS)  # `arbor ask --yes`
    (ran,) = await run_tool_calls([tool_call("bash", command="touch made")], ctx, yes, None)
    assert ran.text == "(no output)" and (project / "made").exists()


@pytest.mark.asyncio
async def test_allow_always_lasts_for_the_session_only(project: Path) -> None:
    (project / "f").write_text("1 2")
    ctx = ToolContext(cwd=str(project))
    approvals = SessionApprovals()
    user = Card(ApprovalDecision.ALLOW_ALWAYS)
    calls = [
        tool_call("edit", path="f", edits=[{"oldText": "1", "newText": "one"}]),
        tool_call("edit", path="f", edits=[{"oldText": "2", "newText": "two"}]),
    ]
    results = await run_tool_calls(calls, ctx, approvals, user)
    assert [r.is_error for r in results] == [False, False]
    assert len(user.seen) == 1 and isinstance(user.seen[0], EditApproval)
    assert user.seen[0].diff == "-1 1 2\n+1 one 2"
    assert (project / "f").read_text() == "one two"
    assert approvals.is_preapproved("edit") and not SessionApprovals().is_preapproved("edit")


@pytest.mark.asyncio
async def test_invalid_calls_fail_without_a_card(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    user = Card()
    (result,) = await run_tool_calls([tool_call("write", path="x")], ctx, SessionApprovals(), user)
    assert result.text.startswith('Validation failed for tool "write":\n  - content: must have required')
    assert user.seen == []


@pytest.mark.asyncio
async def test_parallel_run_results_in_call_order(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    finished: list[str] = []

    def note(result: ToolResult) -> None:
        finished.append(result.text)

    # The first call waits for a file only the second creates: it says "slow" only if both ran at once
    # (run one after the other, it gives up after 10 s and says "alone").
    slow = "for i in $(seq 1 200); do [ -e flag ] && echo slow && exit 0; sleep 0.05; done; echo alone"
    calls = [tool_call("bash", command=slow), tool_call("bash", command="touch flag; echo fast")]
    results = await run_tool_calls(calls, ctx, SessionApprovals(APPROVAL_TOOLS), None, on_result=note)
    assert [r.text for r in results] == ["slow\n", "fast\n"]  # call order, whatever order they finished in
    assert sorted(finished) == ["fast\n", "slow\n"]  # on_result saw each once


@pytest.mark.asyncio
async def test_abort_while_a_card_is_open(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    opened = asyncio.Event()

    async def never_answers(request: ApprovalRequest) -> ApprovalDecision:
        opened.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    calls = [tool_call("bash", command="echo hi"), tool_call("write", path="w", content="x")]
    task = asyncio.create_task(run_tool_calls(calls, ctx, SessionApprovals(), never_answers))
    await opened.wait()
    ctx.signal.abort()
    bash, write = await task
    assert (bash.text, write.text) == ("Command aborted", "Operation aborted")
    assert bash.is_error and write.is_error and not (project / "w").exists()
