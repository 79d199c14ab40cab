"""What ``arbor ask`` shows of each agent event (``AskConsole``) and its exit code, without a subprocess."""

from __future__ import annotations

import io
from typing import Any

import pytest

from desktop_app.agent import ask
from desktop_app.agent.events import (
    AgentError,
    MessageAppended,
    ReplyRecovered,
    SessionChanged,
    StreamUpdated,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    TurnFinished,
    TurnStarted,
)
from desktop_app.llm.protocol import TextDelta, ThinkingDelta
from desktop_app.tools import ASK_DENIED_TEXT


def _console() -> tuple[ask.AskConsole, io.StringIO]:
    out = io.StringIO()
    return ask.AskConsole(ask.ReplyWriter(out, live=False)), out


def _result(text: str, *, error: bool, tool: str = "read") -> dict[str, Any]:
    return {"role": "toolResult", "toolName": tool, "content": [{"type": "text", "text": text}], "isError": error}


def test_only_the_assistants_saved_reply_is_written(capsys: pytest.CaptureFixture[str]) -> None:
    console, out = _console()
    console.show(TurnStarted())
    console.show(MessageAppended("u", {"role": "user", "content": "question"}))
    console.show(StreamUpdated(ThinkingDelta("hmm", 0), {}))
    console.show(StreamUpdated(TextDelta("Answer", 1), {}))
    assert out.getvalue() == ""  # a pipe gets a reply once it stands
    console.show(MessageAppended("a", {"role": "assistant", "stopReason": "stop", "content": []}))
    console.show(TurnFinished())
    assert out.getvalue() == "Answer"
    assert capsys.readouterr().err == ""


def test_tool_calls_and_failed_results_are_notices(capsys: pytest.CaptureFixture[str]) -> None:
    console, out = _console()
    console.show(ToolCallsStarted("a", ({"name": "read", "arguments": {"path": "x"}}, {"name": "ls", "arguments": {}})))
    console.show(ToolResultAppended("r1", _result("fine", error=False)))
    console.show(ToolResultAppended("r2", _result("boom\nmore", error=True)))
    console.show(ToolResultAppended("r3", _result(ASK_DENIED_TEXT.format(tool="bash"), error=True, tool="bash")))
    console.show(ToolCallsFinished(aborted=True))
    assert out.getvalue() == ""  # an aborted batch ends the turn: no paragraph for a next reply
    console.show(ToolCallsFinished(aborted=False))
    assert out.getvalue() == "\n\n"
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "",
        '[tool: read {"path": "x"}]',
        "",
        "[tool: ls]",
        "[read failed: boom]",
        f"[denied: {ASK_DENIED_TEXT.format(tool='bash').splitlines()[0]}]",
    ]


def test_errors_are_kept_for_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    console, _ = _console()
    console.show(SessionChanged("f.jsonl"))
    console.show(AgentError("The request failed"))
    console.show(ReplyRecovered("/tmp/r.json", "No space left on device"))
    assert console.failed == ["The request failed", "No space left on device; the reply was saved to /tmp/r.json"]
    assert ask._exit_code({"stopReason": "stop"}, console.failed, terminated=False) == 1
    assert capsys.readouterr().err.strip() == "arbor ask: No space left on device; the reply was saved to /tmp/r.json"


@pytest.mark.parametrize(
    ("reply", "terminated", "code", "said"),
    [
        ({"stopReason": "stop"}, False, 0, ""),
        ({"stopReason": "aborted", "errorMessage": "Request was aborted"}, False, 1, "arbor ask: Request was aborted"),
        (None, False, 1, "arbor ask: no reply"),
        ({"stopReason": "aborted"}, True, 143, "arbor ask: terminated; the partial reply was kept"),
    ],
)
def test_exit_code(
    reply: dict[str, Any] | None, terminated: bool, code: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask._exit_code(reply, [], terminated) == code
    assert capsys.readouterr().err.strip() == said
