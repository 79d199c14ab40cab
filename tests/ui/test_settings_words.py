"""Settings in plain words (issue 22 item 11): the dialog's labels say what a setting does, pi's
names are in the tooltips only; the thinking level has one source of truth, the toolbar's, which
the dialog repeats (it used to say "medium" while the toolbar said "off")."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractButton, QDialog, QDialogButtonBox, QGroupBox, QLabel

from desktop_app.agent.session import AgentSession
from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.llm.offline import OFFLINE_MODEL, OfflineProvider
from desktop_app.present.settings_form import PI_VERSION_CHOICES, SettingsForm, apply_form, changed_values
from desktop_app.session.manager import SessionManager
from desktop_app.session.paths import arbor_home
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings_dialog import SettingsDialog
from desktop_app.ui.testing import open_window, pump

JARGON = ("Reserve", "Keep recent", "fsync", "Follow", "Tokens", "baseUrl", "piVersion", "retry.", "compaction.")


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    path = tmp_path / "s.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    opened = open_window(path, size=(1300, 850))
    yield opened
    opened.close()
    pump(50)


def shown_words(dialog: SettingsDialog) -> list[str]:
    texts = [w.text() for w in dialog.findChildren(QLabel) if w.isVisibleTo(dialog)]
    texts += [w.text() for w in dialog.findChildren(QAbstractButton) if w.isVisibleTo(dialog)]
    texts += [w.title() for w in dialog.findChildren(QGroupBox)]
    return texts


def test_labels_are_plain_and_tooltips_name_pi_s_settings(window: MainWindow) -> None:
    dialog = window.shell.open_settings()
    words = shown_words(dialog)
    assert not [w for w in words if any(j in w for j in JARGON)], words
    assert "Room for the reply" in words and "Keep word for word" in words
    for widget, name in (
        (dialog.reserve, "compaction.reserveTokens"),
        (dialog.keep_recent, "compaction.keepRecentTokens"),
        (dialog.skip_prompt, "branchSummary.skipPrompt"),
        (dialog.max_retries, "retry.maxRetries"),
        (dialog.base_delay, "retry.baseDelayMs"),
        (dialog.fsync, "fsync"),
        (dialog.pi_version, "piVersion"),
        (dialog.thinking, "defaultThinkingLevel"),
        (dialog.checkpoints, "checkpoints.enabled"),
        (dialog.checkpoint_limit, "checkpoints.maxFileSizeMB"),
    ):
        assert widget.toolTip().endswith(f"setting: {name}"), (name, widget.toolTip())
    dialog.reject()


def test_the_dialog_says_the_thinking_level_the_toolbar_shows(window: MainWindow) -> None:
    assert not window.agent.model.reasoning  # the offline model: thinking is off
    dialog = window.shell.open_settings()
    assert window.thinking_box.currentText() == "off" and window.status.thinking_text() == "thinking off"
    assert dialog.thinking.text().startswith("off — ")
    dialog.reject()
    pump(10)
    window.agent.set_model(OfflineProvider(model=replace(OFFLINE_MODEL, id="offline-thinks", reasoning=True)))
    window.model_changed()
    window.thinking_box.setCurrentText("high")
    window.thinking_box.activated.emit(window.thinking_box.currentIndex())  # chosen in the toolbar
    assert window.agent.thinking_level == "high" and window.status.thinking_text() == "thinking high"
    dialog = window.shell.open_settings()
    assert dialog.thinking.text().startswith("high — ")
    dialog.accept()  # OK without touching anything changes no level
    assert window.agent.thinking_level == "high"
    home = arbor_home()
    assert home is not None
    saved = json.loads((home / "settings.json").read_text())
    assert saved["defaultThinkingLevel"] == "high"  # new sessions start where the toolbar was left, as in pi


def test_the_dialog_shows_every_field_it_is_given_and_reads_it_back(qtbot: Any) -> None:
    """Each field lands in its widget and comes back unchanged (the builder methods wire them all)."""
    form = SettingsForm(
        provider="offline", model=OFFLINE_MODEL.id, base_url="http://127.0.0.1:9", thinking_level="high",
        compaction_enabled=False, reserve_tokens=4096, keep_recent_tokens=7000, skip_branch_summary_prompt=True,
        retry_enabled=False, max_retries=5, base_delay_ms=1500, fsync=False, theme="dark",
        pi_version=PI_VERSION_CHOICES[-1][0], checkpoints_enabled=False, checkpoint_max_file_mb=3,
    )
    dialog = SettingsDialog(form)
    qtbot.addWidget(dialog)
    assert dialog.read_form() == form
    assert not dialog.reserve.isEnabled() and not dialog.max_retries.isEnabled()  # follow their switches
    assert not dialog.checkpoint_limit.isEnabled() and dialog.checkpoint_limit.suffix() == " MB"
    dialog.compaction.setChecked(True)
    assert dialog.reserve.isEnabled() and dialog.keep_recent.isEnabled()
    assert dialog.reserve.suffix() == " tokens" and dialog.base_delay.suffix() == " ms"


def test_checkpoints_are_turned_off_and_their_size_limit_set_with_real_input(qtbot: Any) -> None:
    """Typed and clicked in the dialog: saved under Arbor's names, and the agent's switch follows."""
    before = SettingsForm()
    dialog = SettingsDialog(before)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.checkpoints.isChecked() and dialog.checkpoint_limit.value() == 10
    dialog.checkpoint_limit.setFocus()
    dialog.checkpoint_limit.selectAll()
    qtbot.keyClicks(dialog.checkpoint_limit, "25")
    qtbot.mouseClick(dialog.checkpoints, Qt.MouseButton.LeftButton, pos=QPoint(8, dialog.checkpoints.height() // 2))
    assert not dialog.checkpoints.isChecked() and not dialog.checkpoint_limit.isEnabled()  # the limit follows its switch
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert changed_values(before, dialog.form) == [(("checkpoints", "enabled"), False), (("checkpoints", "maxFileSizeMB"), 25)]
    settings = Settings()
    apply_form(settings, dialog.form)
    agent = AgentSession(SessionManager.in_memory("/tmp"), OfflineProvider(), settings)
    assert not agent.checkpoints  # the next write/edit/bash takes no snapshot; the window offers no restore
    assert settings.checkpoints.size_limit == 25 * 1024 * 1024
