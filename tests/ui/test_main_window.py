"""The window end to end on the offline model: send, stream, persist, graph; Esc aborts; screenshot."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from desktop_app.agent import AgentSession, StreamUpdated
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.protocol import TextDelta
from desktop_app.present.chat_feed import SYSTEM_MARK
from desktop_app.session import SessionManager, build_session_context
from desktop_app.settings import Settings
from desktop_app.ui.app import SAMPLE_SESSION, initial_session
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window
from tests.cli_runs import arbor_in_process

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "conformance"


@pytest.mark.asyncio
async def test_this_module_runs_on_qasync() -> None:
    assert isinstance(asyncio.get_running_loop(), qasync.QEventLoop)


def make_window(tmp_path: Path, provider: OfflineProvider, source: Path = SAMPLE_SESSION) -> MainWindow:
    """The real window on a copy of ``source``, opened as ``arbor FILE`` does (the automation surface),
    then switched to ``provider`` (an offline model with a chosen pace) through the agent."""
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    window = open_window(path, size=(1200, 800))
    window.agent.set_model(provider)  # same model id: nothing is appended
    window.graph.set_use_dot(False)
    window.graph.set_folding(False)
    return window


async def settle(window: MainWindow) -> None:
    while window._tasks:
        await asyncio.gather(*list(window._tasks), return_exceptions=True)
    await asyncio.sleep(0)


def rows(window: MainWindow) -> list[dict[str, Any]]:
    model = window.chat.model
    return [model.message(r) for r in range(model.rowCount())]


@pytest.mark.asyncio
async def test_send_streams_persists_and_adds_nodes(tmp_path: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, OfflineProvider(chunk_chars=8, delay=0.002))
    qtbot.addWidget(window)
    nodes_before = len(window.graph.graph())
    entries_before = len(window.agent.session.get_entries())
    deltas: list[str] = []
    window.agent.subscribe(
        lambda e: deltas.append(e.event.text) if isinstance(e, StreamUpdated) and isinstance(e.event, TextDelta) else None
    )
    window.chat.composer.setFocus()
    QTest.keyClicks(window.chat.composer, "What did we plan for day two?")
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Return)
    assert window.chat.composer.toPlainText() == ""
    await settle(window)
    assert len(deltas) > 1  # streamed, not delivered at once
    manager = window.agent.session
    new = manager.get_entries()[entries_before:]
    # pi 1.6.0 (the default) records the prompt first: the sample session has no record yet
    assert [e["message"]["role"] for e in new] == ["system", "user", "assistant"]
    on_disk = [json.loads(line) for line in Path(manager.session_file or "").read_text().splitlines()]
    assert [e["id"] for e in on_disk[-3:]] == [e["id"] for e in new]
    assert len(window.graph.graph()) == nodes_before + 3
    context = build_session_context(manager.get_entries(), manager.leaf_id, manager.index).messages
    shown = [m for m in context if not (m.get("role") == "custom" and not m.get("display"))]
    # rows added one by one still equal the context, in order; a system row carries the chat's
    # mark (what changed, for its collapsed card) on a copy of the message
    unmarked = [{k: v for k, v in r.items() if k != SYSTEM_MARK} for r in rows(window)]
    assert unmarked == shown
    assert SYSTEM_MARK in rows(window)[-3] and rows(window)[-3]["role"] == "system"
    assert "What did we plan for day two?" in json.dumps(rows(window)[-2])
    window.close()


@pytest.mark.asyncio
async def test_escape_aborts_and_partial_reply_is_kept(tmp_path: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, OfflineProvider(chunk_chars=2, delay=0.05))
    qtbot.addWidget(window)
    first = asyncio.Event()
    window.agent.subscribe(
        lambda e: first.set() if isinstance(e, StreamUpdated) and isinstance(e.event, TextDelta) else None
    )
    window.chat.composer.setFocus()
    QTest.keyClicks(window.chat.composer, "Tell me a long story")
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Return)
    await asyncio.wait_for(first.wait(), 10)
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
    await settle(window)
    last = window.agent.session.get_entries()[-1]["message"]
    assert last["stopReason"] == "aborted" and last["content"][0]["text"]
    assert rows(window)[-1]["stopReason"] == "aborted"
    assert not window.chat.is_busy  # usable again
    window.close()


@pytest.mark.asyncio
async def test_activating_a_node_moves_the_leaf_and_rebinds_chat(tmp_path: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, OfflineProvider())
    qtbot.addWidget(window)
    window.settings.branch_summary.skip_prompt = True  # no dialog: switch without a summary
    manager = window.agent.session
    target = next(e for e in manager.get_entries() if e["type"] == "message" and e["message"]["role"] == "assistant")
    window.graph.node_activated.emit(target["id"])
    await settle(window)
    assert manager.leaf_id == target["id"]
    expected = build_session_context(manager.get_entries(), target["id"], manager.index).messages
    assert len(rows(window)) == len([m for m in expected if not (m.get("role") == "custom" and not m.get("display"))])
    window.close()


def test_first_start_opens_a_copy_of_the_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path))
    manager = initial_session(None, Settings())
    assert manager.get_session_name() == "Lisbon trip (sample)"
    assert Path(manager.session_file or "").is_relative_to(tmp_path)
    assert sum(1 for e in manager.get_entries() if e["type"] == "compaction") == 2
    assert any(e["type"] == "branch_summary" for e in manager.get_entries())
    assert manager.index.labels
    again = initial_session(None, Settings())  # later starts open the newest session instead
    assert again.session_file == manager.session_file


def test_screenshot_writes_exact_size_png_with_content(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    source = tmp_path / "gen-0004.jsonl"
    shutil.copyfile(FIXTURES / "gen-0004.jsonl", source)
    before = source.read_bytes()
    result = arbor_in_process("screenshot", str(source), "--out", str(out), "--size", "1000x700")
    assert result.returncode == 0, result.stderr
    assert source.read_bytes() == before
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    # graph (left) and chat (right) both drew something: many distinct colours in each half
    for x0, x1 in ((0, 500), (500, 1000)):
        colours = {image.pixel(x, y) for x in range(x0, x1, 7) for y in range(60, 640, 7)}
        assert len(colours) > 20


@pytest.mark.asyncio
async def test_last_leaf_is_remembered_per_session_outside_the_file(tmp_path: Path, qtbot: Any) -> None:
    from desktop_app.present.window_state import UiState

    state = UiState(tmp_path / "state.json")
    window = make_window(tmp_path, OfflineProvider())
    qtbot.addWidget(window)
    window.close()
    path = window.agent.session.session_file
    before = Path(path or "").read_bytes()
    manager = SessionManager.open(path or "", fsync=False)
    agent = AgentSession(manager, OfflineProvider(), Settings())
    window = MainWindow(agent, Settings(), follow_interval_ms=60_000, ui_state=state)
    qtbot.addWidget(window)
    target = manager.get_entries()[5]["id"]
    manager.branch(target)
    window.close()
    reopened = SessionManager.open(path or "", fsync=False)
    assert reopened.leaf_id != target  # the file still says what pi would say
    window = MainWindow(AgentSession(reopened, OfflineProvider(), Settings()), Settings(),
                        follow_interval_ms=60_000, ui_state=UiState(tmp_path / "state.json"))
    qtbot.addWidget(window)
    assert reopened.leaf_id == target
    assert Path(path or "").read_bytes() == before
    window.close()


def test_screenshot_of_a_v1_file_does_not_migrate_it(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    shutil.copyfile(FIXTURES / "mig-v1-basic.jsonl", source)
    before = source.read_bytes()
    out = tmp_path / "v1.png"
    result = arbor_in_process("screenshot", str(source), "--out", str(out), "--size", "640x480")
    assert result.returncode == 0, result.stderr
    assert source.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["v1.jsonl", "v1.png"]
    missing = arbor_in_process("screenshot", str(tmp_path / "nope.jsonl"), "--out", str(out))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


@pytest.mark.asyncio
async def test_stop_before_sending_gives_the_text_back(tmp_path: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, OfflineProvider())
    qtbot.addWidget(window)
    window.agent.last_prompt_unsent = None

    async def stopped(text: str, images: Any = ()) -> None:
        window.agent.last_prompt_unsent = text  # as when Stop hits the pre-prompt compaction
        return None

    window.agent.prompt = stopped  # type: ignore[method-assign]
    window.chat.composer.setFocus()
    QTest.keyClicks(window.chat.composer, "keep me")
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Return)
    await settle(window)
    assert window.chat.editor_text() == "keep me"
    window.close()
