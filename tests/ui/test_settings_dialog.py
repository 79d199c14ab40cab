"""The Settings dialog in the real window: pi's settings saved by name, the API key stored through a
(test) keyring backend and found in no file Arbor writes, the environment variable winning, a
missing or failing keyring giving a message and a this-run-only option; the offline banner's
"Add API key…" button; the model picker; the theme switch; F1 and shortcut tooltips."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QToolButton

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.llm import keys
from desktop_app.present.settings_form import model_label
from desktop_app.session.paths import arbor_home
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window
from desktop_app.ui.theme import apply_theme

KEY = "sk-ant-api03-Sup3rSecretTestKey-0123456789abcdef"


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps secrets in a dict (the tests' stand-in for the OS keyring)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("no such password")


class LockedKeyring(MemoryKeyring):
    """A keyring that is there but refuses to store (a locked keychain)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked(f"the collection is locked (asked to store {password})")


def use_keyring(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    keys.forget_key_for_this_run()
    try:
        yield backend
    finally:
        keys.forget_key_for_this_run()
        keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring() -> Iterator[KeyringBackend]:
    yield from use_keyring(MemoryKeyring())


@pytest.fixture
def no_keyring() -> Iterator[KeyringBackend]:
    yield from use_keyring(fail.Keyring())


@pytest.fixture
def locked_keyring() -> Iterator[KeyringBackend]:
    yield from use_keyring(LockedKeyring())


def window(tmp_path: Path, qtbot: Any) -> MainWindow:
    path = tmp_path / "s.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    win = open_window(path, size=(1300, 850))
    qtbot.addWidget(win)
    return win


def files_holding(secret: str) -> list[Path]:
    """Every file under Arbor's home (settings.json, state/, sessions/) that contains ``secret``."""
    home = arbor_home()
    assert home is not None
    return [p for p in home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_the_key_goes_to_the_keyring_and_into_no_file(memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    assert win.agent.is_offline and win.shell.add_key_button.isVisibleTo(win)
    dialog = win.shell.open_settings()
    assert dialog.key.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.key.text() == ""
    dialog.key.setText(KEY)
    dialog.reserve.setValue(20000)
    dialog.skip_prompt.setChecked(True)
    dialog.accept()
    assert memory_keyring.secrets == {(keys.KEYRING_SERVICE, keys.KEYRING_USERNAME): KEY}
    assert not win.agent.is_offline  # the key took effect at once
    assert not win.shell.add_key_button.isVisibleTo(win)
    assert win.shell.model_picker.text().endswith("200k context")
    assert win.settings.compaction.reserve_tokens == 20000 and win.settings.branch_summary.skip_prompt
    home = arbor_home()
    assert home is not None
    saved = json.loads((home / "settings.json").read_text())
    assert saved["compaction"]["reserveTokens"] == 20000 and saved["branchSummary"]["skipPrompt"] is True
    win.close()  # state written (geometry, recent), session flushed
    assert (home / "state" / "ui-state.json").is_file()
    assert files_holding(KEY) == []
    assert KEY.encode() not in (tmp_path / "s.jsonl").read_bytes()
    # reopened: the dialog says a key is stored and still shows none of it
    again = window(tmp_path, qtbot)
    assert not again.agent.is_offline
    reopened = again.shell.open_settings()
    assert reopened.key.text() == "" and "stored in the system keyring" in reopened.key_note.text()
    reopened.reject()


def test_the_environment_variable_wins_and_the_dialog_says_so(memory_keyring: MemoryKeyring, tmp_path: Path,
                                                              qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-fromTheEnvironment000")
    win = window(tmp_path, qtbot)
    dialog = win.shell.open_settings()
    assert "ANTHROPIC_API_KEY is set in the environment" in dialog.key_note.text()
    assert "wins" in dialog.key_note.text()
    dialog.reject()


def test_no_keyring_gives_a_message_and_a_this_run_option(no_keyring: KeyringBackend, tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    dialog = win.shell.open_settings()
    assert "not available" in dialog.key_note.text()
    assert dialog.memory_only.isVisibleTo(dialog) and dialog.memory_only.isChecked()
    dialog.key.setText(KEY)
    dialog.memory_only.setChecked(False)
    dialog.accept()  # refused: the dialog stays open with the reason, nothing crashes
    assert win.shell.settings_dialog is dialog and dialog.problems.isVisibleTo(dialog)
    assert "could not be stored" in dialog.problems.text() and KEY not in dialog.problems.text()
    dialog.memory_only.setChecked(True)
    dialog.accept()
    assert win.shell.settings_dialog is None and dialog.key_saved_to == "memory"
    assert keys.get_api_key() == KEY and keys.key_source() == "memory"
    assert not win.agent.is_offline
    win.close()
    assert files_holding(KEY) == []


def test_a_keyring_that_refuses_gives_the_reason_without_the_key(locked_keyring: KeyringBackend, tmp_path: Path,
                                                                 qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    dialog = win.shell.open_settings()
    dialog.key.setText(KEY)
    dialog.accept()
    assert win.shell.settings_dialog is dialog
    assert "locked" in dialog.problems.text() and KEY not in dialog.problems.text()
    assert "[redacted]" in dialog.problems.text()
    dialog.reject()
    assert win.agent.is_offline


def test_the_offline_banner_button_opens_the_key_field(memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    assert win.chat.info_banner.isVisibleTo(win)
    win.shell.add_key_button.click()
    dialog = win.shell.settings_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


def test_the_model_picker_switches_and_saves_the_model(memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any) -> None:
    keys.save_api_key(KEY)
    win = window(tmp_path, qtbot)
    picker = win.shell.model_picker
    assert picker.parent() is win.statusBar() or win.statusBar().isAncestorOf(picker)
    assert any(e.startswith("Claude Haiku 4.5 · 200k context") for e in picker.menu_entries())
    picker.picked.emit("anthropic", "claude-haiku-4-5")
    assert win.agent.model.id == "claude-haiku-4-5"
    assert picker.text() == "Claude Haiku 4.5 · 200k context"
    home = arbor_home()
    assert home is not None
    assert json.loads((home / "settings.json").read_text())["model"] == "claude-haiku-4-5"
    entries = win.agent.view.get_entries()
    assert entries[-1]["type"] in ("model_change", "thinking_level_change")


def _showing_model(win: MainWindow) -> list[str]:
    """The texts of the status bar's visible widgets that name the agent's model (id or display name)."""
    model_id = str(win.agent.model.id)
    names = (model_id.lower(), model_label(model_id).lower())
    bar = win.statusBar()
    widgets = [*bar.findChildren(QLabel), *bar.findChildren(QToolButton)]
    texts = [w.text() for w in widgets if w.isVisibleTo(win)]
    return [t for t in texts if any(n in t.lower() for n in names)]


@pytest.mark.parametrize("with_key", [False, True])
def test_the_status_bar_names_the_model_once(
    with_key: bool, memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any
) -> None:
    if with_key:
        keys.save_api_key(KEY)
    win = window(tmp_path, qtbot)
    assert win.agent.is_offline is not with_key
    assert _showing_model(win) == [win.shell.model_picker.text()]
    win.shell.model_picker.picked.emit("anthropic", "claude-haiku-4-5")
    if with_key:
        assert win.agent.model.id == "claude-haiku-4-5"
    assert _showing_model(win) == [win.shell.model_picker.text()]
    assert win.status.model_text() == win.agent.model.id  # still read back (automation)
    if win.shell.settings_dialog is not None:  # offline: picking Claude asks for a key
        win.shell.settings_dialog.reject()


def test_theme_switch_changes_the_palette(memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette().color(QPalette.ColorRole.Window)
    try:
        dialog = win.shell.open_settings()
        dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
        dialog.accept()
        QCoreApplication.processEvents()  # widgets get the palette change as an event
        dark = app.palette().color(QPalette.ColorRole.Window)
        assert dark.lightness() < 100 < light.lightness()
        assert win.palette().color(QPalette.ColorRole.Window) == dark
        assert win.chat.theme().dark
        assert win.settings.theme == "dark"
    finally:
        apply_theme("light")
    assert app.palette().color(QPalette.ColorRole.Window).lightness() > 200


def test_f1_lists_the_keys_and_every_tooltip_names_its_shortcut(tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    win.shell.help_action.trigger()
    dialog = win.shell.keys_dialog
    assert dialog is not None and dialog.isVisible()
    listed = {row.keys for section in dialog.sections for row in section.rows}
    assert {"Ctrl+O", "Ctrl+N", "F1", "Ctrl+,", "Ctrl+Shift+E", "Ctrl+L", "Enter", "Shift+Enter"} <= listed
    assert "Open a session file" in dialog.text.toPlainText() or "Open" in dialog.text.toPlainText()
    with_keys = [a for a in win.findChildren(QAction) if not a.shortcut().isEmpty() and a.text()]
    assert len(with_keys) >= 10
    for action in with_keys:
        assert action.shortcut().toString() in action.toolTip(), (action.text(), action.toolTip())


def test_nothing_is_left_in_the_environment() -> None:
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_pi_version_chosen_in_the_dialog_is_saved_and_used_by_the_next_session(
    memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any
) -> None:
    win = window(tmp_path, qtbot)
    assert win.agent.session.profile.version == "1.6.0"
    dialog = win.shell.open_settings()
    assert dialog.pi_version.currentData() == "1.6.0"
    dialog.pi_version.setCurrentIndex(dialog.pi_version.findData("0.73.1"))
    dialog.accept()
    home = arbor_home()
    assert home is not None
    assert json.loads((home / "settings.json").read_text())["piVersion"] == "0.73.1"
    assert win.agent.session.profile.version == "1.6.0"  # the open session keeps its rules
    other = tmp_path / "other.jsonl"
    shutil.copyfile(SAMPLE_SESSION, other)
    win.open_path(str(other))
    assert win.agent.session.profile.version == "0.73.1"
    win.close()


def test_the_graph_follows_a_live_theme_switch(memory_keyring: MemoryKeyring, tmp_path: Path, qtbot: Any) -> None:
    win = window(tmp_path, qtbot)
    graph = win.graph
    style = graph.graph_style
    scene = graph.graph_scene()
    assert not style.dark
    light_background = scene.backgroundBrush().color()
    edge = next(iter(scene.edges.values()))
    light_edge_pen = scene.edge_layer.pen_for(edge).color()
    try:
        apply_theme("dark")
        QCoreApplication.processEvents()  # the palette change reaches the canvas as an event
        assert style.dark and graph.graph_style is style  # the one shared style, changed in place
        assert scene.backgroundBrush().color().lightness() < 60 < light_background.lightness()
        assert graph.backgroundBrush().color() == scene.backgroundBrush().color()
        assert scene.edge_layer.pen_for(edge).color() == (style.active if edge.active else style.edge) != light_edge_pen
        image = graph.viewport().grab().toImage()
        corner = image.pixelColor(2, 2)
        assert corner.lightness() < 60  # what is painted, not only what is set
    finally:
        apply_theme("light")
        QCoreApplication.processEvents()
    assert not style.dark and scene.backgroundBrush().color() == light_background
