"""No class in ``desktop_app/ui/`` over 500 lines (issue 22 item 14, "the canvas split").

A class that big mixes jobs (viewport, input, layout scheduling, labels...) that belong in small
pieces and in Qt-free presenters. The classes still over the limit are listed with their size
today: the list may only shrink — a listed class may not grow, a class that got under the limit
must leave the list, and no other class may go over.
"""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_app
from tests import source

LIMIT = 500

#: Classes still over the limit (``path::Class`` → their size in lines now); may only shrink.
KNOWN_OVER: dict[str, int] = {}

UI = Path(desktop_app.__file__).parent / "ui"


def class_sizes(root: Path) -> dict[str, int]:
    """Every class under ``root`` (nested ones too) → its length in source lines."""
    sizes: dict[str, int] = {}
    base = root.parent
    for path in source.modules(root):
        tree = source.tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                key = f"{path.relative_to(base).as_posix()}::{node.name}"
                sizes[key] = max(sizes.get(key, 0), node.end_lineno - node.lineno + 1)
    return sizes


def oversized(sizes: dict[str, int], known: dict[str, int], limit: int = LIMIT) -> list[str]:
    """What breaks the rule: a new class over ``limit``, a known one grown, or one that is no
    longer over the limit (or gone) but still listed."""
    problems = []
    for name, size in sorted(sizes.items()):
        if size <= limit:
            continue
        if name not in known:
            problems.append(f"{name} has {size} lines (limit {limit}): split it")
        elif size > known[name]:
            problems.append(f"{name} grew to {size} lines (was {known[name]}): split it, do not grow it")
    for name in sorted(known):
        if sizes.get(name, 0) <= limit:
            problems.append(f"{name} is no longer over {limit} lines: take it off KNOWN_OVER")
        elif sizes[name] < known[name]:
            problems.append(f"{name} shrank to {sizes[name]} lines: lower its KNOWN_OVER entry")
    return problems


def test_no_ui_class_is_over_the_limit_or_growing() -> None:
    assert oversized(class_sizes(UI), KNOWN_OVER) == []


def test_the_scan_catches_a_big_class_a_grown_one_and_a_stale_entry(tmp_path: Path) -> None:
    ui = tmp_path / "ui"
    ui.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(20))
    (ui / "a.py").write_text(f"class Big:\n{body}\n\nclass Small:\n    pass\n", encoding="utf-8")
    sizes = class_sizes(ui)
    assert sizes == {"ui/a.py::Big": 21, "ui/a.py::Small": 2}
    assert oversized(sizes, {}, limit=10) == ["ui/a.py::Big has 21 lines (limit 10): split it"]
    assert oversized(sizes, {"ui/a.py::Big": 21}, limit=10) == []
    assert "grew to 21" in oversized(sizes, {"ui/a.py::Big": 15}, limit=10)[0]
    assert "lower its KNOWN_OVER" in oversized(sizes, {"ui/a.py::Big": 30}, limit=10)[0]
    assert "no longer over" in oversized(sizes, {"ui/a.py::Big": 21, "ui/a.py::Small": 2}, limit=10)[0]
