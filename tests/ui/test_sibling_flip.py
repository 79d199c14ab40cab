"""The chat's sibling arrows flip at once, like ChatGPT (issue 22 item 8): no modal question; the
branch just left is offered a summary in a bar that blocks nothing, with Undo, unless the user chose
never to be asked (branchSummary.skipPrompt). The canvas's drag and double-click keep pi's question
(tests/ui/test_steering.py)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.agent.events import CompactionProgress, TurnFinished, TurnStarted, WaitingForServer
from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.settings import Settings
from desktop_app.ui.chat.panel import SiblingArrows
from desktop_app.ui.dialogs import SummaryQuestion
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.ui.test_steering import wait_until

CASCAIS_A = "s0000016"  # the newest leaf of the sibling branch
LEAF = "s000001d"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    return path


def _open(sample: Path, skip_prompt: bool) -> MainWindow:
    Settings.load().save_value(("branchSummary", "skipPrompt"), skip_prompt)
    return open_window(sample, size=(1400, 900))


@pytest.fixture
def window(sample: Path) -> Iterator[MainWindow]:
    opened = _open(sample, skip_prompt=False)  # pi would ask
    yield opened
    opened.close()
    pump(50)


def _previous_arrow(window: MainWindow) -> SiblingArrows:
    assert wait_until(lambda: any(a.isVisible() and a.previous.isEnabled() for a in window.chat.sibling_arrows))
    return next(a for a in window.chat.sibling_arrows if a.isVisible() and a.previous.isEnabled())


def _flip(window: MainWindow) -> None:
    QTest.mouseClick(_previous_arrow(window).previous, Qt.MouseButton.LeftButton)


def test_an_arrow_flips_at_once_and_offers_a_summary_without_a_dialog(window: MainWindow, sample: Path) -> None:
    before = sample.read_bytes()
    _flip(window)
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A)
    assert window.steering.summary_question is None  # no question first
    assert not [q for q in window.findChildren(SummaryQuestion) if q.isVisible()]
    offer = window.steering.branch_offer
    assert offer.isVisible() and "Summarize the branch you left?" in offer.label.text()
    assert offer.offer is not None and offer.offer.left_leaf == LEAF
    assert sample.read_bytes() == before  # a flip writes nothing
    QTest.mouseClick(offer.undo_button, Qt.MouseButton.LeftButton)  # Undo
    assert wait_until(lambda: window.session.leaf_id == LEAF)
    assert not offer.isVisible()
    assert sample.read_bytes() == before


def test_summarize_from_the_offer_leaves_the_branch_with_a_summary(window: MainWindow, sample: Path) -> None:
    lines_before = len(_lines(sample))
    _flip(window)
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A and not window.agent.busy)
    QTest.mouseClick(window.steering.branch_offer.summarize_button, Qt.MouseButton.LeftButton)
    assert wait_until(lambda: len(_lines(sample)) > lines_before and not window.agent.busy)
    added = _lines(sample)[lines_before:]
    assert [e["type"] for e in added] == ["branch_summary"]  # what pi's "Summarize" writes
    assert added[0]["parentId"] == CASCAIS_A and added[0]["fromId"] == LEAF
    assert window.session.leaf_id == added[0]["id"]


def test_dont_ask_again_sets_skip_prompt_and_no_offer_follows(window: MainWindow) -> None:
    _flip(window)
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A)
    QTest.mouseClick(window.steering.branch_offer.never_button, Qt.MouseButton.LeftButton)
    assert Settings.load().branch_summary.skip_prompt
    assert wait_until(lambda: any(a.isVisible() and a.next.isEnabled() for a in window.chat.sibling_arrows))
    arrows = next(a for a in window.chat.sibling_arrows if a.isVisible() and a.next.isEnabled())
    QTest.mouseClick(arrows.next, Qt.MouseButton.LeftButton)
    assert wait_until(lambda: window.session.leaf_id == LEAF)
    assert not window.steering.branch_offer.isVisible()


def test_with_skip_prompt_the_arrows_flip_without_an_offer(sample: Path) -> None:
    window = _open(sample, skip_prompt=True)
    try:
        _flip(window)
        assert wait_until(lambda: window.session.leaf_id == CASCAIS_A)
        assert not window.steering.branch_offer.isVisible()
    finally:
        window.close()
        pump(50)


def test_a_new_turn_dismisses_the_offer_and_other_events_leave_it(window: MainWindow) -> None:
    _flip(window)
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A and window.steering.branch_offer.isVisible())
    offer = window.steering.branch_offer
    for ignored in (TurnFinished(), WaitingForServer(3.0), CompactionProgress("manual", 10)):
        window.steering.on_agent_event(ignored)  # named as ignored: nothing happens
        assert offer.isVisible()
    window.steering.on_agent_event(TurnStarted())  # the user went on on the new branch
    assert not offer.isVisible()
