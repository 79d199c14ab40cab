"""The package's source, parsed once per test process: a dozen rule tests read every module of
``desktop_app`` (kind strings, tool names, exhaustive matches, class sizes, unused names); parsing
the ~200 modules again for each took ~1 s apiece."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "desktop_app"


@functools.cache
def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def tree(path: Path) -> ast.Module:
    """The module at ``path`` parsed (shared: callers must not change it)."""
    return ast.parse(text(path))


@functools.cache
def modules(root: Path = PACKAGE) -> tuple[Path, ...]:
    """Every ``.py`` file under ``root``, sorted."""
    return tuple(sorted(root.rglob("*.py")))
