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

from desktop_app.tools.globs import IgnoreRule, ignore_verdict, parse_ignore_file
from desktop_app.tools.walk import find_git_root

__all__ = ["ScannedFile", "scan_folder", "TooManyFiles"]


class TooManyFiles(Exception):
    """The folder holds more files to track than a checkpoint is allowed to cost."""


#: (the folder's path relative to the walked folder ("" at the top), the file's name, its absolute
#: path, its lstat). A plain tuple: a snapshot makes 10,000 of them in a few milliseconds.
ScannedFile = tuple[str, str, str, os.stat_result]


# (the layer's folder relative to the walked folder ("" = the folder itself, None = above it), rules)
_Layer = tuple[str | None, list[IgnoreRule]]


def _rules_in(directory: str, name: str) -> list[IgnoreRule]:
    try:
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
            return parse_ignore_file(handle.read())
    except OSError:
        return []


def _outer_layers(root: str) -> list[tuple[str, list[IgnoreRule]]]:
    """Rules from above ``root``: ``.git/info/exclude`` and ``.gitignore`` files up to the repository root.

    Each is returned with its own folder (absolute), since its patterns are relative to it.
    """
    git_root = find_git_root(root)
    if git_root is None:
        return []
    layers: list[tuple[str, list[IgnoreRule]]] = []
    exclude = _rules_in(os.path.join(git_root, ".git", "info"), "exclude") if os.path.isdir(
        os.path.join(git_root, ".git")) else []
    if exclude:
        layers.append((git_root, exclude))
    ancestors: list[str] = []
    current = os.path.dirname(root) if root != git_root else None
    while current is not None and len(current) >= len(git_root):
        ancestors.append(current)
        current = os.path.dirname(current) if current != git_root else None
    for folder in reversed(ancestors):
        rules = _rules_in(folder, ".gitignore")
        if rules:
            layers.append((folder, rules))
    return layers


def _ignored(outer: list[tuple[str, list[IgnoreRule]]], inner: list[tuple[str, list[IgnoreRule]]],
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


def _scan_dir(directory: str, rel_dir: str, outer: list[tuple[str, list[IgnoreRule]]],
              inner: list[tuple[str, list[IgnoreRule]]], found: list[ScannedFile], max_files: int | None) -> None:
    rules = _rules_in(directory, ".gitignore")
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
