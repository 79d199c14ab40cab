"""Only widgets in ``desktop_app/ui/`` (issue 24 item 3): every module there over 40 lines imports Qt.

A module in ``ui/`` with no PySide6 import is Qt-free logic, and Qt-free logic lives in
``desktop_app/present/``, where it is tested without a display and the layer rules keep it Qt-free.
Short modules (package ``__init__`` files, a few re-exports) may do without Qt.
"""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_app

LIMIT = 40

UI = Path(desktop_app.__file__).parent / "ui"


def imports_qt(source: str, filename: str = "<module>") -> bool:
    """Whether the module imports PySide6 anywhere (at the top or inside a function)."""
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "PySide6" for name in names):
            return True
    return False


def qt_free_modules(root: Path, limit: int = LIMIT) -> list[str]:
    """Modules under ``root`` over ``limit`` lines that import no PySide6, as ``path (N lines)``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > limit and not imports_qt(source, str(path)):
            found.append(f"{path.relative_to(root.parent).as_posix()} ({lines} lines)")
    return found


def test_every_ui_module_over_40_lines_imports_qt() -> None:
    assert qt_free_modules(UI) == [], "Qt-free logic belongs in desktop_app/present/"


def test_the_check_sees_qt_imports_and_their_absence(tmp_path: Path) -> None:
    root = tmp_path / "ui"
    root.mkdir()
    filler = "x = 1\n" * LIMIT
    (root / "widget.py").write_text("from PySide6.QtWidgets import QWidget\n" + filler)
    (root / "lazy.py").write_text("def f():\n    import PySide6.QtCore\n" + filler)
    (root / "logic.py").write_text("import json\n" + filler)
    (root / "small.py").write_text(filler)
    assert qt_free_modules(root) == [f"ui/logic.py ({LIMIT + 1} lines)"]
