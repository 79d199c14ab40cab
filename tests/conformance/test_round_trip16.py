"""A pi 1.6.0 file continued by Arbor (profile 1.6.0) still reads as pi 1.6.0 reads it (issue 14).

The file is one pi 1.6.0 wrote itself (tests/fixtures/conformance16/cases). Arbor continues it through
the real agent against the fake Anthropic server: a prompt, a branch summary (navigating back with a
summary), a compaction. Then

* for every entry that was already there, ``arbor inspect`` with profile 1.6.0 still gives pi 1.6.0's
  recorded answers (entries, labels, the context at each entry), so nothing Arbor appended changed the
  old part;
* every new line has pi 1.6.0's shape: its keys in pi 1.6.0's order (learned from the files pi 1.6.0
  wrote), a branch summary names the abandoned leaf as ``fromId``, the compaction stores the summarizer's
  ``usage`` and the replayed prompt as ``systemMessage`` (stamped with its own time).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import AgentSession
from desktop_app.inspection import build_report
from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.session import SessionManager
from desktop_app.session.context import project_path
from desktop_app.session.entries import parse_date_ms
from desktop_app.session.profile import PI_1_6_0
from desktop_app.session.system_prompt import current_system_message
from desktop_app.settings import Settings
from tests.fakes import (
    FakeAnthropicServer,
    fake_anthropic,  # noqa: F401  (fixture)
)
from tests.fakes import anthropic_server as fa

from .resolve import Resolved, load_expected, normalise

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance16" / "cases"
CASE = "pi16-1603"
KEY = "sk-ant-api03-ROUNDTRIP-0123456789abcdefSECRET"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _pi_orders() -> dict[str, list[str]]:
    """For each entry type and message role, every key pi 1.6.0 wrote, in the order it writes them."""
    orders: dict[str, list[str]] = {}

    def merge(kind: str, keys: list[str]) -> None:
        known = orders.setdefault(kind, [])
        at = 0
        for key in keys:
            if key in known:
                at = known.index(key) + 1
            else:
                known.insert(at, key)
                at += 1

    for path in sorted(CASES.glob("*.jsonl")):
        for entry in _lines(path):
            merge(entry["type"], list(entry))
            if entry["type"] == "message":
                merge("message:" + entry["message"]["role"], list(entry["message"]))
    return orders


def _written_system_messages() -> list[dict[str, Any]]:
    return [
        e["message"]
        for path in sorted(CASES.glob("*.jsonl"))
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "system"
    ]


def _in_pi_order(keys: list[str], order: list[str]) -> bool:
    positions = [order.index(k) if k in order else -1 for k in keys]
    return -1 not in positions and positions == sorted(positions)


@pytest.mark.asyncio
async def test_a_pi_1_6_0_file_continued_by_arbor(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:  # noqa: F811
    path = tmp_path / f"{CASE}.jsonl"
    shutil.copyfile(CASES / f"{CASE}.jsonl", path)
    old_bytes = path.read_bytes()
    old_entries = _lines(path)[1:]

    settings = Settings()  # piVersion 1.6.0, the default
    settings.compaction = type(settings.compaction)(keep_recent_tokens=100)
    manager = SessionManager.open(path, fsync=False, profile=settings.profile)
    provider = AnthropicProvider(api_key=KEY, base_url=fake_anthropic.base_url, model_id="claude-sonnet-4-5")
    agent = AgentSession(manager, provider, settings)
    try:
        fake_anthropic.enqueue(
            fa.text("Continued."), fa.text("## Goal\nexplored"), fa.text("## Goal\ncompacted"), fa.text("## Prefix")
        )
        assert await agent.prompt("Please go on.") is not None
        abandoned = manager.leaf_id
        back_to = next(
            e["id"] for e in reversed(manager.get_branch()[:-4])
            if e["type"] == "message" and e["message"]["role"] == "user"
        )
        navigated = await agent.navigate_tree(back_to, summarize=True)
        assert navigated.summary_entry_id is not None
        await agent.compact()
    finally:
        await provider.aclose()
        manager.close()

    text = path.read_bytes()
    assert text.startswith(old_bytes)  # nothing old was rewritten
    new = [json.loads(line) for line in text[len(old_bytes) :].decode("utf-8").splitlines()]
    kinds = [e["type"] if e["type"] != "message" else e["message"]["role"] for e in new]
    # pi 1.6.0 records the prompt (Arbor's, which differs from the one pi recorded) before the user message
    assert kinds == ["system", "user", "assistant", "branch_summary", "compaction"]

    # New lines: pi 1.6.0's keys in pi 1.6.0's order. pi never wrote a system message with both added
    # and removed tools, so their relative order comes from pi16-delta.md §2.5 (checked against pi's).
    orders = _pi_orders()
    documented = ["role", "content", "sections", "toolsAdded", "toolsRemoved", "timestamp"]
    assert set(orders["message:system"]) == set(documented)
    for written in _written_system_messages():
        assert _in_pi_order(list(written), documented)
    orders["message:system"] = documented
    for entry in new:
        assert _in_pi_order(list(entry), orders[entry["type"]]), entry["type"]
        if entry["type"] == "message":
            role = entry["message"]["role"]
            assert _in_pi_order(list(entry["message"]), orders["message:" + role]), role
    _, _, _, summary, compaction = new
    assert summary["fromId"] == abandoned and summary["usage"]["input"] > 0
    assert compaction["usage"]["input"] > 0
    checkpoint = compaction["systemMessage"]
    assert checkpoint["timestamp"] == parse_date_ms(compaction["timestamp"])
    path_before = SessionManager.open_snapshot(path).get_branch(compaction["parentId"])
    replay = current_system_message([m for p in project_path(path_before) for m in p.messages])
    assert replay is not None and {**replay, "timestamp": checkpoint["timestamp"]} == checkpoint
    assert list(checkpoint) == list(replay)

    # The old part: pi 1.6.0's own answers, unchanged by what was appended.
    expected = Resolved(normalise(load_expected((CASES / f"{CASE}.expected.json").read_text(encoding="utf-8"))))
    actual = Resolved(normalise(build_report(path, sequential_ids_=True, profile=PI_1_6_0)))
    assert actual.doc["entries"][: len(old_entries)] == expected.doc["entries"]
    assert actual.section("labels") == expected.section("labels")
    want, got = expected.section("contexts"), actual.section("contexts")
    assert len(want) == len(old_entries) and all(got[k] == v for k, v in want.items())
    want, got = expected.section("entry_message"), actual.section("entry_message")
    assert all(got[k] == v for k, v in want.items())
    # ... and the new part reads as pi 1.6.0 would: the compaction's context starts with its checkpoint.
    assert actual.section("contexts")[compaction["id"]]["messages"][0] == checkpoint
