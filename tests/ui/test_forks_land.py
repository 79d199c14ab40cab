"""Forks land where sessions live (issue 22 item 4): a fork of a user message and a clone of an
assistant reply, from a session opened from a file outside the sessions folder, are written into the
sessions folder of its working folder, listed and selected in the sessions panel at once, opened in
place (or, asked for, in a new window while this one stays), and the status line says so in full
with "Open" / "Show in list"."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from desktop_app.agent.startup import SAMPLE_CWD, SAMPLE_SESSION
from desktop_app.session.paths import arbor_sessions_root, encode_cwd
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump
from tests.ui.test_steering import CASCAIS_A, CASCAIS_Q, _open, wait_until


@pytest.fixture
def source(tmp_path: Path) -> Path:
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    path = downloads / "trip.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    return path


@pytest.fixture
def window(source: Path) -> Iterator[MainWindow]:
    opened = _open(source)
    yield opened
    opened.close()
    pump(50)


def sessions_folder() -> Path:
    return arbor_sessions_root() / encode_cwd(SAMPLE_CWD)


@pytest.mark.parametrize(("entry_id", "position", "kind"), [(CASCAIS_Q, "before", "Forked"), (CASCAIS_A, "at", "Cloned")])
def test_fork_and_clone_land_in_the_sessions_folder_and_the_list(
    window: MainWindow, source: Path, entry_id: str, position: str, kind: str
) -> None:
    assert window.fork_entry(entry_id, position, new_window=False)
    new = window.agent.view.session_file
    assert new is not None and Path(new).parent == sessions_folder() and Path(new).is_file()
    assert new != str(source) and [p.name for p in source.parent.iterdir()] == ["trip.jsonl"]
    assert wait_until(lambda: new in window.sessions.listed_paths(), 5000)
    assert wait_until(lambda: window.sessions.selected_path() == new, 1000)  # selected at once
    notice = window.status.notice
    assert notice.isVisible() and notice.text() == f"{kind} into a new session under “trips”, open here."
    assert notice.detail() == new
    assert notice.actions_shown() == ["Show in list"]  # it is open here already
    pump(20)
    shown = notice.findChild(QLabel, "statusNoticeText")
    assert shown is not None and shown.text() == notice.text()  # said whole, not cut, at this width
    assert notice.x() < window.shell.model_picker.x()  # on the left, the permanent widgets after it
    if position == "before":
        assert window.chat.composer_text() == "For day three, what about Cascais?"


def test_a_fork_in_a_new_window_leaves_this_one_on_the_original(window: MainWindow, source: Path) -> None:
    launched: list[str] = []
    window.forker.launch = lambda path: launched.append(path) is None
    assert window.fork_entry(CASCAIS_Q, "before", new_window=True)
    assert window.agent.view.session_file == str(source)  # this window stays where it was
    [new] = launched
    assert Path(new).parent == sessions_folder() and Path(new).is_file()
    assert wait_until(lambda: new in window.sessions.listed_paths(), 5000)
    assert wait_until(lambda: window.sessions.selected_path() == new, 1000)
    notice = window.status.notice
    assert notice.text() == "Forked into a new session under “trips”, opened in a new window."
    assert notice.actions_shown() == ["Open", "Show in list"]
    pump(20)
    shown = notice.findChild(QLabel, "statusNoticeText")
    assert shown is not None and shown.text() == notice.text()  # whole, with both buttons beside it
    window.shell.set_panel_visible(False)
    notice.trigger("Show in list")
    assert window.shell.panel_shown() and window.sessions.selected_path() == new
    notice.trigger("Open")
    assert window.agent.view.session_file == new


def test_the_fork_buttons_offer_a_new_window(window: MainWindow, source: Path) -> None:
    launched: list[str] = []
    window.forker.launch = lambda path: launched.append(path) is None
    window.graph.select(CASCAIS_A, center=True, notify=True)
    button = window.forks.toolbar_button(window.clone_action)
    assert button is not None and button.menu() is not None
    names = [a.text() for a in button.menu().actions()]
    assert names == ["Clone here", "Clone in a new window (Ctrl+click)"]
    button.menu().actions()[1].trigger()
    assert len(launched) == 1 and window.agent.view.session_file == str(source)


def test_a_new_window_is_arbor_on_the_new_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from desktop_app.ui import forking

    started: list[tuple[str, list[str]]] = []

    def start(program: str, arguments: list[str]) -> tuple[bool, int]:
        started.append((program, arguments))
        return True, 4242

    monkeypatch.setattr(forking.QProcess, "startDetached", start)
    assert forking.launch_window("/s/new.jsonl")
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # the bundle's launcher takes the file itself
    assert forking.launch_window("/s/new.jsonl")
    assert started == [(sys.executable, ["-m", "desktop_app", "/s/new.jsonl"]), (sys.executable, ["/s/new.jsonl"])]


def test_the_notice_words() -> None:
    from desktop_app.present.sessions import fork_notice

    assert fork_notice("clone", "/home/you/trips", "not-opened") == (
        "Cloned into a new session under “trips”; a new window could not be started."
    )
    empty = fork_notice("fork", "/home/you/trips", "here", written=False)
    assert empty.startswith("Forked into a new, empty session under “trips”, open here") and "listed once" in empty
