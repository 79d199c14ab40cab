"""The window's command line: ``arbor [FILE.jsonl] [--files-from ENTRY_ID]`` (Qt-free, read before Qt starts).

``--files-from`` is how a fork or clone opened in a new window (:func:`~desktop_app.ui.forking.launch_window`)
tells the new process that the working folder is as the other window's leaf ``ENTRY_ID`` left it: the new
window then offers "Restore files to this point (N files)" itself, as a fork in place does (issue 25).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FILES_FROM", "WindowArgs", "window_args"]

FILES_FROM = "--files-from"


@dataclass(frozen=True)
class WindowArgs:
    path: str | None
    files_from: str | None = None


def window_args(args: list[str]) -> WindowArgs | None:
    """``args`` after ``arbor`` when no command is given; ``None``: not a window's command line."""
    if not args:
        return WindowArgs(None)
    if len(args) == 1:
        return WindowArgs(args[0])
    if len(args) == 3 and args[1] == FILES_FROM and args[2] and not args[2].startswith("-"):
        return WindowArgs(args[0], args[2])
    return None
