"""What the Settings dialog edits and what saving means, in pi's setting names. No Qt.

The dialog (``ui/settings_dialog.py``) shows a :class:`SettingsForm`, lets the person change it, and
hands it back; :func:`changed_values` says which ``settings.json`` keys (pi's nesting and names:
``compaction.reserveTokens``, ``branchSummary.skipPrompt``, ``retry.maxRetries``…) change, and
:func:`apply_form` puts the values on the running :class:`~desktop_app.settings.Settings`. The API key
is never part of the form: it goes to the keyring (``llm.keys``), and :func:`key_status` words what the
dialog says about it (the environment variable wins, where the key is kept, a keyring that is absent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from desktop_app.llm.catalog import DEFAULT_MODEL_ID, get_model, list_models
from desktop_app.llm.keys import ENV_VAR, KeySource
from desktop_app.llm.offline import OFFLINE_MODEL
from desktop_app.session.entries import THINKING_LEVELS
from desktop_app.session.profile import DEFAULT_PI_VERSION, PROFILES
from desktop_app.settings import Settings

__all__ = [
    "MAX_CHECKPOINT_FILE_MB",
    "PI_VERSION_CHOICES",
    "PROVIDERS",
    "THEME_CHOICES",
    "THINKING_CHOICES",
    "WORDS",
    "KeyStatus",
    "ModelChoice",
    "SettingsForm",
    "apply_form",
    "changed_values",
    "form_from_settings",
    "key_status",
    "model_choices",
    "model_label",
    "thinking_note",
    "tooltip",
    "validate",
]

PROVIDERS: tuple[tuple[str, str], ...] = (("anthropic", "Anthropic (Claude)"), ("offline", "Offline (no network)"))
THINKING_CHOICES: tuple[str, ...] = THINKING_LEVELS
THEME_CHOICES: tuple[tuple[str, str], ...] = (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"))
#: Whose rules a session opened from now on follows (files carry no version: DESIGN.md §5).
PI_VERSION_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (version, f"pi {version}" + (" (today's pi)" if version == DEFAULT_PI_VERSION else ""))
    for version in sorted(PROFILES, key=lambda v: v != DEFAULT_PI_VERSION)
)


@dataclass(frozen=True)
class SettingsForm:
    """Every field of the dialog, one per setting (pi's name in the comment)."""

    provider: str = "anthropic"  # provider
    model: str = DEFAULT_MODEL_ID  # model
    base_url: str = ""  # baseUrl ("" = Anthropic's own)
    thinking_level: str = "medium"  # defaultThinkingLevel
    compaction_enabled: bool = True  # compaction.enabled
    reserve_tokens: int = 16384  # compaction.reserveTokens
    keep_recent_tokens: int = 20000  # compaction.keepRecentTokens
    skip_branch_summary_prompt: bool = False  # branchSummary.skipPrompt
    retry_enabled: bool = True  # retry.enabled
    max_retries: int = 3  # retry.maxRetries
    base_delay_ms: int = 2000  # retry.baseDelayMs
    fsync: bool = True  # fsync
    theme: str = "system"  # theme
    pi_version: str = DEFAULT_PI_VERSION  # piVersion (Arbor's own: which pi's rules a session follows)
    checkpoints_enabled: bool = True  # checkpoints.enabled (Arbor's own)
    checkpoint_max_file_mb: int = 10  # checkpoints.maxFileSizeMB (Arbor's own)


_KEYS: Mapping[str, tuple[str, ...]] = {
    "provider": ("provider",),
    "model": ("model",),
    "base_url": ("baseUrl",),
    "thinking_level": ("defaultThinkingLevel",),
    "compaction_enabled": ("compaction", "enabled"),
    "reserve_tokens": ("compaction", "reserveTokens"),
    "keep_recent_tokens": ("compaction", "keepRecentTokens"),
    "skip_branch_summary_prompt": ("branchSummary", "skipPrompt"),
    "retry_enabled": ("retry", "enabled"),
    "max_retries": ("retry", "maxRetries"),
    "base_delay_ms": ("retry", "baseDelayMs"),
    "fsync": ("fsync",),
    "theme": ("theme",),
    "pi_version": ("piVersion",),
    "checkpoints_enabled": ("checkpoints", "enabled"),
    "checkpoint_max_file_mb": ("checkpoints", "maxFileSizeMB"),
}
"""Form field → the ``settings.json`` path it is saved under (pi's names where pi has them)."""


WORDS: Mapping[str, tuple[str, str]] = {
    "provider": ("Provider", "Who runs the model: Anthropic, or the offline model that never leaves this computer."),
    "model": ("Model", "The model that replies. Its context window decides when Arbor summarizes older messages."),
    "base_url": (
        "Server address",
        "Another Anthropic-compatible server (a proxy, a local gateway). Empty: Anthropic's own.",
    ),
    "thinking_level": ("Thinking", "How much the model thinks before it replies."),
    "compaction_enabled": (
        "Summarize older messages when the conversation gets too long",
        "When the conversation nears the model's limit, older messages are replaced by a summary "
        "(compaction); the session file keeps everything.",
    ),
    "reserve_tokens": (
        "Room for the reply",
        "Arbor summarizes when less than this is left free in the model's context window: the reply "
        "(and the summary itself) are written in that room.",
    ),
    "keep_recent_tokens": (
        "Keep word for word",
        "When older messages are summarized, about this much of the latest conversation is kept as it is.",
    ),
    "skip_branch_summary_prompt": (
        "Never ask to summarize when switching branches",
        "Switching to another branch then leaves the one you were on as it is, without a summary.",
    ),
    "retry_enabled": (
        "Try again when the server is busy or the connection drops",
        "A request that fails for a passing reason is sent again after a wait.",
    ),
    "max_retries": ("Try again at most", "How many times a failed request is sent again."),
    "base_delay_ms": ("First wait", "The wait before the first new try; it doubles after each one."),
    "fsync": (
        "Write each message to disk at once",
        "Safest: a power cut loses at most the line being written. Slower on slow disks.",
    ),
    "theme": ("Colours", "Light, dark, or as your desktop is set."),
    "pi_version": (
        "Behave like",
        "How sessions opened from now on build what the model reads, summarize and write their files: as "
        "this version of pi does. Files written either way open in both.",
    ),
    "checkpoints_enabled": (
        "Keep checkpoints of the working folder",
        "Before and after each write, edit and bash call the folder is saved in Arbor's data folder, so "
        "its files can follow the tree (restore, changes per turn). Off: nothing is saved, and the "
        "window offers no restore.",
    ),
    "checkpoint_max_file_mb": (
        "Skip files larger than",
        "Larger files are left out of checkpoints (and named in them): a restore leaves them as they are.",
    ),
}
"""Each field's label in plain words and its tooltip; :func:`tooltip` adds the setting's own name."""


def tooltip(field: str) -> str:
    """The field's explanation, then the name it is saved under (pi's where pi has one)."""
    keys = ".".join(_KEYS[field])
    whose = "Arbor's setting" if field in _ARBOR_ONLY else "pi's setting"
    return f"{WORDS[field][1]}\n{whose}: {keys}"


_ARBOR_ONLY = frozenset({"provider", "model", "base_url", "fsync", "theme", "pi_version", "checkpoints_enabled",
                         "checkpoint_max_file_mb"})
#: The largest file size limit the dialog offers (a snapshot reads a file whole into memory).
MAX_CHECKPOINT_FILE_MB = 1024


def thinking_note(level: str, reasoning: bool) -> str:
    """What the dialog says about thinking: the level in use, the same one the toolbar shows (one
    source of truth: the toolbar sets it, and new sessions start at the level last chosen there,
    pi's ``defaultThinkingLevel``)."""
    if not reasoning:
        return f"{level} — this model does not think"
    return f"{level} — set with Thinking in the toolbar; new sessions start at the level last chosen there"


def form_from_settings(settings: Settings) -> SettingsForm:
    return SettingsForm(
        provider=settings.provider or "anthropic",
        model=settings.model or DEFAULT_MODEL_ID,
        base_url=settings.base_url or "",
        thinking_level=settings.default_thinking_level,
        compaction_enabled=settings.compaction.enabled,
        reserve_tokens=settings.compaction.reserve_tokens,
        keep_recent_tokens=settings.compaction.keep_recent_tokens,
        skip_branch_summary_prompt=settings.branch_summary.skip_prompt,
        retry_enabled=settings.retry.enabled,
        max_retries=settings.retry.max_retries,
        base_delay_ms=settings.retry.base_delay_ms,
        fsync=settings.fsync,
        theme=settings.theme,
        pi_version=settings.pi_version,
        checkpoints_enabled=settings.checkpoints.enabled,
        checkpoint_max_file_mb=settings.checkpoints.max_file_size_mb,
    )


def validate(form: SettingsForm) -> list[str]:
    """What is wrong with ``form``, in words for the person (empty: it can be saved)."""
    problems: list[str] = []
    window = get_model(form.model).context_window
    if form.provider not in {p for p, _ in PROVIDERS}:
        problems.append(f"Unknown provider {form.provider!r}.")
    if form.thinking_level not in THINKING_CHOICES:
        problems.append(f"Unknown thinking level {form.thinking_level!r}.")
    if form.reserve_tokens < 0 or form.keep_recent_tokens < 0:
        problems.append("Token counts cannot be negative.")
    if form.reserve_tokens >= window:
        problems.append(f"The compaction reserve ({form.reserve_tokens:,}) must be below the model's context window ({window:,}).")
    if form.pi_version not in {v for v, _ in PI_VERSION_CHOICES}:
        problems.append(f"Unknown pi version {form.pi_version!r}.")
    if not 1 <= form.checkpoint_max_file_mb <= MAX_CHECKPOINT_FILE_MB:
        problems.append(f"The checkpoint file size limit must be 1 to {MAX_CHECKPOINT_FILE_MB:,} MB.")
    if form.max_retries < 0 or form.base_delay_ms < 0:
        problems.append("Retry counts and delays cannot be negative.")
    url = form.base_url.strip()
    if url and not url.startswith(("http://", "https://")):
        problems.append("The base URL must start with http:// or https://.")
    return problems


def _stored(field: str, value: Any) -> Any:
    """The JSON value saved for a form field (``""`` base URL is saved as ``null``: Anthropic's own)."""
    if field == "base_url":
        return value.strip() or None
    return value


def changed_values(before: SettingsForm, after: SettingsForm) -> list[tuple[tuple[str, ...], Any]]:
    """``(settings.json path, value)`` for every field that changed, in form order."""
    return [
        (_KEYS[f.name], _stored(f.name, getattr(after, f.name)))
        for f in fields(SettingsForm)
        if getattr(before, f.name) != getattr(after, f.name)
    ]


def apply_form(settings: Settings, form: SettingsForm) -> None:
    """Put the form's values on the running settings (what the next turn and compaction use)."""
    settings.provider = form.provider
    settings.model = form.model
    settings.base_url = form.base_url.strip() or None
    settings.default_thinking_level = form.thinking_level
    settings.compaction = replace(
        settings.compaction,
        enabled=form.compaction_enabled,
        reserve_tokens=form.reserve_tokens,
        keep_recent_tokens=form.keep_recent_tokens,
    )
    settings.branch_summary.skip_prompt = form.skip_branch_summary_prompt
    settings.retry.enabled = form.retry_enabled
    settings.retry.max_retries = form.max_retries
    settings.retry.base_delay_ms = form.base_delay_ms
    settings.fsync = form.fsync
    settings.theme = form.theme
    settings.pi_version = form.pi_version  # sessions opened from now on; the open one keeps its rules
    settings.checkpoints.enabled = form.checkpoints_enabled  # from the next write/edit/bash call on
    settings.checkpoints.max_file_size_mb = form.checkpoint_max_file_mb


# ================================================================================ models


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the model picker: the id and ``Claude Sonnet 4.5 · 200k context``."""

    id: str
    label: str
    context_window: int
    reasoning: bool


def _tokens(count: int) -> str:
    return f"{count // 1_000_000}M" if count >= 1_000_000 and count % 1_000_000 == 0 else f"{round(count / 1000)}k"


def model_label(model_id: str) -> str:
    """``Claude Sonnet 4.5 · 200k context`` (the id itself for a model the catalog does not know)."""
    model = get_model(model_id)
    name = model.name or model_id
    return f"{name} · {_tokens(model.context_window)} context"


def model_choices(provider: str, current: str | None = None) -> list[ModelChoice]:
    """The models of ``provider`` in display order; ``current`` is added when the catalog lacks it."""
    models = list_models(OFFLINE_MODEL.provider if provider == "offline" else provider)
    choices = [ModelChoice(m.id, model_label(m.id), m.context_window, m.reasoning) for m in models]
    if current and provider != "offline" and current not in {c.id for c in choices}:
        model = get_model(current)
        choices.append(ModelChoice(current, model_label(current), model.context_window, model.reasoning))
    return choices


# ================================================================================ the key


@dataclass(frozen=True)
class KeyStatus:
    """What the dialog says about the API key, and whether typing one in can take effect."""

    text: str
    source: KeySource
    editable_wins: bool
    """A key typed in the dialog would be used (false while the environment variable is set)."""


def key_status(source: KeySource, keyring_problem: str | None) -> KeyStatus:
    """The sentence under the key field: where the key in use comes from, and what saving does."""
    if source == "env":
        return KeyStatus(
            f"{ENV_VAR} is set in the environment: that key is used and wins over one stored here. "
            "Unset it to use a key saved in this dialog.",
            source,
            False,
        )
    if source == "keyring":
        text = "A key is stored in the system keyring. Type a new one to replace it."
    elif source == "memory":
        text = "A key is kept in memory for this run only (the system keyring is not available)."
    elif keyring_problem:
        text = "No API key: Arbor uses the offline model."
    else:
        text = "No API key: Arbor uses the offline model. A key entered here is kept in the system keyring."
    if keyring_problem:
        text += f"\nThe system keyring is not available: {keyring_problem} You can keep the key for this run only."
    return KeyStatus(text, source, True)
