"""Nothing lost, nothing misplaced (issue 13, the agent's part).

* A reply's parent is the entry its request was built from, whatever another writer does meanwhile
  (a real second process, and a deterministic injected writer); if that entry vanished (the file was
  truncated or rewritten), the reply is kept in a recovery file and reported — never a root under a new
  header, never under an older entry.
* A silent server: a stall is a retryable failure, and the user hears "waiting for the server".
* SIGTERM during ``arbor ask`` keeps the partial reply; a full disk keeps the reply in a recovery file.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import pty
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import (
    AgentEvent,
    AgentSession,
    MessageAppended,
    ReplyRecovered,
    RetryScheduled,
    StreamUpdated,
    WaitingForServer,
)
from desktop_app.agent import ask as ask_module
from desktop_app.agent.providers import make_provider
from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.llm.protocol import LLMRequest, TextDelta, complete, user_text_message
from desktop_app.llm.testing import RecordingProvider, Reply
from desktop_app.session import SessionManager
from desktop_app.settings import Settings
from tests.agent.conftest import OPEN_PROVIDERS
from tests.arbor_process import start_arbor
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

from .test_agent_session import KEY, ROOT, fast_settings, file_entries

PI_STYLE_WRITER = r"""
import json, os, sys, time
path, parent, entry_id = sys.argv[1], sys.argv[2], sys.argv[3]
entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "from the other writer"}],
                     "timestamp": 1767225600000}}
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
os.write(fd, (json.dumps(entry, separators=(",", ":")) + "\n").encode())
os.close(fd)
"""


def _user_entry_id(events: list[AgentEvent]) -> str:
    return next(e.entry_id for e in events if isinstance(e, MessageAppended) and e.message["role"] == "user")


def _assistants(agent: AgentSession) -> list[dict[str, Any]]:
    return [e for e in file_entries(agent) if e["type"] == "message" and e["message"]["role"] == "assistant"]


@pytest.fixture
def arbor_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ARBOR_HOME", str(home))
    return home


# ------------------------------------------------------------------ the reply's parent


@pytest.mark.asyncio
async def test_reply_stays_under_its_request_while_another_process_appends(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    gate = threading.Event()
    fake_anthropic.enqueue(fa.gated_text("The reply to my own question.", gate))
    manager = SessionManager.create("/project", tmp_path, fsync=False)
    provider = AnthropicProvider(api_key=KEY, base_url=fake_anthropic.base_url)
    OPEN_PROVIDERS.append(provider)
    agent = AgentSession(manager, provider, fast_settings())
    events: list[AgentEvent] = []
    streaming = asyncio.Event()

    def watch(event: AgentEvent) -> None:
        events.append(event)
        if isinstance(event, StreamUpdated) and isinstance(event.event, TextDelta):
            streaming.set()

    agent.subscribe(watch)
    turn = asyncio.create_task(agent.prompt("My question"))
    await asyncio.wait_for(streaming.wait(), 10)
    user_id = _user_entry_id(events)
    writer = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PI_STYLE_WRITER, manager.session_file or "", user_id, "0ther001"
    )
    assert await writer.wait() == 0  # a real second process appended a child of our request
    gate.set()
    reply = await asyncio.wait_for(turn, 20)
    assert reply is not None and reply["stopReason"] == "stop"
    entries = file_entries(agent)
    (mine,) = _assistants(agent)
    assert mine["parentId"] == user_id
    assert [e["id"] for e in entries].count("0ther001") == 1  # the other writer's line is kept, once


@pytest.mark.asyncio
async def test_reply_stays_under_its_request_with_an_injected_writer(tmp_path: Path) -> None:
    reply = Reply("Mine.", gate=asyncio.Event(), pause_after_chunks=1, chunk_chars=2)
    manager = SessionManager.create("/project", tmp_path, fsync=False)
    agent = AgentSession(manager, RecordingProvider([reply]), fast_settings())
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    turn = asyncio.create_task(agent.prompt("Question"))
    await asyncio.wait_for(reply.started.wait(), 5)
    user_id = _user_entry_id(events)
    other = SessionManager.open(manager.session_file or "", fsync=False)  # a second writer, own handle
    other_id = other.append_message(user_text_message("Another program's message"))
    other.append_message(user_text_message("and its follow-up"))
    other.close()
    assert reply.gate is not None
    reply.gate.set()
    await asyncio.wait_for(turn, 5)
    (mine,) = _assistants(agent)
    assert mine["parentId"] == user_id and mine["message"]["content"][0]["text"] == "Mine."
    assert agent.session.get_entry(other_id) is not None  # their entries are in the tree too


@pytest.mark.asyncio
@pytest.mark.parametrize("change", ["truncated", "rewritten"])
async def test_reply_whose_request_vanished_is_recovered_not_misplaced(
    tmp_path: Path, arbor_home: Path, change: str
) -> None:
    reply = Reply("An answer worth keeping.", gate=asyncio.Event(), pause_after_chunks=1)
    manager = SessionManager.create("/project", tmp_path / "s", fsync=False)
    agent = AgentSession(manager, RecordingProvider(["first answer", reply]), fast_settings())
    await agent.prompt("first question")
    path = Path(manager.session_file or "")
    before = path.read_bytes()
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    turn = asyncio.create_task(agent.prompt("second question"))
    await asyncio.wait_for(reply.started.wait(), 5)
    if change == "truncated":
        path.write_bytes(b"")
    else:  # another program rewrote the file as it was before our second question
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(before)
        os.replace(tmp, path)
    assert reply.gate is not None
    reply.gate.set()
    result = await asyncio.wait_for(turn, 5)
    assert result is not None and result["content"][0]["text"] == "An answer worth keeping."
    recovered = [e for e in events if isinstance(e, ReplyRecovered)]
    assert len(recovered) == 1
    record = json.loads(Path(recovered[0].path).read_text(encoding="utf-8"))
    assert Path(recovered[0].path).parent == arbor_home / "state" / "recovered"
    assert record["message"]["content"][0]["text"] == "An answer worth keeping."
    assert record["parentId"] == _user_entry_id(events) and record["sessionFile"] == str(path)
    texts = path.read_text(encoding="utf-8")
    assert "An answer worth keeping." not in texts  # neither a root under a new header nor under an older entry
    assert not any(isinstance(e, MessageAppended) and e.message["role"] == "assistant" for e in events)


# ------------------------------------------------------------------ a silent server


@pytest.mark.asyncio
async def test_a_stalled_stream_says_waiting_then_retries(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.stall_mid_stream("Half an"), fa.text("Whole answer."))
    settings = fast_settings()
    settings.network.waiting_notice_ms = 100
    provider = AnthropicProvider(api_key=KEY, base_url=fake_anthropic.base_url, idle_timeout=0.6)
    OPEN_PROVIDERS.append(provider)
    agent = AgentSession(SessionManager.create("/project", tmp_path, fsync=False), provider, settings)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    reply = await asyncio.wait_for(agent.prompt("Hello"), 30)
    assert reply is not None and reply["content"] == [{"type": "text", "text": "Whole answer."}]
    waits = [e for e in events if isinstance(e, WaitingForServer)]
    assert waits and all(w.seconds >= 0.1 for w in waits)
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [1]
    failed, ok = _assistants(agent)
    assert failed["message"]["stopReason"] == "error" and "timed out" in failed["message"]["errorMessage"]
    assert failed["message"]["content"] == [{"type": "text", "text": "Half an"}]
    assert ok["parentId"] == failed["id"]


@pytest.mark.asyncio
async def test_the_settings_idle_timeout_reaches_the_provider(
    fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    settings = Settings()
    settings.network.idle_timeout_ms = 300
    fake_anthropic.enqueue(fa.stall_before_headers())
    provider = make_provider(settings, base_url=fake_anthropic.base_url)
    OPEN_PROVIDERS.append(provider)
    message = await asyncio.wait_for(
        complete(provider, LLMRequest("sys", [user_text_message("hi")])), 20
    )
    assert message["stopReason"] == "error" and "timed out" in message["errorMessage"]


# ------------------------------------------------------------------ SIGTERM and a full disk


def test_sigterm_during_ask_keeps_the_partial_reply(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01, first_text="Partial"))
    session = tmp_path / "term.jsonl"
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ARBOR_HOME": str(tmp_path / "home")}
    terminal, child_side = pty.openpty()  # a terminal: ask streams the reply there as it comes
    proc = start_arbor(["ask", "--session", str(session), "--base-url", fake_anthropic.base_url, "Keep talking"],
                       cwd=ROOT, env=env, stdout=child_side)
    os.close(child_side)
    try:
        assert os.read(terminal, len("Partial")) == b"Partial"  # the reply is streaming
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    finally:
        os.close(terminal)
    assert proc.returncode == 143, err
    entries = SessionManager.open(session).get_entries()
    messages = [e["message"] for e in entries if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]  # pi 1.6.0, the default
    assert messages[-1]["stopReason"] == "aborted"
    assert messages[-1]["content"][0]["text"].startswith("Partial")
    assert "Traceback" not in err


def _fill_disk_on_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    original = SessionManager.append_message

    def append_message(self: SessionManager, message: dict[str, Any], **kw: Any) -> str:
        if message.get("role") == "assistant":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.session_file)
        return original(self, message, **kw)

    monkeypatch.setattr(SessionManager, "append_message", append_message)


@pytest.mark.asyncio
async def test_a_full_disk_keeps_the_reply_in_a_recovery_file(
    tmp_path: Path, arbor_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = AgentSession(
        SessionManager.create("/project", tmp_path, fsync=False), RecordingProvider(["Precious."]), fast_settings()
    )
    _fill_disk_on_replies(monkeypatch)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    await agent.prompt("Question")
    (recovered,) = [e for e in events if isinstance(e, ReplyRecovered)]
    assert "No space left on device" in recovered.message
    record = json.loads(Path(recovered.path).read_text(encoding="utf-8"))
    assert record["message"]["content"] == [{"type": "text", "text": "Precious."}]
    assert Path(recovered.path).is_relative_to(arbor_home / "state")


def test_a_full_disk_during_ask_names_the_recovery_file(
    tmp_path: Path, arbor_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("desktop_app.agent.providers.get_api_key", lambda: None)  # the offline model
    _fill_disk_on_replies(monkeypatch)
    code = ask_module.run("Question", str(tmp_path / "full.jsonl"), None, None, None)
    err = capsys.readouterr().err
    assert code == 1
    recovery = arbor_home / "state" / "recovered"
    (path,) = recovery.iterdir()
    assert str(path) in err and "No space left on device" in err
    assert "Question" in json.loads(path.read_text(encoding="utf-8"))["message"]["content"][0]["text"]


