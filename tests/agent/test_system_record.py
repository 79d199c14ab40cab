"""The prompt and tools recorded as ``system`` messages the way pi 1.6.0 writes them (issue 14 item 3).

Against the fake Anthropic server: what the file holds after each prompt, compared with what the request
carried and with the entries pi 1.6.0 wrote itself (tests/fixtures/conformance16/cases), for both
profiles; and a pi 1.6.0 file continued in Arbor still reads as pi's projection says.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import AgentSession
from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.session import SessionManager
from desktop_app.session.context import build_session_context
from desktop_app.session.entries import parse_date_ms, parse_session_text
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from desktop_app.session.system_prompt import current_system_message
from desktop_app.settings import Settings
from desktop_app.tools import tool_definitions
from desktop_app.tools.prompt import tools_prompt
from tests.agent.conftest import OPEN_PROVIDERS
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

KEY = "sk-ant-api03-SYSTEMRECORD-0123456789abcdef"
CASES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance16" / "cases"


def _agent(tmp_path: Path, server: FakeAnthropicServer, profile: PiProfile, settings: Settings | None = None) -> AgentSession:
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    manager = SessionManager.create(str(folder), tmp_path / "sessions", fsync=False, profile=profile)
    return AgentSession(manager, _provider(server), settings or Settings())


def _provider(server: FakeAnthropicServer) -> AnthropicProvider:
    provider = AnthropicProvider(api_key=KEY, base_url=server.base_url, model_id="claude-sonnet-4-5")
    OPEN_PROVIDERS.append(provider)
    return provider


def _lines(agent: AgentSession) -> list[dict[str, Any]]:
    text = Path(agent.session.session_file or "").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def _kinds(entries: list[dict[str, Any]]) -> list[str]:
    return [e["message"]["role"] if e["type"] == "message" else e["type"] for e in entries]


def _sent_prompt(server: FakeAnthropicServer, index: int = -1) -> str:
    return "".join(block["text"] for block in server.requests[index].json["system"])


def _rendered(system: dict[str, Any] | None) -> str:
    """A replayed prompt as text: its content, then its sections, separated by blank lines."""
    assert system is not None
    parts = [system["content"]] if system["content"] else []
    return "\n\n".join([*parts, *(system.get("sections") or {}).values()])


def _pi_first_record(case: str) -> tuple[list[str], dict[str, Any]]:
    """The kinds of a pi 1.6.0 file's entries up to its first user message, and its first system entry."""
    entries = [json.loads(line) for line in (CASES / f"{case}.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = _kinds(entries)
    head = kinds[: kinds.index("user") + 1]
    return head, next(e for e in entries if e.get("message", {}).get("role") == "system")


@pytest.mark.asyncio
async def test_1_6_0_records_the_prompt_first_then_only_its_changes(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    settings = Settings()
    agent = _agent(tmp_path, fake_anthropic, PI_1_6_0, settings)
    fake_anthropic.enqueue(fa.text("one"), fa.text("two"), fa.text("three"), fa.text("four"))

    await agent.prompt("first")
    entries = _lines(agent)
    pi_head, pi_system = _pi_first_record("pi16-1603")
    # pi's position: after the model and thinking level, right before the first user message
    assert _kinds(entries) == [*pi_head, "assistant"]
    record = entries[3]
    assert list(record) == list(pi_system)  # type, id, parentId, timestamp, message
    assert list(record["message"]) == list(pi_system["message"])  # role, content, sections, toolsAdded, timestamp
    message = record["message"]
    assert message["content"] == "" and list(message["sections"]) == ["preamble", "tools", "environment"]
    assert message["toolsAdded"] == tool_definitions(settings.tools.enabled)
    assert [t["name"] for t in message["toolsAdded"]] == [t["name"] for t in fake_anthropic.last_request.json["tools"]]
    assert isinstance(message["timestamp"], int)
    assert message["timestamp"] <= parse_date_ms(record["timestamp"])  # made just before it was appended
    assert message["timestamp"] <= entries[4]["message"]["timestamp"]
    assert entries[4]["parentId"] == record["id"]  # the user message follows it
    # the record is the prompt the request carried; the request's messages carry no system message
    assert _rendered(message) == _sent_prompt(fake_anthropic)
    assert [m["role"] for m in fake_anthropic.last_request.json["messages"]] == ["user"]

    await agent.prompt("second")  # same prompt, same tools: nothing more is recorded
    assert _kinds(_lines(agent))[len(entries):] == ["user", "assistant"]

    settings.tools.enabled = ("read", "bash")  # two tools fewer: one record of the change
    count = len(_lines(agent))
    await agent.prompt("third")
    entries = _lines(agent)
    assert _kinds(entries)[count:] == ["system", "user", "assistant"]
    update = entries[count]["message"]
    assert list(update) == ["role", "content", "sections", "toolsRemoved", "timestamp"]
    assert update["content"] == "" and update["sections"] == {"tools": tools_prompt(("read", "bash"))}
    assert update["toolsRemoved"] == [{"name": "edit"}, {"name": "write"}]
    replay = current_system_message(agent.session.build_session_context().messages)
    assert replay is not None and _rendered(replay) == _sent_prompt(fake_anthropic)
    assert replay["toolsAdded"] == tool_definitions(("read", "bash"))

    settings.tools.enabled = ("read", "bash", "write")  # one tool more
    count = len(entries)
    await agent.prompt("fourth")
    entries = _lines(agent)
    assert _kinds(entries)[count:] == ["system", "user", "assistant"]
    update = entries[count]["message"]
    assert list(update) == ["role", "content", "sections", "toolsAdded", "timestamp"]
    assert update["toolsAdded"] == tool_definitions(("write",))
    assert update["sections"] == {"tools": tools_prompt(("read", "bash", "write"))}
    replay = current_system_message(agent.session.build_session_context().messages)
    assert _rendered(replay) == _sent_prompt(fake_anthropic)
    assert [t["name"] for t in replay["toolsAdded"]] == ["read", "bash", "write"]  # type: ignore[index]


@pytest.mark.asyncio
async def test_turning_tools_off_removes_their_sections(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    settings = Settings()
    agent = _agent(tmp_path, fake_anthropic, PI_1_6_0, settings)
    fake_anthropic.enqueue(fa.text("one"), fa.text("two"))
    await agent.prompt("with tools")
    settings.tools.enabled = ()
    await agent.prompt("without")
    update = [e["message"] for e in _lines(agent) if e.get("message", {}).get("role") == "system"][-1]
    assert update["sections"] == {"tools": None, "environment": None}
    assert update["toolsRemoved"] == [{"name": n} for n in ("read", "bash", "edit", "write")]
    replay = current_system_message(agent.session.build_session_context().messages)
    assert replay is not None and "toolsAdded" not in replay
    assert _rendered(replay) == _sent_prompt(fake_anthropic) == agent.system_prompt


@pytest.mark.asyncio
async def test_0_73_1_records_nothing(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    settings = Settings()
    agent = _agent(tmp_path, fake_anthropic, PI_0_73_1, settings)
    fake_anthropic.enqueue(fa.text("one"), fa.text("two"))
    await agent.prompt("first")
    settings.tools.enabled = ("read",)
    await agent.prompt("second")
    kinds = _kinds(_lines(agent))
    assert kinds == ["session", "model_change", "thinking_level_change", "user", "assistant", "user", "assistant"]
    assert "Available tools:\n- read:" in _sent_prompt(fake_anthropic)  # the request still has the prompt


@pytest.mark.asyncio
async def test_a_compaction_carries_the_record_so_nothing_is_recorded_again(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    settings = Settings()
    settings.compaction = replace(settings.compaction, keep_recent_tokens=1)
    agent = _agent(tmp_path, fake_anthropic, PI_1_6_0, settings)
    # the summary, then the split turn's prefix (keepRecentTokens 1 cuts inside the last turn), then a reply
    fake_anthropic.enqueue(fa.text("one"), fa.text("two"), fa.text("The summary."), fa.text("Prefix."), fa.text("three"))
    await agent.prompt("first")
    await agent.prompt("second")
    before = current_system_message(agent.session.build_session_context().messages)
    compaction = agent.session.get_entry(await agent.compact())
    assert compaction is not None and compaction["type"] == "compaction"
    assert {**compaction["systemMessage"], "timestamp": 0} == {**(before or {}), "timestamp": 0}
    count = len(_lines(agent))
    await agent.prompt("after the compaction")
    assert _kinds(_lines(agent))[count:] == ["user", "assistant"]
    assert _rendered(current_system_message(agent.session.build_session_context().messages)) == _sent_prompt(
        fake_anthropic
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("case", ["pi16-1603", "pi16-1601", "pi16-1609"])
async def test_a_pi_1_6_0_file_continued_in_arbor_reads_as_pi_would(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, case: str
) -> None:
    """pi's own prompt (1603: sections and eight tools; 1601: a forced prompt, later updates and
    compactions; 1609: a forced prompt) is changed into Arbor's by one record of the difference."""
    path = tmp_path / f"{case}.jsonl"
    shutil.copyfile(CASES / f"{case}.jsonl", path)
    manager = SessionManager.open(path, fsync=False, profile=PI_1_6_0)
    old_leaf = manager.leaf_id
    old_context = build_session_context(manager.get_entries(), old_leaf).messages
    old_replay = current_system_message(old_context)
    agent = AgentSession(manager, _provider(fake_anthropic), Settings())
    fake_anthropic.enqueue(fa.text("continued"))
    await agent.prompt("continue here")

    reopened = SessionManager.open(path, profile=PI_1_6_0)  # what pi 1.6.0 reads: the file from disk
    assert not reopened.read_only and reopened.report.malformed_lines == []
    assert parse_session_text(path.read_text(encoding="utf-8")).malformed == []
    context = reopened.build_session_context().messages
    assert context[: len(old_context)] == old_context  # the path up to the old leaf reads the same
    added = [e for e in reopened.get_branch() if e["type"] == "message"][-3:]
    assert _kinds(added) == ["system", "user", "assistant"]
    assert context[len(old_context):] == [e["message"] for e in added]  # system message in the projection
    update = added[0]["message"]
    assert old_replay is not None
    old_tools = [t["name"] for t in old_replay.get("toolsAdded", [])]
    assert update.get("toolsRemoved", []) == [{"name": n} for n in old_tools if n not in settings_tools()]
    replay = current_system_message(context)
    assert replay is not None
    # Arbor's declarations, every one (a tool pi declared before keeps its place in pi's ordered map)
    assert {t["name"]: t for t in replay["toolsAdded"]} == {t["name"]: t for t in tool_definitions(settings_tools())}
    # pi's sections that Arbor's prompt has not are removed; a forced prompt's content (pi has no way
    # to take it back) stays in front
    assert "\n\n".join(replay["sections"].values()) == _sent_prompt(fake_anthropic)
    assert replay["content"] == old_replay["content"]


def settings_tools() -> tuple[str, ...]:
    return Settings().tools.enabled


@pytest.mark.parametrize("stop_at", ["thinking_level_change", "system"])
@pytest.mark.asyncio
async def test_stop_between_the_setup_and_the_users_message_sends_nothing(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, stop_at: str
) -> None:
    """The setup entries, the recorded prompt and the user's message are appended in event-loop turns
    of their own (each a repaint of the window); Stop in between keeps what was appended, appends no
    user message and sends nothing."""
    agent = _agent(tmp_path, fake_anthropic, PI_1_6_0)

    def stop_when_seen(event: Any) -> None:
        entry = agent.session.get_entry(agent.session.leaf_id or "")
        if entry is not None and _kinds([entry]) == [stop_at]:
            agent.abort()  # as the user's Stop would, in the turn that entry was shown

    agent.session.subscribe(stop_when_seen)
    assert await agent.prompt("hello") is None
    assert agent.last_prompt_unsent == "hello"  # the window gives the text back to the composer
    kinds = _kinds(agent.session.get_entries())
    assert kinds[-1] == stop_at and "user" not in kinds
    assert ("system" in kinds) is (stop_at == "system")
    assert fake_anthropic.requests == []
    assert not agent.busy
