"""Where a fork or a clone is written (issue 22 item 4): the sessions folder of the session's
working folder, in pi's layout (``<sessions root>/--<encoded cwd>--/<ts>_<uuid>.jsonl``), wherever
the source file was opened from, so the sessions list (which reads those folders) shows it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.agent import AgentSession
from desktop_app.agent.startup import SAMPLE_CWD, SAMPLE_SESSION
from desktop_app.llm.offline import OfflineProvider
from desktop_app.session import SessionManager
from desktop_app.session.paths import arbor_sessions_root, encode_cwd
from desktop_app.settings import Settings

CASCAIS_Q = "For day three, what about Cascais?"


def agent_on_a_download(tmp_path: Path, settings: Settings) -> AgentSession:
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    copy = downloads / "trip.jsonl"
    shutil.copyfile(SAMPLE_SESSION, copy)
    return AgentSession(SessionManager.open(copy, fsync=False), OfflineProvider(), settings)


def user_message(agent: AgentSession, text: str) -> str:
    for entry in agent.view.get_entries():
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            if any(b.get("text") == text for b in message.get("content") or []):
                return str(entry["id"])
    raise AssertionError(text)


@pytest.mark.parametrize("position", ["before", "at"])
def test_fork_and_clone_land_in_the_sessions_folder_of_the_working_folder(tmp_path: Path, position: str) -> None:
    agent = agent_on_a_download(tmp_path, Settings())
    result = agent.fork(user_message(agent, CASCAIS_Q), position)  # type: ignore[arg-type]
    path = Path(result.session_file or "")
    assert path.parent == arbor_sessions_root() / encode_cwd(SAMPLE_CWD)
    assert path.name.endswith(f"_{agent.view.session_id}.jsonl") and path.is_file()
    assert not any(p.name != "trip.jsonl" for p in (tmp_path / "Downloads").iterdir())  # nothing next to the source


def test_the_sessions_root_setting_is_honoured(tmp_path: Path) -> None:
    settings = Settings()
    settings.sessions_root = str(tmp_path / "elsewhere")
    agent = agent_on_a_download(tmp_path, settings)
    result = agent.fork(user_message(agent, CASCAIS_Q), "at")
    assert Path(result.session_file or "").parent == tmp_path / "elsewhere" / encode_cwd(SAMPLE_CWD)
