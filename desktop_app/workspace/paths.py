"""Where a working folder's checkpoint store lives: Arbor's data dir, never the user's folder."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import platformdirs

from desktop_app.session.paths import arbor_home

__all__ = ["workspaces_root", "store_dir_for"]


def workspaces_root() -> Path:
    """``$ARBOR_HOME/workspaces``, else ``workspaces`` in Arbor's user data dir (beside ``sessions``)."""
    home = arbor_home()
    if home is not None:
        return home / "workspaces"
    return Path(platformdirs.user_data_dir("arbor", appauthor=False)) / "workspaces"


def store_dir_for(folder: str, root: Path | None = None) -> Path:
    """One store per working folder: a readable name plus a hash of the folder's real path."""
    real = os.path.realpath(folder)
    digest = hashlib.sha256(real.encode("utf-8", errors="surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(real.rstrip(os.sep)) or "root")[:40]
    return (root if root is not None else workspaces_root()) / f"{name}-{digest}"
