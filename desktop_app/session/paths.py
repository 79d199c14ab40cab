"""Where sessions live: pi's layout (pi-spec §1) and Arbor's own roots (DESIGN.md §9)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def encode_cwd(cwd: str) -> str:
    """``--<cwd with one leading separator removed and / \\ : replaced by ->--`` (pi-spec §1.1)."""
    body = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for ch in "/\\:":
        body = body.replace(ch, "-")
    return f"--{body}--"


def session_file_name(header_timestamp: str, session_id: str) -> str:
    """``<timestamp with : and . replaced by ->_<id>.jsonl`` (pi-spec §1.2)."""
    return f"{header_timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def _expand_home(value: str) -> str:
    if value == "~":
        return str(Path.home())
    if value.startswith("~/"):
        return str(Path.home() / value[2:])
    return value


def pi_agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR`` (``~`` expanded) or ``~/.pi/agent``."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(_expand_home(env)) if env else Path.home() / ".pi" / "agent"


def pi_sessions_root() -> Path:
    return pi_agent_dir() / "sessions"


def arbor_home() -> Path | None:
    """``$ARBOR_HOME``: all of Arbor's own files live under it when set (portable installs, tests)."""
    env = os.environ.get("ARBOR_HOME")
    return Path(_expand_home(env)) if env else None


def arbor_sessions_root() -> Path:
    home = arbor_home()
    if home is not None:
        return home / "sessions"
    return Path(platformdirs.user_data_dir("arbor", appauthor=False)) / "sessions"


def arbor_config_dir() -> Path:
    home = arbor_home()
    return home if home is not None else Path(platformdirs.user_config_dir("arbor", appauthor=False))


def arbor_state_dir() -> Path:
    home = arbor_home()
    if home is not None:
        return home / "state"
    return Path(platformdirs.user_state_dir("arbor", appauthor=False))


def default_session_dir(cwd: str, root: Path | None = None) -> Path:
    """The per-project directory for ``cwd`` under ``root`` (Arbor's sessions root by default)."""
    return (root if root is not None else arbor_sessions_root()) / encode_cwd(cwd)
