"""The Settings dialog: the model with its context window, the API key, and pi's settings in plain
words (pi's own names in the tooltips).

The form's content and what saving means live in :mod:`desktop_app.present.settings_form`; this file
lays it out. The API key field is a password field that starts empty (a stored key is never shown,
not even in part); a key typed here goes to the OS keyring through :mod:`desktop_app.llm.keys`, never
into ``settings.json``. When the keyring is not available the dialog says so and offers to keep the
key in memory for this run; when ``ANTHROPIC_API_KEY`` is set the dialog says that it wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.llm import keys
from desktop_app.present.settings_form import (
    MAX_CHECKPOINT_FILE_MB,
    PI_VERSION_CHOICES,
    PROVIDERS,
    THEME_CHOICES,
    WORDS,
    SettingsForm,
    key_status,
    model_choices,
    thinking_note,
    tooltip,
    validate,
)

from .plain import plain_label, plain_text

__all__ = ["SettingsDialog"]


def _spin(maximum: int, step: int, suffix: str, field: str) -> QSpinBox:
    """A number field for ``field`` (its tooltip says what it does and pi's name)."""
    box = QSpinBox()
    box.setRange(0, maximum)
    box.setSingleStep(step)
    box.setGroupSeparatorShown(True)
    box.setSuffix(suffix)
    box.setToolTip(plain_text(tooltip(field)))
    return box


def _check(field: str) -> QCheckBox:
    """A check box labelled with ``field``'s plain words."""
    box = QCheckBox(WORDS[field][0])
    box.setToolTip(plain_text(tooltip(field)))
    return box


def _choices(choices: Sequence[tuple[str, str]], field: str) -> QComboBox:
    """A drop-down of ``(key, text)`` choices (the key is the item's data)."""
    box = QComboBox()
    for key, text in choices:
        box.addItem(text, key)
    box.setToolTip(plain_text(tooltip(field)))
    return box


class SettingsDialog(QDialog):
    """Edits a :class:`SettingsForm`; on OK, :attr:`form` holds the result and the key is stored."""

    def __init__(
        self, form: SettingsForm, parent: QWidget | None = None, *, thinking: str | None = None, reasoning: bool = True
    ) -> None:
        """``thinking``: the level in use (what the toolbar shows); ``reasoning``: the model in use thinks."""
        super().__init__(parent)
        self.setWindowTitle("Settings — Arbor")
        self.setObjectName("settingsDialog")
        self.initial = form
        self.form = form
        self.key_saved_to: str | None = None
        """After OK: ``"keyring"`` or ``"memory"`` when a key was entered, else ``None``."""

        model_box = self._model_box(thinking or form.thinking_level, reasoning)
        key_box = self._key_box()
        sessions_box = self._sessions_box()
        folder_box = self._folder_box()
        self._arrange(model_box, key_box, sessions_box, folder_box)

        self.provider.currentIndexChanged.connect(lambda _i: self._fill_models(self.model.currentData()))
        self.compaction.toggled.connect(self._sync_enabled)
        self.retry.toggled.connect(self._sync_enabled)
        self.checkpoints.toggled.connect(self._sync_enabled)
        self._load(form)
        self.refresh_key_note()

    # ============================================================================ building

    def _model_box(self, thinking: str, reasoning: bool) -> QGroupBox:
        """Provider, model, base URL, and the thinking level in use said in words."""
        self.provider = _choices(PROVIDERS, "provider")
        self.model = QComboBox()
        self.model.setToolTip(plain_text(tooltip("model")))
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("Anthropic's own (https://api.anthropic.com)")
        self.base_url.setToolTip(plain_text(tooltip("base_url")))
        # one source of truth: the level the toolbar shows and sets, said here, not a second control
        self.thinking = QLabel(thinking_note(thinking, reasoning))
        self.thinking.setObjectName("thinkingNote")
        self.thinking.setWordWrap(True)
        self.thinking.setToolTip(plain_text(tooltip("thinking_level")))
        box = QGroupBox("Model")
        rows = QFormLayout(box)
        rows.addRow(WORDS["provider"][0], self.provider)
        rows.addRow(WORDS["model"][0], self.model)
        rows.addRow(WORDS["base_url"][0], self.base_url)
        rows.addRow(WORDS["thinking_level"][0], self.thinking)
        return box

    def _key_box(self) -> QGroupBox:
        """The password field (empty: a stored key is never shown), Remove, memory only, and the note."""
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("sk-ant-…")
        self.key.setToolTip("Anthropic API key — kept in the system keyring, never in a file Arbor writes")
        self.key.setObjectName("apiKey")
        self.key_note = plain_label(QLabel())
        self.key_note.setWordWrap(True)
        self.key_note.setMinimumWidth(330)
        self.key_note.setObjectName("keyNote")
        self.remove_key = QPushButton("Remove stored key")
        self.remove_key.setToolTip("Delete the key from the system keyring (and memory)")
        self.remove_key.clicked.connect(self._remove_key)
        self.memory_only = QCheckBox("Keep the key in memory for this run only")
        self.memory_only.setToolTip("The key is forgotten when Arbor quits; nothing is written")
        box = QGroupBox("API key")
        column = QVBoxLayout(box)
        row = QHBoxLayout()
        row.addWidget(self.key, 1)
        row.addWidget(self.remove_key)
        column.addLayout(row)
        column.addWidget(self.memory_only)
        column.addWidget(self.key_note)
        return box

    def _sessions_box(self) -> QGroupBox:
        """pi's settings (compaction, branch summaries, retries) and Arbor's (fsync, theme, pi version)."""
        self.compaction = _check("compaction_enabled")
        self.reserve = _spin(1_000_000, 1024, " tokens", "reserve_tokens")
        self.keep_recent = _spin(1_000_000, 1000, " tokens", "keep_recent_tokens")
        self.skip_prompt = _check("skip_branch_summary_prompt")
        self.retry = _check("retry_enabled")
        self.max_retries = _spin(20, 1, " times", "max_retries")
        self.base_delay = _spin(600_000, 500, " ms", "base_delay_ms")
        self.fsync = _check("fsync")
        self.theme = _choices(THEME_CHOICES, "theme")
        self.pi_version = _choices(PI_VERSION_CHOICES, "pi_version")
        box = QGroupBox("Sessions")
        form = QFormLayout(box)
        form.addRow(self.compaction)
        rows: list[tuple[str, QWidget] | QWidget] = [
            ("reserve_tokens", self.reserve),
            ("keep_recent_tokens", self.keep_recent),
            self.skip_prompt,
            self.retry,
            ("max_retries", self.max_retries),
            ("base_delay_ms", self.base_delay),
            self.fsync,
            ("theme", self.theme),
            ("pi_version", self.pi_version),
        ]
        for item in rows:
            if isinstance(item, tuple):
                form.addRow(self._label(item[0], item[1]), item[1])
            else:
                form.addRow(item)
        return box

    def _folder_box(self) -> QGroupBox:
        """Arbor's workspace checkpoints: on or off, and the size past which a file is skipped."""
        self.checkpoints = _check("checkpoints_enabled")
        self.checkpoint_limit = _spin(MAX_CHECKPOINT_FILE_MB, 1, " MB", "checkpoint_max_file_mb")
        self.checkpoint_limit.setMinimum(1)
        box = QGroupBox("Working folder")
        form = QFormLayout(box)
        form.addRow(self.checkpoints)
        form.addRow(self._label("checkpoint_max_file_mb", self.checkpoint_limit), self.checkpoint_limit)
        return box

    def _arrange(self, model_box: QWidget, key_box: QWidget, sessions_box: QWidget, folder_box: QWidget) -> None:
        """Model and key on the left, sessions on the right; problems and OK / Cancel below."""
        self.problems = plain_label(QLabel())
        self.problems.setObjectName("settingsProblems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #d1242f;")
        self.problems.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        columns = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(model_box)
        left.addWidget(key_box)
        left.addWidget(folder_box)
        left.addStretch(1)
        columns.addLayout(left, 1)
        columns.addWidget(sessions_box, 1)
        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)  # wrapped notes never clipped
        layout.addLayout(columns)
        layout.addWidget(self.problems)
        layout.addWidget(self.buttons)

    # ============================================================================ form

    def _label(self, field: str, buddy: QWidget) -> QLabel:
        """The row's label in plain words; hovering it tells what the field does and pi's name."""
        label = QLabel(WORDS[field][0])
        label.setToolTip(plain_text(tooltip(field)))
        label.setBuddy(buddy)
        return label

    def _load(self, form: SettingsForm) -> None:
        self.provider.setCurrentIndex(max(0, self.provider.findData(form.provider)))
        self._fill_models(form.model)
        self.base_url.setText(form.base_url)
        self.compaction.setChecked(form.compaction_enabled)
        self.reserve.setValue(form.reserve_tokens)
        self.keep_recent.setValue(form.keep_recent_tokens)
        self.skip_prompt.setChecked(form.skip_branch_summary_prompt)
        self.retry.setChecked(form.retry_enabled)
        self.max_retries.setValue(form.max_retries)
        self.base_delay.setValue(form.base_delay_ms)
        self.fsync.setChecked(form.fsync)
        self.theme.setCurrentIndex(max(0, self.theme.findData(form.theme)))
        self.pi_version.setCurrentIndex(max(0, self.pi_version.findData(form.pi_version)))
        self.checkpoints.setChecked(form.checkpoints_enabled)
        self.checkpoint_limit.setValue(form.checkpoint_max_file_mb)
        self._sync_enabled()

    def _fill_models(self, current: str | None) -> None:
        provider = self.provider.currentData()
        self.model.clear()
        for choice in model_choices(provider, current):
            self.model.addItem(choice.label, choice.id)
        index = self.model.findData(current)
        self.model.setCurrentIndex(max(0, index))
        online = provider != "offline"
        self.base_url.setEnabled(online)

    def _sync_enabled(self) -> None:
        self.reserve.setEnabled(self.compaction.isChecked())
        self.keep_recent.setEnabled(self.compaction.isChecked())
        self.max_retries.setEnabled(self.retry.isChecked())
        self.base_delay.setEnabled(self.retry.isChecked())
        self.checkpoint_limit.setEnabled(self.checkpoints.isChecked())

    def read_form(self) -> SettingsForm:
        """The form as the widgets show it now."""
        return SettingsForm(
            provider=self.provider.currentData(),
            model=self.model.currentData() or self.initial.model,
            base_url=self.base_url.text().strip(),
            thinking_level=self.initial.thinking_level,  # set in the toolbar, not here
            compaction_enabled=self.compaction.isChecked(),
            reserve_tokens=self.reserve.value(),
            keep_recent_tokens=self.keep_recent.value(),
            skip_branch_summary_prompt=self.skip_prompt.isChecked(),
            retry_enabled=self.retry.isChecked(),
            max_retries=self.max_retries.value(),
            base_delay_ms=self.base_delay.value(),
            fsync=self.fsync.isChecked(),
            theme=self.theme.currentData(),
            pi_version=self.pi_version.currentData(),
            checkpoints_enabled=self.checkpoints.isChecked(),
            checkpoint_max_file_mb=self.checkpoint_limit.value(),
        )

    # ============================================================================ key

    def refresh_key_note(self) -> None:
        problem = keys.keyring_problem()
        status = key_status(keys.key_source(), problem)
        self.key_note.setText(status.text)
        self.memory_only.setVisible(problem is not None)
        self.memory_only.setChecked(problem is not None)
        self.remove_key.setEnabled(status.source in ("keyring", "memory"))

    def _remove_key(self) -> None:
        keys.delete_api_key()
        self.refresh_key_note()

    def focus_key(self) -> None:
        self.key.setFocus(Qt.FocusReason.OtherFocusReason)

    def _save_key(self) -> str | None:
        """Store a typed key; returns a problem to show (the dialog stays open) or ``None``."""
        typed = self.key.text().strip()
        if not typed:
            return None
        try:
            if self.memory_only.isVisible() and self.memory_only.isChecked():
                keys.use_key_for_this_run(typed)
                self.key_saved_to = "memory"
            else:
                keys.save_api_key(typed)
                self.key_saved_to = "keyring"
        except keys.KeyringUnavailableError as exc:
            self.refresh_key_note()
            return f"The key could not be stored: {exc} Tick “Keep the key in memory for this run only” to use it now."
        except keys.InvalidApiKeyError as exc:
            return str(exc)
        self.key.clear()
        return None

    # ============================================================================ closing

    def accept(self) -> None:
        form = self.read_form()
        problems = validate(form)
        key_problem = None if problems else self._save_key()
        if key_problem:
            problems.append(key_problem)
        if problems:
            self.problems.setText("\n".join(problems))
            self.problems.show()
            return
        self.form = form
        super().accept()
