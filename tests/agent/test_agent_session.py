"""AgentSession through the real Anthropic SDK against the fake server: what is sent, what is written."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import (
    AgentError,
    AgentEvent,
    AgentSession,
    BranchSummaryStarted,
    RetryScheduled,
    StreamUpdated,
    TurnStarted,
)
from desktop_app.agent.session import OVERFLOW_RECOVERY_FAILED
from desktop_app.compaction.prompts import BRANCH_SUMMARY_PREAMBLE
from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.protocol import TextDelta
from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1
from desktop_app.settings import Settings
from tests.agent.conftest import OPEN_PROVIDERS
from tests.arbor_process import run_arbor, start_arbor
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

KEY = "sk-ant-api03-AGENTTEST-0123456789abcdefSECRET"
ROOT = Path(__file__).resolve().parents[2]


def fast_settings() -> Settings:
    settings = Settings()
    settings.retry.base_delay_ms = 1
    settings.retry.max_retry_delay_ms = 50
    return settings


def anthropic(base_url: str, model_id: str = "claude-sonnet-4-5") -> AnthropicProvider:
    provider = AnthropicProvider(api_key=KEY, base_url=base_url, model_id=model_id)
    OPEN_PROVIDERS.append(provider)
    return provider


def make_agent(tmp_path: Path, server: FakeAnthropicServer, settings: Settings | None = None) -> AgentSession:
    manager = SessionManager.create("/project", tmp_path, fsync=False, profile=PI_0_73_1)  # pi 0.73.1's answers
    return AgentSession(manager, anthropic(server.base_url), settings or fast_settings())


def file_entries(agent: AgentSession) -> list[dict[str, Any]]:
    text = Path(agent.session.session_file or "").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def is_text_delta(event: AgentEvent) -> bool:
    return isinstance(event, StreamUpdated) and isinstance(event.event, TextDelta)


def roles(entries: list[dict[str, Any]]) -> list[str]:
    return [e["message"]["role"] + ("!" if e["message"].get("stopReason") in ("error", "aborted") else "")
            if e["type"] == "message" else e["type"] for e in entries]


@pytest.mark.asyncio
async def test_plain_turn_persists_user_first_then_reply(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.text("Hello there, human.", chunk=4))
    agent = make_agent(tmp_path, fake_anthropic)
    seen: list[AgentEvent] = []
    user_on_disk: list[bool] = []

    def watch(event: AgentEvent) -> None:
        seen.append(event)
        if isinstance(event, TurnStarted):  # the request has not gone out yet
            user_on_disk.append(any(e.get("message", {}).get("role") == "user" for e in file_entries(agent)))

    agent.subscribe(watch)
    reply = await agent.prompt("Hi!")
    assert reply is not None and reply["stopReason"] == "stop"
    assert user_on_disk == [True]
    assert "".join(e.event.text for e in seen if isinstance(e, StreamUpdated) and isinstance(e.event, TextDelta)) == "Hello there, human."
    final = [e.partial for e in seen if isinstance(e, StreamUpdated)][-1]
    assert final == reply  # the last partial is the final message
    entries = file_entries(agent)
    assert roles(entries) == ["session", "model_change", "thinking_level_change", "user", "assistant"]
    assistant = entries[-1]["message"]
    assert assistant["api"] == "anthropic-messages" and assistant["provider"] == "anthropic"
    assert assistant["usage"]["totalTokens"] > 0 and assistant["usage"]["cost"]["total"] > 0
    body = fake_anthropic.last_request.json
    assert body["model"] == "claude-sonnet-4-5" and body["stream"] is True
    assert body["messages"][-1]["role"] == "user"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.asyncio
async def test_thinking_is_streamed_and_kept_with_signature(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.thinking())
    agent = make_agent(tmp_path, fake_anthropic)
    agent.set_thinking_level("high")
    kinds: list[str] = []
    agent.subscribe(lambda e: kinds.append(type(e.event).__name__) if isinstance(e, StreamUpdated) else None)
    await agent.prompt("Think first")
    blocks = file_entries(agent)[-1]["message"]["content"]
    assert blocks[0]["type"] == "thinking" and blocks[0].get("thinkingSignature")
    assert "ThinkingDelta" in kinds and "TextDelta" in kinds
    assert fake_anthropic.last_request.json["thinking"]["type"] == "enabled"


@pytest.mark.asyncio
async def test_overloaded_then_success_retries_as_a_child(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.overloaded(), fa.text("Recovered."))
    agent = make_agent(tmp_path, fake_anthropic)
    retries: list[RetryScheduled] = []
    agent.subscribe(lambda e: retries.append(e) if isinstance(e, RetryScheduled) else None)
    reply = await agent.prompt("Hello")
    assert reply is not None and reply["stopReason"] == "stop"
    entries = file_entries(agent)
    assert roles(entries)[-3:] == ["user", "assistant!", "assistant"]
    error, ok = entries[-2], entries[-1]
    assert ok["parentId"] == error["id"]  # the retry is the error's child, as pi writes it
    assert "529" in error["message"]["errorMessage"]
    assert len(retries) == 1 and retries[0].attempt == 1
    # the retried request does not carry the failed attempt (pi drops error assistants)
    assert [m["role"] for m in fake_anthropic.requests[-1].json["messages"]] == ["user"]


@pytest.mark.asyncio
async def test_backoff_doubles_and_honours_retry_after(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.api_error(), fa.rate_limited(retry_after=0.03), fa.api_error(), fa.api_error())
    settings = fast_settings()
    settings.retry.base_delay_ms = 2
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    manager = SessionManager.create("/project", tmp_path, fsync=False)
    agent = AgentSession(manager, anthropic(fake_anthropic.base_url), settings, sleep=fake_sleep)
    errors: list[str] = []
    agent.subscribe(lambda e: errors.append(e.message) if isinstance(e, AgentError) else None)
    reply = await agent.prompt("Hello")
    assert reply is not None and reply["stopReason"] == "error"
    assert delays == [0.002, 0.03, 0.008]  # 2 ms, then the server's 30 ms, then 8 ms; then give up
    assert roles(file_entries(agent))[-5:] == ["user", "assistant!", "assistant!", "assistant!", "assistant!"]
    assert errors and "500" in errors[-1]


@pytest.mark.asyncio
async def test_unauthorized_is_not_retried_and_hides_the_key(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_anthropic.enqueue(fa.unauthorized())
    agent = make_agent(tmp_path, fake_anthropic)
    errors: list[str] = []
    agent.subscribe(lambda e: errors.append(e.message) if isinstance(e, AgentError) else None)
    await agent.prompt("Hello")
    assert len(fake_anthropic.requests) == 1
    assert errors and "401" in errors[0]
    everything = "\n".join(
        [r.non_auth_text() for r in fake_anthropic.requests]
        + [Path(agent.session.session_file or "").read_text(encoding="utf-8"), caplog.text, *errors]
    )
    assert KEY not in everything


@pytest.mark.asyncio
async def test_overflow_compacts_once_and_retries(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.prompt_too_long(), fa.text("## Goal\nsummary"), fa.text("Now it fits."))
    agent = make_agent(tmp_path, fake_anthropic)
    reply = await agent.prompt("A long question")
    assert reply is not None and reply["stopReason"] == "stop"
    entries = file_entries(agent)
    assert roles(entries)[-4:] == ["user", "assistant!", "compaction", "assistant"]
    assert entries[-2]["parentId"] == entries[-3]["id"]  # the compaction is the error's child
    assert sum(1 for e in entries if e["type"] == "compaction") == 1
    summary_request = fake_anthropic.requests[1].json
    assert "<conversation>" in summary_request["messages"][0]["content"][0]["text"]


@pytest.mark.asyncio
async def test_second_overflow_gives_pis_error_and_no_loop(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.prompt_too_long(), fa.text("summary"), fa.prompt_too_long())
    agent = make_agent(tmp_path, fake_anthropic)
    errors: list[str] = []
    agent.subscribe(lambda e: errors.append(e.message) if isinstance(e, AgentError) else None)
    reply = await agent.prompt("Still too long")
    assert reply is not None and reply["stopReason"] == "error"
    assert errors == [OVERFLOW_RECOVERY_FAILED]
    assert len(fake_anthropic.requests) == 3
    assert sum(1 for e in file_entries(agent) if e["type"] == "compaction") == 1


@pytest.mark.asyncio
@pytest.mark.parametrize(("input_tokens", "compacts"), [(183_000, False), (184_000, True)])
async def test_threshold_compaction_fires_only_above_window_minus_reserve(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, input_tokens: int, compacts: bool
) -> None:
    # 200,000 window − 16,384 reserve = 183,616; output adds 12 tokens
    fake_anthropic.enqueue(fa.text("big", usage=fa.Usage(input=input_tokens, output=12)))
    if compacts:
        fake_anthropic.enqueue(fa.text("## Goal\nsummary"))
    agent = make_agent(tmp_path, fake_anthropic)
    kinds: list[str] = []
    agent.subscribe(lambda e: kinds.append(type(e).__name__))
    await agent.prompt("Hello")
    has_compaction = any(e["type"] == "compaction" for e in file_entries(agent))
    assert has_compaction is compacts
    assert ("CompactionFinished" in kinds) is compacts
    assert agent.context_usage().tokens == (None if compacts else input_tokens + 12)


@pytest.mark.asyncio
async def test_abort_mid_stream_keeps_partial_reply(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.never_ending(first_text="Partial answer"), fa.text("Still here."))
    agent = make_agent(tmp_path, fake_anthropic)
    first_delta = asyncio.Event()
    agent.subscribe(lambda e: first_delta.set() if is_text_delta(e) else None)
    turn = asyncio.create_task(agent.prompt("Go on forever"))
    await asyncio.wait_for(first_delta.wait(), 10)
    agent.abort()
    reply = await asyncio.wait_for(turn, 10)
    assert reply is not None and reply["stopReason"] == "aborted"
    last = file_entries(agent)[-1]["message"]
    assert last["stopReason"] == "aborted" and last["content"][0]["text"].startswith("Partial answer")
    assert await agent.prompt("Are you still there?") is not None  # usable afterwards
    assert file_entries(agent)[-1]["message"]["content"][0]["text"] == "Still here."


@pytest.mark.asyncio
async def test_manual_compact_refusals_match_pi(tmp_path: Path) -> None:
    agent = AgentSession(SessionManager.in_memory("/p", profile=PI_0_73_1), OfflineProvider(), fast_settings())
    await agent.prompt("hello")
    entry_id = await agent.compact()  # pi 0.73.1 compacts even this (1.6.0: nothing to summarize)
    assert agent.session.get_entry(entry_id)["type"] == "compaction"
    assert agent.context_usage().tokens is None  # "?" right after a compaction, as pi
    with pytest.raises(Exception, match="Already compacted"):
        await agent.compact()


@pytest.mark.asyncio
async def test_meter_reads_from_the_last_compaction_on_the_path() -> None:
    agent = AgentSession(SessionManager.in_memory("/p", profile=PI_0_73_1), OfflineProvider(), fast_settings())
    await agent.prompt("hello")
    first = agent.session.leaf_id
    await agent.compact()
    await agent.prompt("and again")  # a reply after the first compaction reports usage
    assert agent.context_usage().tokens is not None
    agent.session.append_compaction("Second summary.", agent.session.leaf_id, 100)
    assert agent.context_usage().tokens is None  # the newest compaction counts, not the first
    await agent.navigate_tree(first)  # above both compactions: counted again
    assert agent.context_usage().tokens is not None


@pytest.mark.asyncio
async def test_no_fsync_on_the_event_loop_thread_during_a_turn_with_tools_and_a_compaction(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An fsync takes 20-100 ms: on the UI thread it froze the window as a reply, a tool result or
    # a compaction landed. They are written at once and made durable on a worker thread.
    import threading

    loop_thread = threading.get_ident()
    threads: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (threads.append(threading.get_ident()), real(fd))[1])
    fake_anthropic.enqueue(fa.tool_use(), fa.text("Read it."), fa.text("Summary of the work."))
    manager = SessionManager.create("/project", tmp_path, fsync=True, profile=PI_0_73_1)
    agent = AgentSession(manager, anthropic(fake_anthropic.base_url), fast_settings())
    await agent.prompt("Go")
    await agent.compact()
    await asyncio.sleep(0.2)  # the last background fsync
    assert roles(file_entries(agent))[-5:] == ["user", "assistant", "toolResult", "assistant", "compaction"]
    # Writes that land while a background fsync runs share the next one (coalesced), so how many
    # fsyncs there are depends on the machine's speed; where they ran does not.
    assert threads and loop_thread not in threads
    manager.sync()
    assert manager._store is not None and not manager._store.unsynced


@pytest.mark.asyncio
async def test_navigate_tree_with_and_without_summary(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", tmp_path, fsync=False, profile=PI_0_73_1)  # 0.73.1's fromId
    agent = AgentSession(manager, OfflineProvider(), fast_settings())
    await agent.prompt("first question")
    first_user = next(e for e in manager.get_entries() if e.get("message", {}).get("role") == "user")
    await agent.prompt("second question about src/app.py")
    old_leaf = manager.leaf_id
    count = len(manager.get_entries())

    plain = await agent.navigate_tree(first_user["id"])
    assert plain.editor_text == "first question" and len(manager.get_entries()) == count  # nothing written
    assert manager.leaf_id == first_user["parentId"]

    manager.branch(old_leaf or "")
    result = await agent.navigate_tree(first_user["id"], summarize=True, label="retry here")
    summary = manager.get_entry(result.summary_entry_id or "")
    assert summary is not None and summary["type"] == "branch_summary"
    assert summary["parentId"] == first_user["parentId"] and summary["fromId"] == first_user["parentId"]
    assert summary["summary"].startswith(BRANCH_SUMMARY_PREAMBLE)
    assert summary["details"]["abandonedLeafId"] == old_leaf and summary["fromHook"] is False
    assert manager.get_entry(manager.leaf_id or "")["type"] == "label"


@pytest.mark.asyncio
async def test_cancelling_a_branch_summary_writes_nothing(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", tmp_path, fsync=False)
    agent = AgentSession(manager, OfflineProvider(), fast_settings())
    await agent.prompt("one")
    target = manager.get_entries()[0]["id"]
    await agent.prompt("two")
    agent.provider = OfflineProvider(chunk_chars=1, delay=0.01)
    before = Path(manager.session_file or "").read_bytes()
    leaf = manager.leaf_id
    started = asyncio.Event()
    agent.subscribe(lambda e: started.set() if isinstance(e, BranchSummaryStarted) else None)
    task = asyncio.create_task(agent.navigate_tree(target, summarize=True))
    await asyncio.wait_for(started.wait(), 5)
    await asyncio.sleep(0.05)
    agent.abort()
    result = await task
    assert result.cancelled and result.aborted
    assert Path(manager.session_file or "").read_bytes() == before and manager.leaf_id == leaf


@pytest.mark.asyncio
async def test_model_and_thinking_entries_only_on_change(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    agent = make_agent(tmp_path, fake_anthropic)
    fake_anthropic.enqueue(fa.text("ok"))
    await agent.prompt("hi")
    count = len(agent.session.get_entries())
    assert agent.set_thinking_level(agent.thinking_level) is False
    assert agent.set_model(anthropic(fake_anthropic.base_url)) is False
    assert len(agent.session.get_entries()) == count
    assert agent.set_thinking_level("low") is True
    assert agent.set_model(anthropic(fake_anthropic.base_url, "claude-haiku-4-5"))
    assert [e["type"] for e in agent.session.get_entries()[count:]] == ["thinking_level_change", "model_change"]


def test_fork_copies_path_before_user_message(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = SessionManager.create("/p", tmp_path, fsync=False)
        agent = AgentSession(manager, OfflineProvider(), fast_settings())
        await agent.prompt("one")
        await agent.prompt("two")
        second_user = [e for e in manager.get_entries() if e.get("message", {}).get("role") == "user"][1]
        old_file = manager.session_file
        result = agent.fork(second_user["id"])
        assert result.editor_text == "two" and result.session_file != old_file
        assert agent.session.session_file == result.session_file
        assert agent.session.leaf_id == second_user["parentId"]
        with pytest.raises(ValueError, match="Invalid entry ID for forking"):
            agent.fork(agent.session.leaf_id or "")

    asyncio.run(scenario())


def test_sigkill_mid_stream_leaves_a_valid_file(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01))
    session = tmp_path / "crash.jsonl"
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ARBOR_HOME": str(tmp_path / "home")}
    proc = start_arbor(["ask", "--session", str(session), "--base-url", fake_anthropic.base_url, "A long turn please"],
                       cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while not fake_anthropic.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)  # let some deltas stream
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    reopened = SessionManager.open(session)
    assert not reopened.read_only and reopened.report.malformed_lines == []
    messages = [e["message"] for e in reopened.get_entries() if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["system", "user"]  # pi 1.6.0 (the default) records the prompt first
    assert messages[1]["content"][0]["text"] == "A long turn please"
    reopened.append_message({"role": "user", "content": "after the crash", "timestamp": 1})
    assert SessionManager.open(session).get_entries()[-1]["message"]["content"] == "after the crash"


def test_ask_offline_and_against_the_fake_server(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    session = tmp_path / "ask.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["ARBOR_HOME"] = str(tmp_path / "home")
    offline = run_arbor(["ask", "--session", str(session), "Hello offline"], cwd=ROOT, env=env)
    assert offline.returncode == 0, offline.stderr
    assert "Hello offline" in offline.stdout and "Traceback" not in offline.stderr
    fake_anthropic.enqueue(fa.text("Answer from the fake server."))
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / "settings.json").write_text('{"retry": {"baseDelayMs": 1}}')
    online = run_arbor(["ask", "--session", str(session), "--base-url", fake_anthropic.base_url, "Hello online"],
                       cwd=ROOT, env={**env, "ANTHROPIC_API_KEY": KEY})
    assert online.returncode == 0, online.stderr
    assert "Answer from the fake server." in online.stdout
    assert KEY not in online.stdout + online.stderr
    entries = SessionManager.open(session).get_entries()
    # pi 1.6.0 (the default) records the prompt before the first message; the second run's prompt and
    # tools are the same (same folder, same tools), so it records nothing more
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert fake_anthropic.last_request.json["messages"][0]["content"][0]["text"] == "Hello offline"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("scenarios", "expected_roles", "last_stop"),
    [
        ([fa.tool_use(), fa.text("Read it.")], ["user", "assistant", "toolResult", "assistant"], "stop"),
        ([fa.slow_text("slow and steady", delay=0.01)], ["user", "assistant"], "stop"),
        ([fa.drop_mid_stream(), fa.text("second try")], ["user", "assistant!", "assistant"], "stop"),
        ([fa.malformed_sse()], ["user", "assistant!"], "error"),  # not a transient failure: no retry
        ([fa.sse_error(), fa.text("second try")], ["user", "assistant!", "assistant"], "stop"),
    ],
    ids=["tool-use", "slow", "dropped-connection", "malformed-sse", "overloaded-mid-stream"],
)
async def test_every_stream_shape_lands_in_the_file(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, scenarios: list[Any], expected_roles: list[str], last_stop: str
) -> None:
    fake_anthropic.enqueue(*scenarios)
    agent = make_agent(tmp_path, fake_anthropic)
    reply = await agent.prompt("Go")
    assert reply is not None and reply["stopReason"] == last_stop
    entries = file_entries(agent)
    assert roles(entries)[-len(expected_roles):] == expected_roles
    if last_stop == "error":
        assert "Traceback" not in entries[-1]["message"]["errorMessage"]
    elif "assistant!" in expected_roles:  # the failed attempt keeps what arrived; its retry is its child
        failed, retried = entries[-2], entries[-1]
        assert retried["parentId"] == failed["id"] and failed["message"]["errorMessage"]
    if "toolResult" in expected_roles:  # the call, its result (the folder /project is missing), the answer
        call = entries[-3]["message"]["content"][-1]
        assert call["type"] == "toolCall" and isinstance(call["arguments"], dict)
        assert entries[-2]["message"]["toolCallId"] == call["id"] and entries[-2]["message"]["isError"] is True
    assert len(fake_anthropic.requests) == len(scenarios)
    for request in fake_anthropic.requests:
        assert request.json["messages"][0]["content"][0]["text"] == "Go"
        assert KEY not in request.non_auth_text()


@pytest.mark.asyncio
async def test_switching_sessions_mid_reply_keeps_the_partial_reply_in_the_old_one(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", tmp_path, fsync=False)
    agent = AgentSession(manager, OfflineProvider(chunk_chars=2, delay=0.02), fast_settings())
    started = asyncio.Event()
    agent.subscribe(lambda e: started.set() if is_text_delta(e) else None)
    turn = asyncio.create_task(agent.prompt("long answer please"))
    await asyncio.wait_for(started.wait(), 5)
    new_file = agent.new_session()
    await asyncio.wait_for(turn, 5)
    old = [e["message"] for e in SessionManager.open(manager.session_file or "").get_entries() if e["type"] == "message"]
    assert [m["role"] for m in old] == ["system", "user", "assistant"] and old[-1]["stopReason"] == "aborted"
    assert agent.session.session_file == new_file and agent.session.get_entries() == []
