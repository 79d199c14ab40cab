"""The approval card in the real window on the offline model: a ``write``/``bash`` call waits for
Allow once / Allow always / Deny above the composer; Esc closes the card; a missing working folder
is explained in the chat (with "Choose folder…") when a tool call needs it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.llm.offline import OfflineProvider
from desktop_app.tools import ApprovalDecision
from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window


def session_in(tmp_path: Path, cwd: Path) -> Path:
    """A copy of the sample session whose header says it ran in ``cwd``."""
    path = tmp_path / SAMPLE_SESSION.name
    lines = SAMPLE_SESSION.read_text().splitlines()
    header = json.loads(lines[0])
    header["cwd"] = str(cwd)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def make_window(tmp_path: Path, work: Path) -> MainWindow:
    window = open_window(session_in(tmp_path, work), size=(1200, 800))
    window.agent.set_model(OfflineProvider())
    window.graph.set_use_dot(False)
    window.setProperty("entries_at_start", len(window.agent.session.get_entries()))
    return window


async def settle(window: MainWindow) -> None:
    while window._tasks:
        await asyncio.gather(*list(window._tasks), return_exceptions=True)
    await asyncio.sleep(0)


async def send_until_card(window: MainWindow, text: str) -> None:
    """Send ``text`` as the user does and wait until its call's card is up."""
    window.chat.send_requested.emit(text)
    await card_up(window)


async def answer(window: MainWindow, decision: ApprovalDecision, key: Qt.Key = Qt.Key.Key_Space) -> None:
    """Press ``decision``'s button with the keyboard and let the turn finish."""
    QTest.keyClick(window.chat.approval.button(decision), key)
    await settle(window)


async def card_up(window: MainWindow) -> None:
    async def wait() -> None:
        while window.chat.approval.card is None:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), 10)


def tool_results(window: MainWindow) -> list[dict[str, Any]]:
    """The tool results this test's turns appended (the sample has its own before)."""
    entries = window.agent.session.get_entries()[window.property("entries_at_start"):]
    return [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult"]


def shown_rows(window: MainWindow) -> list[dict[str, Any]]:
    model = window.chat.model
    return [model.message(r) for r in range(model.rowCount())]


@pytest.mark.asyncio
async def test_allow_once_writes_the_file_and_the_result_is_shown(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, work)
    qtbot.addWidget(window)
    await send_until_card(window, "write notes.txt\nhello")
    card = window.chat.approval.card
    assert card is not None and card.title == "Write notes.txt?" and card.body == "hello"
    assert window.chat.approval.isVisible() and not (work / "notes.txt").exists()  # nothing before the answer
    assert window.chat.approval.buttons[0].hasFocus() or window.chat.approval.buttons[0].isDefault()
    await answer(window, ApprovalDecision.ALLOW_ONCE)
    assert (work / "notes.txt").read_text() == "hello"
    assert not window.chat.approval.isVisible() and window.chat.approval.card is None
    [result] = tool_results(window)
    assert result["isError"] is False and result["toolName"] == "write"
    assert result in shown_rows(window)
    assert shown_rows(window)[-1]["role"] == "assistant"  # the model went on after the result
    window.close()


@pytest.mark.asyncio
async def test_deny_gives_an_error_result_and_no_file(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, work)
    qtbot.addWidget(window)
    await send_until_card(window, "write notes.txt\nhello")
    await answer(window, ApprovalDecision.DENY)
    assert not (work / "notes.txt").exists()
    [result] = tool_results(window)
    assert result["isError"] is True and "denied" in result["content"][0]["text"]
    assert result in shown_rows(window)
    window.close()


@pytest.mark.asyncio
async def test_allow_always_skips_the_second_card(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, work)
    qtbot.addWidget(window)
    shown: list[int] = []
    window.chat.approval.shown.connect(lambda: shown.append(1))
    await send_until_card(window, "write a.txt\none")
    await answer(window, ApprovalDecision.ALLOW_ALWAYS, Qt.Key.Key_Return)
    window.chat.send_requested.emit("write b.txt\ntwo")
    await settle(window)
    assert len(shown) == 1
    assert (work / "a.txt").read_text() == "one" and (work / "b.txt").read_text() == "two"
    assert [r["isError"] for r in tool_results(window)] == [False, False]
    window.close()


@pytest.mark.asyncio
async def test_bash_card_shows_command_and_folder_and_runs(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, work)
    qtbot.addWidget(window)
    await send_until_card(window, "bash echo hi")
    card = window.chat.approval.card
    assert card is not None and card.body == "echo hi" and card.facts[0] == f"in {work}"
    window.chat.approval.button(ApprovalDecision.ALLOW_ONCE).click()
    await settle(window)
    [result] = tool_results(window)
    assert result["toolName"] == "bash" and result["content"][0]["text"].strip() == "hi"
    window.close()


@pytest.mark.asyncio
async def test_escape_while_the_card_is_open_closes_it(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = make_window(tmp_path, work)
    qtbot.addWidget(window)
    await send_until_card(window, "write notes.txt\nhello")
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
    await settle(window)
    assert not window.chat.approval.isVisible() and window.chat.approval.card is None
    assert not (work / "notes.txt").exists()
    [result] = tool_results(window)
    assert result["isError"] is True
    assert not window.chat.is_busy
    window.close()


@pytest.mark.asyncio
async def test_a_missing_working_folder_is_explained_when_a_tool_needs_it(tmp_path: Path, work: Path, qtbot: Any) -> None:
    window = open_window(session_in(tmp_path, tmp_path / "gone"), size=(1200, 800))
    qtbot.addWidget(window)
    window.agent.set_model(OfflineProvider())
    window.setProperty("entries_at_start", len(window.agent.session.get_entries()))
    await asyncio.sleep(0.05)
    assert window.folder_dialog is None and not window.folder_banner.isVisible()  # nothing asked at the door
    await send_until_card(window, "write notes.txt\nhello")
    banner = window.folder_banner
    assert banner.isVisible() and "gone" in banner.text()  # said inline, while the card waits
    window.chat.approval.answer(ApprovalDecision.ALLOW_ONCE)
    await settle(window)
    [failed] = tool_results(window)
    assert failed["isError"] is True and "Working directory does not exist" in failed["content"][0]["text"]
    QTest.mouseClick(banner.choose_button, Qt.MouseButton.LeftButton)
    dialog = window.folder_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setDirectory(str(work))  # browsed into it; accepting takes the folder shown
    dialog.accept()
    await asyncio.sleep(0)
    assert window.folder_dialog is None and not banner.isVisible()
    assert window.agent.working_folder == str(work) and not window.agent.working_folder_missing
    await send_until_card(window, "write notes.txt\nhello")
    window.chat.approval.answer(ApprovalDecision.ALLOW_ONCE)
    await settle(window)
    assert (work / "notes.txt").read_text() == "hello"
    window.close()


@pytest.mark.asyncio
async def test_cancelling_the_folder_question_keeps_going(tmp_path: Path, qtbot: Any) -> None:
    gone = tmp_path / "gone"
    window = open_window(session_in(tmp_path, gone), size=(1200, 800))
    qtbot.addWidget(window)
    window.agent.set_model(OfflineProvider())
    window.setProperty("entries_at_start", len(window.agent.session.get_entries()))
    window.chat.send_requested.emit("bash echo hi")
    await card_up(window)
    window.folder_banner.choose_requested.emit()
    assert window.folder_dialog is not None
    window.folder_dialog.reject()
    await asyncio.sleep(0)
    assert window.folder_dialog is None and window.agent.working_folder_missing
    assert window.folder_banner.isVisible()  # still said: nothing was chosen
    window.chat.approval.answer(ApprovalDecision.ALLOW_ONCE)  # the turn goes on
    await settle(window)
    [result] = tool_results(window)
    assert result["isError"] is True and "Working directory does not exist" in result["content"][0]["text"]
    assert window.folder_dialog is None  # never opened by itself
    window.close()
