"""``arbor install-desktop-entry``: put Arbor in the desktop's applications menu, without a terminal
session of copying (issue 11: a person given the bundle should not have to edit files by hand).

Writes ``packaging/arbor.desktop`` (in the bundle: ``_internal/arbor.desktop``) to
``$XDG_DATA_HOME/applications/`` (``~/.local/share/applications/``) with its ``Exec=`` pointing at
the program that runs this command, and the icon into the ``hicolor`` icon theme there, where
desktops look for ``Icon=arbor``. Only the user's own data folder is written; nothing needs root.
Standard library only: it runs before (and without) Qt.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from desktop_app.agent.startup import RESOURCES

__all__ = ["arbor_command", "desktop_exec", "install_desktop_entry", "xdg_data_home"]

ICON_NAME = "arbor"
_RESERVED = re.compile(r"""[\s"'\\><~|&;$*?#()`]""")


def xdg_data_home() -> Path:
    """``$XDG_DATA_HOME`` if set to an absolute path (the spec ignores a relative one), else ``~/.local/share``."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def arbor_command() -> list[str]:
    """How to start this Arbor: the bundle's own program, the ``arbor`` script next to this Python,
    or this Python with ``-m desktop_app``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("arbor")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "desktop_app"]


def _quote(argument: str) -> str:
    """One argument of ``Exec=`` as the Desktop Entry spec wants it (quoted when it must be), then
    escaped for the key file (a backslash is written twice there)."""
    if _RESERVED.search(argument):
        argument = '"' + re.sub(r'(["`$\\])', r"\\\1", argument) + '"'
    return argument.replace("\\", "\\\\")


def desktop_exec(command: list[str]) -> str:
    """The ``Exec=`` value: ``command`` and ``%f`` (the session file the desktop was asked to open)."""
    return " ".join(_quote(part) for part in command) + " %f"


def _entry_source() -> Path:
    for candidate in (RESOURCES.parent / "packaging" / "arbor.desktop", RESOURCES.parent / "arbor.desktop"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("arbor.desktop is not where Arbor was installed from")


def install_desktop_entry(data_home: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the desktop entry and the icons; returns the files written (existing ones are replaced)."""
    home = data_home or xdg_data_home()
    lines = _entry_source().read_text(encoding="utf-8").splitlines()
    exec_line = "Exec=" + desktop_exec(command or arbor_command())
    text = "\n".join(exec_line if line.startswith("Exec=") else line for line in lines) + "\n"
    written: list[Path] = []
    entry = home / "applications" / "arbor.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    temporary = entry.with_name(".arbor.desktop.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(entry)  # a menu that reads it meanwhile sees the old entry or the new one
    written.append(entry)
    icons = home / "icons" / "hicolor"
    for source, folder in ((RESOURCES / "icons" / "arbor.svg", "scalable"), (RESOURCES / "icons" / "arbor.png", "256x256")):
        if source.is_file():
            target = icons / folder / "apps" / f"{ICON_NAME}{source.suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            written.append(target)
    return written


def run() -> int:
    try:
        written = install_desktop_entry()
    except OSError as exc:
        print(f"arbor install-desktop-entry: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    print("Arbor is in your applications menu (log out and in if it does not show yet).")
    return 0
