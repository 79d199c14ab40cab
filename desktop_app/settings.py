"""Arbor's settings: ``settings.json`` with pi's names where pi has them (DESIGN.md §9, pi-spec §5.1).

A missing or broken file never stops the app: defaults are used and the problem is reported in
``Settings.warnings`` so the window can say what it ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .compaction.tokens import CompactionSettings
from .session.entries import THINKING_LEVELS
from .session.paths import arbor_config_dir
from .session.profile import DEFAULT_PI_VERSION, PROFILES, PiProfile, profile_for
from .tools.registry import ALL_TOOLS, DEFAULT_TOOLS


@dataclass
class BranchSummarySettings:
    reserve_tokens: int = 16384
    skip_prompt: bool = False


@dataclass
class RetrySettings:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_retry_delay_ms: int = 60000  # pi: retry.provider.maxRetryDelayMs


@dataclass
class NetworkSettings:
    """How long Arbor waits on a model server (Arbor's own ``network`` group; pi has no equivalent).

    ``connectTimeoutMs`` bounds opening the connection; ``idleTimeoutMs`` bounds the silence between
    two reads of the response (headers that never come, a stream that stalls), after which the attempt
    fails as a retryable timeout; ``waitingNoticeMs`` is when the window starts saying "waiting for
    the server".
    """

    connect_timeout_ms: int = 10_000
    idle_timeout_ms: int = 60_000
    waiting_notice_ms: int = 3_000


@dataclass
class ToolSettings:
    """The agent's tools (Arbor's ``tools`` group; pi sets these on the command line).

    ``enabled``: the tools the model is given, in prompt order (pi's default set unless changed; ``[]``
    gives none). ``allowOutsideFolder``: file tools may use paths outside the session's folder
    (default false); ``allowedRoots``: folders allowed besides it. ``alwaysAllow``: tools that never ask
    (write, edit, bash), and ``rememberApprovals``: "Allow always" is written there, so it outlives the
    session (default false: approvals last for the session only). ``shellPath`` and
    ``shellCommandPrefix`` are pi's own top-level settings.
    """

    enabled: tuple[str, ...] = DEFAULT_TOOLS
    allow_outside_folder: bool = False
    allowed_roots: tuple[str, ...] = ()
    always_allow: tuple[str, ...] = ()
    remember_approvals: bool = False
    shell_path: str | None = None
    shell_command_prefix: str | None = None


#: One megabyte in ``checkpoints.maxFileSizeMB`` (the default, 10, is the store's ``DEFAULT_SIZE_LIMIT``).
MB = 1024 * 1024


@dataclass
class CheckpointSettings:
    """Workspace checkpoints (Arbor's ``checkpoints`` group; DESIGN.md §13).

    ``enabled``: the working folder is snapshotted before and after ``write``/``edit``/``bash`` calls
    (default true); off, no snapshot is taken, no ``arbor.checkpoint`` entry is written and the window
    offers no restore. ``maxFileSizeMB``: files larger than this are skipped (and named in the
    checkpoint) rather than stored (default 10).
    """

    enabled: bool = True
    max_file_size_mb: int = 10

    @property
    def size_limit(self) -> int:
        """The limit in bytes, as the store takes it."""
        return self.max_file_size_mb * MB


@dataclass
class Settings:
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    branch_summary: BranchSummarySettings = field(default_factory=BranchSummarySettings)
    retry: RetrySettings = field(default_factory=RetrySettings)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    tools: ToolSettings = field(default_factory=ToolSettings)
    checkpoints: CheckpointSettings = field(default_factory=CheckpointSettings)
    default_thinking_level: str = "medium"
    provider: str | None = None  # "anthropic" | "offline" | None (= anthropic when a key exists)
    model: str | None = None
    base_url: str | None = None
    theme: str = "system"  # "system" follows the desktop; "light" or "dark" override it
    fsync: bool = True
    sessions_root: str | None = None  # e.g. pi's ~/.pi/agent/sessions
    pi_version: str = DEFAULT_PI_VERSION  # whose answers: "1.6.0" (today's pi) or "0.73.1"
    path: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def profile(self) -> PiProfile:
        """The pi-version profile ``piVersion`` names (files carry no version: this is a choice)."""
        return profile_for(self.pi_version)

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read ``settings.json`` (default location, or ``$ARBOR_HOME/settings.json``)."""
        target = path or settings_path()
        settings = cls(path=target)
        try:
            raw = json.loads(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return settings
        except (OSError, ValueError) as exc:
            settings.warnings.append(f"Ignored {target}: {exc}")
            return settings
        if not isinstance(raw, dict):
            settings.warnings.append(f"Ignored {target}: not a JSON object")
            return settings
        settings._apply(raw)
        return settings

    def save_value(self, keys: tuple[str, ...], value: Any) -> bool:
        """Write one setting into ``settings.json`` (pi's nesting), keeping everything else in it.

        Returns False when the file cannot be written; the value then lasts only for this run.
        """
        target = self.path or settings_path()
        try:
            raw = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
        except (OSError, ValueError):
            return False  # never overwrite a file we could not read
        if not isinstance(raw, dict):
            return False
        node = raw
        for key in keys[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[keys[-1]] = value
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
            tmp.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, target)
        except OSError:
            return False
        return True

    def _apply(self, raw: dict[str, Any]) -> None:
        def pick(obj: Any, key: str, kind: type, current: Any) -> Any:
            if not isinstance(obj, dict) or key not in obj:
                return current
            value = obj[key]
            if kind is int and isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value)
            if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
                return value
            self.warnings.append(f"Ignored setting {key!r}: expected {kind.__name__}")
            return current

        c, b, r = raw.get("compaction"), raw.get("branchSummary"), raw.get("retry")
        self.compaction = replace(
            self.compaction,
            enabled=pick(c, "enabled", bool, self.compaction.enabled),
            reserve_tokens=pick(c, "reserveTokens", int, self.compaction.reserve_tokens),
            keep_recent_tokens=pick(c, "keepRecentTokens", int, self.compaction.keep_recent_tokens),
        )
        self.branch_summary.reserve_tokens = pick(b, "reserveTokens", int, self.branch_summary.reserve_tokens)
        self.branch_summary.skip_prompt = pick(b, "skipPrompt", bool, self.branch_summary.skip_prompt)
        self.retry.enabled = pick(r, "enabled", bool, self.retry.enabled)
        self.retry.max_retries = pick(r, "maxRetries", int, self.retry.max_retries)
        self.retry.base_delay_ms = pick(r, "baseDelayMs", int, self.retry.base_delay_ms)
        legacy = pick(r, "maxDelayMs", int, None)
        provider_retry = r.get("provider") if isinstance(r, dict) else None
        self.retry.max_retry_delay_ms = pick(
            provider_retry, "maxRetryDelayMs", int, legacy if legacy is not None else self.retry.max_retry_delay_ms
        )
        n = raw.get("network")
        for attr, key in (
            ("connect_timeout_ms", "connectTimeoutMs"),
            ("idle_timeout_ms", "idleTimeoutMs"),
            ("waiting_notice_ms", "waitingNoticeMs"),
        ):
            value = pick(n, key, int, getattr(self.network, attr))
            if value <= 0:
                self.warnings.append(f"Ignored setting {key!r}: must be positive")
            else:
                setattr(self.network, attr, value)
        self._apply_tools(raw.get("tools"), pick)
        k = raw.get("checkpoints")
        self.checkpoints.enabled = pick(k, "enabled", bool, self.checkpoints.enabled)
        size_mb = pick(k, "maxFileSizeMB", int, self.checkpoints.max_file_size_mb)
        if size_mb <= 0:
            self.warnings.append("Ignored setting 'maxFileSizeMB': must be positive")
        else:
            self.checkpoints.max_file_size_mb = size_mb
        self.tools.shell_path = pick(raw, "shellPath", str, self.tools.shell_path)
        self.tools.shell_command_prefix = pick(raw, "shellCommandPrefix", str, self.tools.shell_command_prefix)
        level = pick(raw, "defaultThinkingLevel", str, self.default_thinking_level)
        self.default_thinking_level = level if level in THINKING_LEVELS else self.default_thinking_level
        self.provider = pick(raw, "provider", str, self.provider)
        self.model = pick(raw, "model", str, self.model)
        self.base_url = pick(raw, "baseUrl", str, self.base_url)
        self.theme = pick(raw, "theme", str, self.theme)
        self.fsync = pick(raw, "fsync", bool, self.fsync)
        self.sessions_root = pick(raw, "sessionsRoot", str, self.sessions_root)
        version = pick(raw, "piVersion", str, self.pi_version)
        if version in PROFILES:
            self.pi_version = version
        else:
            self.warnings.append(f"Ignored setting 'piVersion': {version!r} is not one of {', '.join(PROFILES)}")

    def _names(self, obj: Any, key: str, current: tuple[str, ...], *, known: bool) -> tuple[str, ...]:
        """A list of strings (tool names when ``known``); anything else is reported and ignored."""
        if not isinstance(obj, dict) or key not in obj:
            return current
        value = obj[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.warnings.append(f"Ignored setting {key!r}: expected a list of strings")
            return current
        if known:
            unknown = [v for v in value if v not in ALL_TOOLS]
            if unknown:
                self.warnings.append(f"Ignored unknown tools in {key!r}: {', '.join(unknown)}")
            value = [v for v in value if v in ALL_TOOLS]
        return tuple(dict.fromkeys(value))

    def _apply_tools(self, t: Any, pick: Callable[[Any, str, type, Any], Any]) -> None:
        tools = self.tools
        tools.enabled = self._names(t, "enabled", tools.enabled, known=True)
        tools.allow_outside_folder = pick(t, "allowOutsideFolder", bool, tools.allow_outside_folder)
        tools.allowed_roots = self._names(t, "allowedRoots", tools.allowed_roots, known=False)
        tools.always_allow = self._names(t, "alwaysAllow", tools.always_allow, known=True)
        tools.remember_approvals = pick(t, "rememberApprovals", bool, tools.remember_approvals)


def settings_path() -> Path:
    return arbor_config_dir() / "settings.json"

