"""Walking a working folder the way git would see it: the user's ignore rules, never ``.git``.

A snapshot holds what ``git add -A`` would stage in a repository at the folder: every file and
symlink not ignored by a ``.gitignore`` (the folder's own at every level, and, when the folder sits
inside a repository, the ``.gitignore`` files of the folders above it up to that repository's root
and its ``.git/info/exclude``). No ``.git`` (a directory or a worktree/submodule file) is ever read
or entered: a folder that is itself a repository keeps its repository to itself.

The walk returns each file's ``lstat`` so the store can skip hashing files whose stat is unchanged.
"""

from __future__ import annotations

import os
import stat

from desktop_app.tools.globs import ignore_verdict
from desktop_app.tools.walk import Layer, find_git_root, read_ignore_rules, repository_layers

__all__ = ["ScannedFile", "scan_folder", "TooManyFiles"]


class TooManyFiles(Exception):
    """The folder holds more files to track than a checkpoint is allowed to cost."""


#: (the folder's path relative to the walked folder ("" at the top), the file's name, its absolute
#: path, its lstat). A plain tuple: a snapshot makes 10,000 of them in a few milliseconds.
ScannedFile = tuple[str, str, str, os.stat_result]


#: A snapshot honours the user's .gitignore files only (git's own rule, not find's or grep's).
_GITIGNORE = (".gitignore",)


def _outer_layers(root: str) -> list[Layer]:
    """Rules from above ``root``: ``.git/info/exclude`` and ``.gitignore`` files up to the repository root."""
    git_root = find_git_root(root)
    return [] if git_root is None else repository_layers(root, git_root, _GITIGNORE)


def _ignored(outer: list[Layer], inner: list[Layer],
             abs_path: str, rel: str, is_dir: bool) -> bool:
    """Last matching rule wins, deeper files over shallower ones (gitignore(5))."""
    verdict: bool | None = None
    for base, rules in outer:
        found = ignore_verdict(rules, os.path.relpath(abs_path, base).replace(os.sep, "/"), is_dir)
        if found is not None:
            verdict = found
    for base_rel, rules in inner:
        sub = rel[len(base_rel) + 1:] if base_rel else rel
        found = ignore_verdict(rules, sub, is_dir)
        if found is not None:
            verdict = found
    return bool(verdict)


def scan_folder(root: str, max_files: int | None = None) -> list[ScannedFile]:
    """Every regular file and symlink under ``root`` that the ignore rules let through (in no order).

    Raises ``OSError`` when ``root`` itself cannot be listed (gone, not a folder, no permission);
    a sub-folder that cannot be listed raises too, so a snapshot never silently loses files.
    :class:`TooManyFiles` past ``max_files`` (a home folder is no project: stop before reading it all).
    """
    root = os.path.abspath(root)
    outer = _outer_layers(root)
    found: list[ScannedFile] = []
    _scan_dir(root, "", outer, [], found, max_files)
    return found


def _scan_dir(directory: str, rel_dir: str, outer: list[Layer],
              inner: list[Layer], found: list[ScannedFile], max_files: int | None) -> None:
    rules = read_ignore_rules(directory, _GITIGNORE)
    if rules:
        inner = [*inner, (rel_dir, rules)]
    checking = bool(outer or inner)
    with os.scandir(directory) as scan:
        items = list(scan)
    for item in items:
        if item.name == ".git":
            continue
        rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
        is_dir = item.is_dir(follow_symlinks=False)
        if checking and _ignored(outer, inner, item.path, rel, is_dir):
            continue
        if is_dir:
            _scan_dir(item.path, rel, outer, inner, found, max_files)
            continue
        info = item.stat(follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
            found.append((rel_dir, item.name, item.path, info))
    if max_files is not None and len(found) > max_files:
        raise TooManyFiles(max_files)
