"""Directory traversal that honours ignore files, as fd and ripgrep do (their ``ignore`` crate).

* ``find`` (fd ``--hidden --no-require-git``): ``.gitignore``, ``.ignore`` and ``.fdignore`` apply
  everywhere, inside a git repository or not.
* ``grep`` (rg ``--hidden``): ``.ignore`` and ``.rgignore`` always; ``.gitignore`` and
  ``.git/info/exclude`` only inside a git repository (a ``.git`` in the folder or above).

Hidden files are included and symlinks are not followed (both tools' defaults with pi's flags).
Ignore files of parent folders are read up to the repository root (none above the search folder
outside a repository). Entries are visited in sorted pre-order, where fd and rg, being parallel,
print in no fixed order.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from .globs import IgnoreRule, ignore_verdict, parse_ignore_file

__all__ = [
    "Entry",
    "FIND_IGNORE_FILES",
    "GREP_IGNORE_FILES",
    "Layer",
    "find_git_root",
    "read_ignore_rules",
    "repository_layers",
    "walk",
]

FIND_IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")
GREP_IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


@dataclass(frozen=True)
class Entry:
    path: str
    """Absolute path."""
    rel: str
    """POSIX path relative to the search folder."""
    is_dir: bool
    is_symlink: bool = False


def find_git_root(start: str) -> str | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a directory or a worktree file)."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read_ignore_rules(directory: str, names: tuple[str, ...]) -> list[IgnoreRule]:
    """The rules of the ignore files ``names`` in ``directory`` (missing or unreadable ones: none)."""
    rules: list[IgnoreRule] = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                rules.extend(parse_ignore_file(handle.read()))
        except OSError:
            continue
    return rules


Layer = tuple[str, list[IgnoreRule]]


def repository_layers(root: str, git_root: str, names: tuple[str, ...]) -> list[Layer]:
    """The rules that apply to ``root`` from above it: the repository's ``.git/info/exclude`` and the
    ignore files ``names`` of every folder from ``git_root`` down to ``root``'s parent, each with its
    own folder (its patterns are relative to it), outermost first; folders with no rules left out."""
    layers: list[Layer] = []
    exclude = os.path.join(git_root, ".git", "info")
    if os.path.isdir(exclude):
        layers.append((git_root, read_ignore_rules(exclude, ("exclude",))))
    ancestors: list[str] = []
    current = os.path.dirname(root) if root != git_root else None
    while current is not None and len(current) >= len(git_root):
        ancestors.append(current)
        current = os.path.dirname(current) if current != git_root else None
    layers += [(folder, read_ignore_rules(folder, names)) for folder in reversed(ancestors)]
    return [(base, rules) for base, rules in layers if rules]


def _ignored(layers: list[Layer], path: str, is_dir: bool) -> bool:
    verdict: bool | None = None
    for base, rules in layers:
        if not rules:
            continue
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        if rel.startswith(".."):
            continue
        found = ignore_verdict(rules, rel, is_dir)
        if found is not None:
            verdict = found
    return bool(verdict)


def _names(for_grep: bool, in_repo: bool) -> tuple[str, ...]:
    if not for_grep:
        return FIND_IGNORE_FILES
    return GREP_IGNORE_FILES if in_repo else (".ignore", ".rgignore")


def walk(root: str, for_grep: bool) -> Iterator[Entry]:
    """Every entry below ``root`` (not ``root`` itself) that the ignore files let through."""
    root = os.path.abspath(root)
    git_root = find_git_root(root)
    names = _names(for_grep, git_root is not None)
    layers = repository_layers(root, git_root, names) if git_root is not None else []
    yield from _walk_dir(root, root, layers, names)


def _walk_dir(root: str, directory: str, layers: list[Layer], names: tuple[str, ...]) -> Iterator[Entry]:
    layers = [*layers, (directory, read_ignore_rules(directory, names))]
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except OSError:
        return
    for item in entries:
        try:
            is_dir = item.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if _ignored(layers, item.path, is_dir):
            continue
        rel = os.path.relpath(item.path, root).replace(os.sep, "/")
        yield Entry(item.path, rel, is_dir, item.is_symlink())
        if is_dir:
            yield from _walk_dir(root, item.path, layers, names)
