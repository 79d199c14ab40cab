"""``AgentSession.retry``: the user message is answered again, with no second user entry (issue 22,
item 2: an early Stop, or a failed reply, leaves the user's card with Retry)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from desktop_app.agent import AgentSession
from desktop_app.agent.events import MessageAppended, TurnFinished, TurnStarted
from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.llm.testing import RecordingProvider
from desktop_app.session import SessionManager
from desktop_app.settings import Settings

CASCAIS_Q, CASCAIS_A = "s0000015", "s0000016"


def _agent(tmp_path: Path, provider: RecordingProvider) -> AgentSession:
    copy = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, copy)
    return AgentSession(SessionManager.open(copy, fsync=False), provider, Settings())


def _users(agent: AgentSession) -> list[str]:
    return [e["id"] for e in agent.session.get_entries() if e.get("type") == "message" and e["message"]["role"] == "user"]


def test_retry_answers_the_user_message_under_it_without_a_second_user_entry(tmp_path: Path) -> None:
    provider = RecordingProvider(["Sintra, by train."])
    agent = _agent(tmp_path, provider)
    users = _users(agent)
    expected = agent.session.build_session_context(CASCAIS_Q).messages
    events: list[object] = []
    agent.subscribe(events.append)
    asyncio.run(agent.retry(CASCAIS_Q))
    assert _users(agent) == users  # no new user entry
    new = agent.session.get_entry(agent.session.leaf_id or "")
    assert new is not None and new["parentId"] == CASCAIS_Q and new["id"] != CASCAIS_A
    assert new["message"]["content"][0]["text"] == "Sintra, by train."
    [request] = provider.requests
    assert request.messages[-1]["role"] == "user" and len(request.messages) == len(expected)
    kinds = [type(e) for e in events]
    assert kinds[0] is TurnStarted and kinds[-1] is TurnFinished and MessageAppended in kinds


def test_retry_from_an_unanswered_leaf_stays_on_it(tmp_path: Path) -> None:
    agent = _agent(tmp_path, RecordingProvider(["Here."]))
    user_id = agent.session.append_message({"role": "user", "content": [{"type": "text", "text": "Hello?"}], "timestamp": 1})
    asyncio.run(agent.retry(user_id))
    assert [c["message"]["content"][0]["text"] for c in agent.session.get_children(user_id)] == ["Here."]
    assert _users(agent).count(user_id) == 1 and len([u for u in _users(agent) if u == user_id]) == 1


def test_retry_refuses_what_is_not_a_user_message(tmp_path: Path) -> None:
    agent = _agent(tmp_path, RecordingProvider())
    before = Path(agent.session.session_file or "").read_bytes()
    with pytest.raises(ValueError, match="Only a user message"):
        asyncio.run(agent.retry(CASCAIS_A))
    assert Path(agent.session.session_file or "").read_bytes() == before
