"""Glob patterns (fd ``--glob`` / rg ``--glob``) and ``.gitignore`` rules as regular expressions.

pi's ``find`` and ``grep`` shell out to fd and ripgrep; Arbor must not require either binary, so it
matches the same patterns in Python. Syntax covered: ``*`` and ``?`` (never across ``/``), ``**`` as a
whole path component, ``[...]``/``[!...]`` classes, ``{a,b}`` alternation and ``\\`` escapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["glob_to_regex", "GlobMatcher", "IgnoreRule", "parse_ignore_file", "ignore_verdict"]


def _class(pattern: str, i: int) -> tuple[str, int] | None:
    """Translate ``[...]`` starting at ``pattern[i] == "["``; ``None`` if it is not closed."""
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        return None
    body = pattern[i + 1 : j]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    return ("[^/" if negate else "[") + body + "]", j + 1


def glob_to_regex(pattern: str) -> str:
    """A regex (without anchors) equivalent to ``pattern`` with a literal path separator."""
    out: list[str] = []
    i = 0
    depth = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*" and pattern.startswith("**", i):
            at_start = i == 0 or pattern[i - 1] == "/"
            at_end = i + 2 == n or pattern[i + 2] == "/"
            if at_start and at_end:
                if i + 2 == n:
                    out.append(".*")
                    i += 2
                else:
                    out.append("(?:.*/)?")
                    i += 3
                continue
            out.append("[^/]*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            translated = _class(pattern, i)
            if translated is not None:
                out.append(translated[0])
                i = translated[1]
                continue
            out.append("\\[")
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    out.append(")" * depth)
    return "".join(out)


@dataclass(frozen=True)
class GlobMatcher:
    """fd's glob: without ``/`` it matches the base name, with ``/`` the whole path."""

    regex: re.Pattern[str]
    full_path: bool

    @classmethod
    def compile(cls, pattern: str, full_path: bool) -> GlobMatcher:
        return cls(re.compile(glob_to_regex(pattern), re.DOTALL), full_path)

    def matches(self, path: str) -> bool:
        target = path if self.full_path else path.rsplit("/", 1)[-1]
        return self.regex.fullmatch(target) is not None


@dataclass(frozen=True)
class IgnoreRule:
    """One line of a ``.gitignore``: relative to the directory holding the file."""

    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _strip_trailing_spaces(line: str) -> str:
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    return line


def parse_ignore_file(text: str) -> list[IgnoreRule]:
    """gitignore(5): comments, ``!`` negation, trailing ``/`` for directories, anchoring by ``/``."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = _strip_trailing_spaces(raw.rstrip("\r"))
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = glob_to_regex(line)
        if not anchored:
            body = "(?:.*/)?" + body
        # A rule matching a directory also covers everything under it.
        rules.append(IgnoreRule(re.compile(body + "(?:/.*)?", re.DOTALL), negated, dir_only))
    return rules


def ignore_verdict(rules: list[IgnoreRule], rel_path: str, is_dir: bool) -> bool | None:
    """``True`` ignored, ``False`` re-included by ``!``, ``None`` no rule matched (last match wins)."""
    verdict: bool | None = None
    for rule in rules:
        match = rule.regex.fullmatch(rel_path)
        if match is None:
            continue
        if rule.dir_only and not is_dir and not _matched_a_parent(rule, rel_path):
            continue
        verdict = not rule.negated
    return verdict


def _matched_a_parent(rule: IgnoreRule, rel_path: str) -> bool:
    """Does a dir-only rule match one of the path's parent directories?"""
    parts = rel_path.split("/")
    for end in range(1, len(parts)):
        parent = "/".join(parts[:end])
        if rule.regex.fullmatch(parent) is not None:
            return True
    return False
