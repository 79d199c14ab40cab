"""The agent acts (issue 12): the turn loop runs pi's tools with approval, through the real Anthropic SDK
against the fake server (real SSE ``tool_use`` blocks with ``input_json_delta``).

What is checked is what lands in the session file (pi's persistence order, shapes and key order), what
the model is sent next, what happens on disk in the session's folder, and the events the window gets.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import (
    AgentEvent,
    AgentSession,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    ToolUpdated,
    WorkingFolderMissing,
)
from desktop_app.inspection import build_report
from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1
from desktop_app.settings import Settings
from desktop_app.tools import (
    ApprovalDecision,
    ApprovalRequest,
    BashApproval,
    EditApproval,
    WriteApproval,
)
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE
from tests.arbor_process import run_arbor
from tests.cli_runs import arbor_in_process
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa
from tests.tools.test_batch import Card as Approver  # the scripted card: answers in order, keeps .seen

from .test_agent_session import anthropic, fast_settings, file_entries

ASSISTANT_KEYS = ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]
RESULT_KEYS = ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]
DENIED = "The user denied this write call, so it was not run."


def make_agent(folder: Path, server: FakeAnthropicServer, settings: Settings | None = None) -> AgentSession:
    """An agent whose session folder (header cwd) is ``folder``; the file lives elsewhere."""
    folder.mkdir(parents=True, exist_ok=True)
    manager = SessionManager.create(str(folder), folder.parent / "sessions", fsync=False, profile=PI_0_73_1)
    return AgentSession(manager, anthropic(server.base_url), settings or fast_settings())


def messages(agent: AgentSession) -> list[dict[str, Any]]:
    return [e for e in file_entries(agent) if e["type"] == "message"]


def tool_results_sent(server: FakeAnthropicServer, request_index: int) -> list[dict[str, Any]]:
    last = server.requests[request_index].json["messages"][-1]
    return [b for b in last["content"] if b.get("type") == "tool_result"]


def record(agent: AgentSession) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    return events


def parent_message_id(entry: dict[str, Any], every: list[dict[str, Any]]) -> Any:
    """The entry's parent, passing over workspace checkpoints (custom entries between tool calls)."""
    by_id = {e.get("id"): e for e in every}
    parent = entry["parentId"]
    while by_id.get(parent, {}).get("customType") == CHECKPOINT_TYPE:
        parent = by_id[parent]["parentId"]
    return parent


def assert_chain(entries: list[dict[str, Any]], every: list[dict[str, Any]]) -> None:
    """Each message entry of the turn is the child of the one before it (checkpoints aside)."""
    for before, after in zip(entries, entries[1:], strict=False):
        assert parent_message_id(after, every) == before["id"]


@pytest.mark.asyncio
async def test_write_then_reply_persists_pis_order_and_shapes(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(
        fa.tool_use("write", {"path": "notes/todo.md", "content": "- add tests\n"}, tool_id="toolu_06",
                    preamble="I'll write it."),
        fa.text("Written."),
    )
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    approver = Approver(ApprovalDecision.ALLOW_ONCE)
    agent.approver = approver
    events = record(agent)
    reply = await agent.prompt("Write the todo file")
    assert reply is not None and reply["stopReason"] == "stop"
    assert (folder / "notes" / "todo.md").read_text() == "- add tests\n"

    card = approver.seen[0]
    assert isinstance(card, WriteApproval) and card.path == "notes/todo.md" and card.size_bytes == 12
    assert not card.exists and card.abs_path == str(folder / "notes" / "todo.md")

    entries = messages(agent)
    assert [e["message"]["role"] for e in entries] == ["user", "assistant", "toolResult", "assistant"]
    assert_chain(entries, file_entries(agent))
    call_message, result, answer = (e["message"] for e in entries[1:])
    assert list(call_message)[: len(ASSISTANT_KEYS)] == ASSISTANT_KEYS and call_message["stopReason"] == "toolUse"
    assert call_message["content"][0] == {"type": "text", "text": "I'll write it."}
    call = call_message["content"][1]
    assert list(call) == ["type", "id", "name", "arguments"]
    assert call == {"type": "toolCall", "id": "toolu_06", "name": "write",
                    "arguments": {"path": "notes/todo.md", "content": "- add tests\n"}}
    assert list(result) == RESULT_KEYS
    assert result["toolCallId"] == "toolu_06" and result["toolName"] == "write" and result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "Successfully wrote 12 bytes to notes/todo.md"}]
    assert answer["content"] == [{"type": "text", "text": "Written."}]

    # The first request offered pi's default tools with pi's prompt section; the second carried the result.
    first = fake_anthropic.requests[0].json
    assert [t["name"] for t in first["tools"]] == ["read", "bash", "edit", "write"]
    system = "".join(block["text"] for block in first["system"])
    assert "Available tools:\n- read: Read file contents" in system
    assert f"Current working directory: {folder}" in system
    sent = tool_results_sent(fake_anthropic, 1)
    assert sent[0]["tool_use_id"] == "toolu_06" and sent[0]["is_error"] is False
    assert fake_anthropic.requests[1].json["messages"][-2]["content"][-1]["type"] == "tool_use"

    kinds = [type(e).__name__ for e in events if isinstance(e, (ToolCallsStarted, ToolResultAppended, ToolCallsFinished))]
    assert kinds == ["ToolCallsStarted", "ToolResultAppended", "ToolCallsFinished"]
    started = next(e for e in events if isinstance(e, ToolCallsStarted))
    assert started.entry_id == entries[1]["id"] and started.calls == (call,)
    report = build_report(agent.session.session_file or "")
    assert "error" not in report["open"]


@pytest.mark.asyncio
async def test_denied_write_writes_nothing_and_the_model_goes_on(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(
        fa.tool_use("write", {"path": "x.txt", "content": "no"}, tool_id="toolu_w"),
        fa.text("Understood, I won't."),
    )
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    agent.approver = Approver(ApprovalDecision.DENY)
    reply = await agent.prompt("Write x")
    assert reply is not None and reply["content"] == [{"type": "text", "text": "Understood, I won't."}]
    assert not (folder / "x.txt").exists()
    entries = messages(agent)
    assert [e["message"]["role"] for e in entries] == ["user", "assistant", "toolResult", "assistant"]
    result = entries[2]["message"]
    assert list(result) == ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]
    assert result["isError"] is True and result["details"] == {}
    assert result["content"] == [{"type": "text", "text": DENIED}]
    sent = tool_results_sent(fake_anthropic, 1)
    assert sent[0]["is_error"] is True and DENIED in json.dumps(sent[0]["content"])


@pytest.mark.asyncio
async def test_no_approver_denies_with_the_ask_text(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": "touch made"}, tool_id="toolu_b"), fa.text("ok"))
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    await agent.prompt("Touch it")
    assert not (folder / "made").exists()
    result = messages(agent)[2]["message"]
    assert result["isError"] is True and "arbor ask --yes" in result["content"][0]["text"]


@pytest.mark.asyncio
async def test_edit_with_several_edits_and_a_non_unique_match(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "app.py").write_text("a = 1\nb = 2\na = 1\n")
    (folder / "ok.py").write_text("x = 1\ny = 2\nz = 3\n")
    fake_anthropic.enqueue(
        fa.tool_use("edit", {"path": "app.py", "edits": [{"oldText": "b = 2", "newText": "b = 3"},
                                                         {"oldText": "a = 1", "newText": "a = 0"}]}, tool_id="toolu_e1"),
        fa.tool_use("edit", {"path": "ok.py", "edits": [{"oldText": "x = 1", "newText": "x = 10"},
                                                        {"oldText": "z = 3", "newText": "z = 30"}]}, tool_id="toolu_e2"),
        fa.text("Done."),
    )
    agent = make_agent(folder, fake_anthropic)
    approver = Approver(ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_ONCE)
    agent.approver = approver
    await agent.prompt("Edit both")
    refused = (
        "Found 2 occurrences of edits[1] in app.py. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )
    first, second = approver.seen
    assert isinstance(first, EditApproval) and first.error == refused and first.diff is None
    assert isinstance(second, EditApproval) and second.diff is not None and "-3 z = 3\n+3 z = 30" in second.diff
    assert (folder / "app.py").read_text() == "a = 1\nb = 2\na = 1\n"
    assert (folder / "ok.py").read_text() == "x = 10\ny = 2\nz = 30\n"
    results = [e["message"] for e in messages(agent) if e["message"]["role"] == "toolResult"]
    assert results[0]["isError"] is True and results[0]["content"][0]["text"] == refused
    assert results[1]["isError"] is False
    assert results[1]["content"][0]["text"] == "Successfully replaced 2 block(s) in ok.py."
    assert list(results[1]) == ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]
    assert results[1]["details"]["firstChangedLine"] == 1 and results[1]["details"]["diff"] == second.diff


@pytest.mark.asyncio
async def test_esc_during_bash_kills_it_and_appends_the_aborted_result(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "project"
    command = "echo $$ > pid; echo started; sleep 30; echo never"
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": command}, tool_id="toolu_bash"))
    agent = make_agent(folder, fake_anthropic)
    agent.approver = Approver(ApprovalDecision.ALLOW_ONCE)
    events = record(agent)
    started = asyncio.Event()

    def on_update(event: AgentEvent) -> None:
        if isinstance(event, ToolUpdated) and "started" in event.update.text:
            started.set()

    agent.subscribe(on_update)
    turn = asyncio.ensure_future(agent.prompt("Run it"))
    await asyncio.wait_for(started.wait(), 20)
    agent.abort()
    reply = await asyncio.wait_for(turn, 20)

    pid = int((folder / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the shell is gone (killed and reaped), not left running
    assert reply is not None and reply["stopReason"] == "aborted" and reply["content"] == []
    entries = messages(agent)
    assert [e["message"]["role"] for e in entries] == ["user", "assistant", "toolResult", "assistant"]
    assert_chain(entries, file_entries(agent))
    result = entries[2]["message"]
    assert result["isError"] is True and result["content"] == [{"type": "text", "text": "started\n\n\nCommand aborted"}]
    assert entries[3]["message"]["errorMessage"] == "Request was aborted"
    assert len(fake_anthropic.requests) == 1  # nothing more was sent after Esc
    assert [e.aborted for e in events if isinstance(e, ToolCallsFinished)] == [True]


@pytest.mark.asyncio
async def test_esc_while_the_card_is_open_answers_it_as_aborted(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.enqueue(fa.tool_use("write", {"path": "a.txt", "content": "x"}, tool_id="toolu_card"))
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    shown = asyncio.Event()

    async def never_answers(request: ApprovalRequest) -> ApprovalDecision:
        shown.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    agent.approver = never_answers
    turn = asyncio.ensure_future(agent.prompt("Write a"))
    await asyncio.wait_for(shown.wait(), 20)
    agent.abort()
    await asyncio.wait_for(turn, 20)
    assert not (folder / "a.txt").exists()
    roles = [e["message"]["role"] for e in messages(agent)]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert messages(agent)[2]["message"]["content"][0]["text"] == "Operation aborted"


@pytest.mark.asyncio
async def test_bash_timeout_is_reported_as_pi(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": "sleep 10", "timeout": 0.2}, tool_id="toolu_t"), fa.text("slow"))
    agent = make_agent(tmp_path / "project", fake_anthropic)
    approver = Approver(ApprovalDecision.ALLOW_ONCE)
    agent.approver = approver
    await agent.prompt("Wait")
    card = approver.seen[0]
    assert isinstance(card, BashApproval) and card.command == "sleep 10" and card.timeout == 0.2
    assert card.cwd == str(tmp_path / "project")
    result = messages(agent)[2]["message"]
    assert result["isError"] and result["content"][0]["text"] == "Command timed out after 0.2 seconds"


@pytest.mark.asyncio
async def test_reading_tools_run_without_asking_and_read_truncates_as_pi(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 2501)))
    fake_anthropic.enqueue(fa.tool_use("read", {"path": "big.txt"}, tool_id="toolu_r"), fa.text("Long file."))
    agent = make_agent(folder, fake_anthropic)
    approver = Approver()
    agent.approver = approver
    await agent.prompt("Read big.txt")
    assert approver.seen == []
    result = messages(agent)[2]["message"]
    text = result["content"][0]["text"]
    assert result["isError"] is False and text.startswith("line 1\n")
    assert text.endswith("line 2000\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]")
    assert result["details"]["truncation"]["truncatedBy"] == "lines"


@pytest.mark.asyncio
async def test_parallel_calls_are_appended_in_call_order(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(
        fa.tool_uses(("toolu_slow", "bash", {"command": "sleep 0.4; echo slow"}),
                     ("toolu_fast", "bash", {"command": "echo fast"}),
                     ("toolu_ls", "ls", {})),
        fa.text("Both ran."),
    )
    folder = tmp_path / "project"
    settings = fast_settings()
    settings.tools.enabled = ("read", "bash", "ls")
    agent = make_agent(folder, fake_anthropic, settings)
    approver = Approver(ApprovalDecision.ALLOW_ALWAYS)
    agent.approver = approver
    events = record(agent)
    await agent.prompt("Run both")
    assert len(approver.seen) == 1  # "Allow always" covered the second bash call
    assert agent.approvals.always == frozenset({"bash"})
    results = [e["message"] for e in messages(agent) if e["message"]["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["toolu_slow", "toolu_fast", "toolu_ls"]
    assert [r["content"][0]["text"] for r in results[:2]] == ["slow\n", "fast\n"]
    appended = [e.message["toolCallId"] for e in events if isinstance(e, ToolResultAppended)]
    assert appended == ["toolu_slow", "toolu_fast", "toolu_ls"]
    assert [b["tool_use_id"] for b in tool_results_sent(fake_anthropic, 1)] == ["toolu_slow", "toolu_fast", "toolu_ls"]
    assert [t["name"] for t in fake_anthropic.requests[0].json["tools"]] == ["read", "bash", "ls"]
    assert_chain(messages(agent), file_entries(agent))


@pytest.mark.asyncio
async def test_a_path_outside_the_folder_is_refused_unless_allowed(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "project"
    outside = tmp_path / "outside.txt"
    fake_anthropic.enqueue(fa.tool_use("write", {"path": "../outside.txt", "content": "out"}), fa.text("no"))
    agent = make_agent(folder, fake_anthropic)
    agent.approve_all = True
    agent.approvals = agent._new_approvals()
    await agent.prompt("Write outside")
    assert not outside.exists()
    text = messages(agent)[2]["message"]["content"][0]["text"]
    assert text.startswith(f"Path is outside the working folder: {outside} (working folder: {folder}).")

    settings = fast_settings()
    settings.tools.allow_outside_folder = True
    fake_anthropic.enqueue(fa.tool_use("write", {"path": "../outside.txt", "content": "out"}), fa.text("yes"))
    allowed = make_agent(tmp_path / "project", fake_anthropic, settings)
    allowed.approver = Approver(ApprovalDecision.ALLOW_ONCE)
    await allowed.prompt("Write outside")
    assert outside.read_text() == "out"


@pytest.mark.asyncio
async def test_a_result_stays_under_its_call_while_another_process_appends(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    from .test_turn_robustness import PI_STYLE_WRITER

    fake_anthropic.enqueue(fa.tool_use("write", {"path": "f.txt", "content": "1"}, tool_id="toolu_x"), fa.text("done"))
    agent = make_agent(tmp_path / "project", fake_anthropic)
    session_file = ""

    async def approve_while_another_writer_appends(request: ApprovalRequest) -> ApprovalDecision:
        parent = agent.session.leaf_id or ""
        subprocess.run([sys.executable, "-c", PI_STYLE_WRITER, session_file, parent, "0ther001"], check=True)
        return ApprovalDecision.ALLOW_ONCE

    agent.approver = approve_while_another_writer_appends
    agent.session.append_model_change("anthropic", "claude-sonnet-4-5")
    agent.session.sync()
    session_file = agent.session.session_file or ""
    await agent.prompt("Write f")
    by_id = {e["id"]: e for e in file_entries(agent) if e["type"] == "message"}
    call = next(e for e in by_id.values() if e["message"].get("stopReason") == "toolUse")
    result = next(e for e in by_id.values() if e["message"]["role"] == "toolResult")
    answer = next(e for e in by_id.values() if e["message"].get("content") == [{"type": "text", "text": "done"}])
    every = file_entries(agent)
    # the other writer's entry is kept, beside the result
    assert parent_message_id(by_id["0ther001"], every) == call["id"]
    assert parent_message_id(result, every) == call["id"] and parent_message_id(answer, every) == result["id"]


@pytest.mark.asyncio
async def test_approvals_last_one_session_unless_a_setting_keeps_them(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": "true"}), fa.text("ok"))
    settings = fast_settings()
    settings.path = tmp_path / "settings.json"
    agent = make_agent(tmp_path / "project", fake_anthropic, settings)
    agent.approver = Approver(ApprovalDecision.ALLOW_ALWAYS)
    await agent.prompt("Run")
    assert agent.approvals.is_preapproved("bash")
    agent.new_session()
    assert not agent.approvals.is_preapproved("bash")
    assert not settings.path.exists()  # nothing persisted

    settings.tools.remember_approvals = True
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": "true"}), fa.text("ok"))
    agent.approver = Approver(ApprovalDecision.ALLOW_ALWAYS)
    await agent.prompt("Run again")
    assert json.loads(settings.path.read_text())["tools"]["alwaysAllow"] == ["bash"]
    agent.new_session()
    assert agent.approvals.is_preapproved("bash")  # the setting now allows it in every session


@pytest.mark.asyncio
async def test_a_missing_folder_is_reported_and_can_be_replaced(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.enqueue(fa.tool_use("read", {"path": "a.txt"}), fa.text("missing"))
    manager = SessionManager.create(str(tmp_path / "gone"), tmp_path / "sessions", fsync=False)
    agent = AgentSession(manager, anthropic(fake_anthropic.base_url), fast_settings())
    events = record(agent)
    await agent.prompt("Read a")
    assert [e.cwd for e in events if isinstance(e, WorkingFolderMissing)] == [str(tmp_path / "gone")]
    assert [e["message"]["role"] for e in messages(agent)] == ["system", "user", "assistant", "toolResult", "assistant"]
    text = messages(agent)[3]["message"]["content"][0]["text"]
    assert text.startswith(f"Working directory does not exist: {tmp_path / 'gone'}")

    assert agent.working_folder_missing
    here = tmp_path / "here"
    here.mkdir()
    (here / "a.txt").write_text("found")
    agent.use_working_folder(str(here))
    assert not agent.working_folder_missing and agent.working_folder == str(here)
    fake_anthropic.enqueue(fa.tool_use("read", {"path": "a.txt"}), fa.text("found it"))
    events.clear()
    await agent.prompt("Read a again")
    assert not any(isinstance(e, WorkingFolderMissing) for e in events)
    assert messages(agent)[-2]["message"]["content"] == [{"type": "text", "text": "found"}]
    # pi 1.6.0 (the default): the prompt names the folder tools run in, so the change is recorded
    update = messages(agent)[-5]["message"]
    assert update["role"] == "system" and list(update["sections"]) == ["environment"]
    assert update["sections"]["environment"].endswith(f"Current working directory: {here}")
    assert agent.session.get_header()["cwd"] == str(tmp_path / "gone")  # the header is not rewritten
    with pytest.raises(ValueError):
        agent.use_working_folder(str(tmp_path / "nope"))


@pytest.mark.asyncio
async def test_no_tools_setting_sends_no_tools(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.text("plain"))
    settings = fast_settings()
    settings.tools.enabled = ()
    agent = make_agent(tmp_path / "project", fake_anthropic, settings)
    await agent.prompt("Hi")
    body = fake_anthropic.last_request.json
    assert "tools" not in body
    assert "Available tools" not in "".join(block["text"] for block in body["system"])


def _ask(folder: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["ARBOR_HOME"] = str(home)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return run_arbor(["ask", *args], cwd=folder, env=env)


@pytest.mark.parametrize("yes", [False, True], ids=["without-yes", "with-yes"])
def test_ask_yes_allows_and_plain_ask_denies(tmp_path: Path, yes: bool) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    session = tmp_path / "ask.jsonl"
    flags = ["--yes"] if yes else []
    done = _ask(folder, tmp_path / "home", "--session", str(session), *flags, "write note.txt\nhello from ask")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "[tool: write" in done.stderr
    entries = SessionManager.open(session).get_entries()
    result = next(e["message"] for e in entries if e.get("message", {}).get("role") == "toolResult")
    assert done.stdout.startswith("Offline model: calling the write tool.\n\n(Offline model")
    if yes:
        assert (folder / "note.txt").read_text() == "hello from ask"
        assert result["isError"] is False and "denied" not in done.stderr
    else:
        assert not (folder / "note.txt").exists()
        assert result["isError"] is True and "--yes" in result["content"][0]["text"]
        assert "[denied: Denied: `arbor ask` runs without --yes" in done.stderr
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]  # pi 1.6.0, the default
    inspected = arbor_in_process("inspect", str(session))
    assert inspected.returncode == 0, inspected.stderr



@pytest.mark.asyncio
async def test_the_offline_model_runs_the_loop_without_a_key(tmp_path: Path) -> None:
    from desktop_app.llm.offline import OfflineProvider

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "hello.txt").write_text("Hello, tools!\n")
    manager = SessionManager.create(str(folder), tmp_path / "sessions", fsync=False)
    agent = AgentSession(manager, OfflineProvider(chunk_chars=5), fast_settings())
    events = record(agent)
    reply = await agent.prompt("read hello.txt")
    assert reply is not None and reply["stopReason"] == "stop"
    entries = messages(agent)
    # pi 1.6.0 (the default) records the prompt first; the turn follows it
    assert [e["message"]["role"] for e in entries] == ["system", "user", "assistant", "toolResult", "assistant"]
    assert_chain(entries, file_entries(agent))
    call = entries[2]["message"]["content"][-1]
    assert call["name"] == "read" and call["arguments"] == {"path": "hello.txt"}
    assert entries[3]["message"]["content"] == [{"type": "text", "text": "Hello, tools!\n"}]
    assert "The read tool returned (2 lines, 14 characters):\n\n> Hello, tools!\n> " in (
        entries[4]["message"]["content"][0]["text"]
    )
    assert any(isinstance(e, ToolCallsFinished) and not e.aborted for e in events)

    # write asks: denied without an approver, so nothing is written
    await agent.prompt("write out.txt\nsome text")
    assert not (folder / "out.txt").exists()
    agent.approver = Approver(ApprovalDecision.ALLOW_ONCE)
    await agent.prompt("write out.txt\nsome text")
    assert (folder / "out.txt").read_text() == "some text"


@pytest.mark.asyncio
async def test_a_retry_after_a_tool_batch_stays_in_the_turn(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("A")
    fake_anthropic.enqueue(fa.tool_use("read", {"path": "a.txt"}, tool_id="toolu_a"), fa.overloaded(), fa.text("It says A."))
    agent = make_agent(folder, fake_anthropic)
    reply = await agent.prompt("Read a")
    assert reply is not None and reply["content"] == [{"type": "text", "text": "It says A."}]
    entries = messages(agent)
    assert [e["message"]["role"] + ("!" if e["message"].get("stopReason") == "error" else "") for e in entries] == [
        "user", "assistant", "toolResult", "assistant!", "assistant"]
    assert_chain(entries, file_entries(agent))  # the failed attempt is the result's child, its retry the failure's child
    retried = fake_anthropic.requests[2].json["messages"]
    assert [m["role"] for m in retried] == ["user", "assistant", "user"]  # the failure is not sent again
    assert retried[-1]["content"][0]["type"] == "tool_result"


@pytest.mark.asyncio
async def test_an_overflow_after_a_tool_batch_compacts_and_retries(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("A")
    fake_anthropic.enqueue(
        fa.tool_use("read", {"path": "a.txt"}, tool_id="toolu_a"),
        fa.prompt_too_long(),
        fa.text("## Goal\nsummary"),
        fa.text("Fits now."),
    )
    agent = make_agent(folder, fake_anthropic)
    reply = await agent.prompt("Read a")
    assert reply is not None and reply["content"] == [{"type": "text", "text": "Fits now."}]
    types = [e["type"] if e["type"] != "message" else e["message"]["role"] for e in file_entries(agent)]
    assert types[-6:] == ["user", "assistant", "toolResult", "assistant", "compaction", "assistant"]
    assert len(fake_anthropic.requests) == 4
