"""Moving a file to the desktop trash (freedesktop.org Trash specification 1.0). No Qt.

Why our own: deleting a session from the Sessions panel must be undoable from the file manager
("Restore"), which means the home trash with a ``.trashinfo`` record, not ``unlink``. The spec is
short: reserve a name by creating ``$XDG_DATA_HOME/Trash/info/NAME.trashinfo`` exclusively (so two
programs trashing at once never take the same name), write the original path (URL-escaped) and the
deletion time into it, then move the file to ``Trash/files/NAME``. A move across file systems copies
and deletes, which the spec allows for the home trash. If the move fails the reservation is removed
and the file stays where it was.
"""

from __future__ import annotations

import os
import shutil
import time
import urllib.parse
from pathlib import Path

__all__ = ["TrashError", "home_trash", "move_to_trash"]


class TrashError(OSError):
    """The file could not be moved to the trash; it is still where it was."""


def home_trash() -> Path:
    """``$XDG_DATA_HOME/Trash`` (``~/.local/share/Trash`` when unset or not absolute)."""
    data_home = os.environ.get("XDG_DATA_HOME", "")
    base = Path(data_home) if data_home and os.path.isabs(data_home) else Path.home() / ".local" / "share"
    return base / "Trash"


def _reserve(info_dir: Path, name: str, original: Path) -> tuple[str, Path]:
    """Create ``NAME.trashinfo`` exclusively, trying ``NAME.2``, ``NAME.3``… until one is free."""
    stem, dot, ext = name.rpartition(".")
    if not stem:
        stem, dot, ext = name, "", ""
    record = (
        "[Trash Info]\n"
        f"Path={urllib.parse.quote(str(original), safe='/')}\n"
        f"DeletionDate={time.strftime('%Y-%m-%dT%H:%M:%S')}\n"
    )
    for n in range(1, 10_000):
        candidate = name if n == 1 else f"{stem}.{n}{dot}{ext}"
        info = info_dir / f"{candidate}.trashinfo"
        try:
            fd = os.open(info, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record)
        return candidate, info
    raise TrashError(f"no free name in the trash for {name}")


def move_to_trash(path: str | Path, trash: Path | None = None) -> Path:
    """Move ``path`` into the home trash; returns where it now lies (``Trash/files/NAME``).

    Raises :class:`TrashError` (the file untouched) when it does not exist or cannot be moved.
    """
    original = Path(os.path.abspath(path))
    if not original.exists() and not original.is_symlink():
        raise TrashError(f"{original}: no such file")
    root = trash or home_trash()
    files_dir, info_dir = root / "files", root / "info"
    try:
        files_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        info_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise TrashError(f"cannot create the trash folder {root}: {exc.strerror or exc}") from exc
    name, info = _reserve(info_dir, original.name, original)
    target = files_dir / name
    try:
        try:
            os.rename(original, target)
        except OSError as exc:
            if exc.errno != 18:  # EXDEV: another file system; copy and delete instead
                raise
            shutil.move(str(original), str(target))
    except OSError as exc:
        info.unlink(missing_ok=True)
        raise TrashError(f"cannot move {original} to the trash: {exc.strerror or exc}") from exc
    return target
