"""Resolving the model's paths the way pi does, and refusing those outside the working folder.

pi (``path-utils.js``): strip one leading ``@`` (models copy the ``@file`` mention syntax), turn
Unicode spaces into plain spaces, expand ``~``, and resolve relative paths against the session's cwd.
pi stops there; Arbor then applies its :class:`~.context.PathPolicy`.
"""

from __future__ import annotations

import os
import re

from .context import PathPolicy
from .results import ToolError

__all__ = ["expand_path", "resolve_path", "check_allowed", "outside_message", "missing_cwd_message"]

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def expand_path(path: str) -> str:
    """pi's ``expandPath``: ``@`` prefix, Unicode spaces, ``~``."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_path(path: str, cwd: str) -> str:
    """pi's ``resolveToCwd``: an absolute, normalised path (``path.resolve(cwd, p)``)."""
    expanded = expand_path(path)
    joined = expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded)
    return os.path.normpath(joined)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _is_under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def outside_message(abs_path: str, cwd: str) -> str:
    return (
        f"Path is outside the working folder: {abs_path} (working folder: {cwd}). "
        "Arbor only lets tools use files inside the session's folder unless paths outside it are "
        "allowed in settings."
    )


def check_allowed(abs_path: str, cwd: str, policy: PathPolicy) -> None:
    """Raise :class:`ToolError` unless ``abs_path`` (symlinks resolved) is inside ``cwd`` or allowed."""
    if policy.allow_outside:
        return
    real = _real(abs_path)
    roots = (cwd, *policy.allowed_roots)
    for root in roots:
        if _is_under(real, _real(root)):
            return
    raise ToolError(outside_message(abs_path, cwd))


def missing_cwd_message(cwd: str, tool_name: str, tool_line: str | None = None) -> str:
    """The clear error for a session whose folder is gone; ``tool_line`` is a tool's own second line
    (bash's is pi's wording)."""
    return f"Working directory does not exist: {cwd}\n{tool_line or f'Cannot run the {tool_name} tool.'}"
