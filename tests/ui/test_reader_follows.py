"""The reader follows leaf moves (issue 22 item 7): what it says about the selected node (on the
active path, on another branch, the active leaf) and whether "Continue from here" applies are
those of the leaf now, not of the leaf when the node was clicked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump
from tests.ui.test_steering import CASCAIS_A, CASCAIS_Q, LEAF, SINTRA_A, _click, _open, sample, wait_until  # noqa: F401


@pytest.fixture
def window(sample: Path) -> Iterator[MainWindow]:  # noqa: F811 - the shared fixture, by name
    opened = _open(sample)
    yield opened
    opened.close()
    pump(50)


def status(window: MainWindow) -> str:
    page = window.steering.reader.page
    return page.status if page is not None else ""


def test_the_reader_follows_a_branch_switch_and_back(window: MainWindow) -> None:
    reader = window.steering.reader
    _click(window, SINTRA_A)
    assert reader.entry_id() == SINTRA_A and status(window) == "On the active path"
    window.graph.node_activated.emit(CASCAIS_A)  # switch to the Cascais branch (no summary asked)
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A)
    assert wait_until(lambda: "another branch" in status(window), 2000)  # the branch just left
    assert reader.entry_id() == SINTRA_A and reader.isVisible()
    _click(window, CASCAIS_Q)
    assert status(window) == "On the active path"
    window.steering.undo()  # back to the Sintra leaf, nothing written
    assert wait_until(lambda: window.session.leaf_id == LEAF)
    assert wait_until(lambda: "another branch" in status(window), 2000)


def test_continue_from_here_follows_the_leaf(window: MainWindow) -> None:
    reader = window.steering.reader
    _click(window, CASCAIS_A)
    assert reader.continue_button.isEnabled()
    reader.continue_button.click()
    assert wait_until(lambda: window.session.leaf_id == CASCAIS_A)
    assert wait_until(lambda: status(window) == "The active leaf", 2000)
    assert not reader.continue_button.isEnabled()  # already the leaf


def test_a_reply_below_the_read_leaf_moves_it_onto_the_path(window: MainWindow) -> None:
    leaf = window.session.leaf_id
    assert leaf is not None
    window.steering.node_selected(leaf)  # read it (the default filter folds it into its neighbour on the graph)
    assert window.steering.reader.entry_id() == leaf
    assert status(window) == "The active leaf" and not window.steering.reader.continue_button.isEnabled()
    entries = len(window.session.get_entries())
    window.chat.send_requested.emit("One more question.")
    assert wait_until(lambda: not window.agent.busy and len(window.session.get_entries()) >= entries + 2)
    assert wait_until(lambda: status(window) == "On the active path", 2000)
    assert window.steering.reader.continue_button.isEnabled()


def test_a_reread_asked_for_at_a_turns_end_waits_until_the_reply_is_over(qtbot: Any) -> None:
    """The turn's last event comes before its task ends (and an automatic compaction may follow): a
    re-read then would leave "Continue from here" disabled. It waits, reading only the busy flag."""
    from desktop_app.present.reader import ReaderPage
    from desktop_app.ui.reader import ReaderPanel

    panel = ReaderPanel()
    qtbot.addWidget(panel)
    busy = [True]
    reads: list[bool] = []
    page = ReaderPage(entry_id="e1", title="t", status="On the active path", body="b", crumbs=(),
                      can_continue=False, continue_reason="wait for the reply")

    def reread(old: ReaderPage) -> ReaderPage:
        reads.append(busy[0])
        return replace(old, can_continue=not busy[0])

    panel.follow(reread, lambda: busy[0])
    panel.show_page(page)
    panel.refresh_later()
    qtbot.wait(250)
    assert reads == []  # nothing re-read while the reply runs
    busy[0] = False
    qtbot.waitUntil(lambda: reads == [False], timeout=2000)
    assert panel.continue_button.isEnabled()
