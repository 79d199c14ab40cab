"""Which session Arbor opens at start: the given file, else the newest, else the sample, else a new one.

A newcomer with no sessions gets the sample session (branches, two compactions, a branch summary,
labels) copied into their sessions folder, so everything the app can show is on screen at once. The
copy is theirs; the shipped file is never written. Start-up never reads whole session files just to
pick one (pi's ``--continue`` rule per project folder: newest by mtime, header checked in 512 bytes).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from desktop_app.session import SessionManager
from desktop_app.session.catalog import SessionCatalog
from desktop_app.session.paths import arbor_sessions_root, encode_cwd
from desktop_app.settings import Settings
from desktop_app.transcripts import open_session_or_transcript

__all__ = ["SAMPLE_SESSION", "SAMPLE_CWD", "initial_session"]

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
SAMPLE_SESSION = RESOURCES / "sample-session.jsonl"
SAMPLE_CWD = "/home/you/trips"


def initial_session(path: str | None, settings: Settings, *, defer_load: bool = False) -> SessionManager:
    """The session to show: the given file, else the newest of Arbor's, else the sample, else a new one.

    ``defer_load``: a big file is opened from the lines its first picture needs and parsed in full
    later (``SessionManager.open(defer=True)``; the window's start, issue 28)."""
    if path:  # a Claude Code transcript opens read-only, converted (DESIGN.md §14)
        return open_session_or_transcript(path, fsync=settings.fsync, profile=settings.profile, defer=defer_load)
    root = Path(settings.sessions_root) if settings.sessions_root else arbor_sessions_root()
    catalog = SessionCatalog(root)
    newest = [p for d in (root.iterdir() if root.is_dir() else ()) if d.is_dir() and (p := catalog.most_recent("", d))]
    if newest:
        latest = max(newest, key=lambda p: p.stat().st_mtime_ns)
        return SessionManager.open(latest, fsync=settings.fsync, profile=settings.profile, defer=defer_load)
    if SAMPLE_SESSION.exists():
        target_dir = root / encode_cwd(SAMPLE_CWD)
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / SAMPLE_SESSION.name
        shutil.copyfile(SAMPLE_SESSION, target)
        target.chmod(0o600)
        return SessionManager.open(target, fsync=settings.fsync, profile=settings.profile)
    return SessionManager.create(os.getcwd(), fsync=settings.fsync, profile=settings.profile)
