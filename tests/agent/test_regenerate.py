"""``AgentSession.regenerate``: a new reply to the same request, a sibling of the old one (issue 9, node menu)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from desktop_app.agent import AgentSession
from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.llm.testing import RecordingProvider
from desktop_app.session import SessionManager
from desktop_app.settings import Settings

CASCAIS_Q, CASCAIS_A = "s0000015", "s0000016"


def _agent(tmp_path: Path, provider: RecordingProvider) -> AgentSession:
    copy = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, copy)
    return AgentSession(SessionManager.open(copy, fsync=False), provider, Settings())


def test_regenerate_answers_the_same_request_again_as_a_sibling(tmp_path: Path) -> None:
    provider = RecordingProvider(["Estoril is next door, too."])
    agent = _agent(tmp_path, provider)
    expected = agent.session.build_session_context(CASCAIS_Q).messages
    asyncio.run(agent.regenerate(CASCAIS_A))
    new = agent.session.get_entry(agent.session.leaf_id or "")
    assert new is not None and new["parentId"] == CASCAIS_Q and new["id"] != CASCAIS_A
    assert new["message"]["role"] == "assistant" and new["message"]["content"][0]["text"] == "Estoril is next door, too."
    assert [c["id"] for c in agent.session.get_children(CASCAIS_Q)] == [CASCAIS_A, new["id"]]
    [request] = provider.requests
    assert len(request.messages) == len(expected)  # the context at the user message, nothing more


def test_regenerate_refuses_what_is_not_an_assistant_reply(tmp_path: Path) -> None:
    agent = _agent(tmp_path, RecordingProvider())
    before = Path(agent.session.session_file or "").read_bytes()
    with pytest.raises(ValueError, match="Only an assistant reply"):
        asyncio.run(agent.regenerate(CASCAIS_Q))
    assert Path(agent.session.session_file or "").read_bytes() == before
