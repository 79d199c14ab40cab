"""Every module-level name of ``desktop_app/session/`` is used somewhere (issue 24 item 5): in the app,
the tests, the benchmarks, the tools or the packaging. A name nothing reads is removed rather than
kept "in case" (``entries.is_assistant_entry`` and ``jsjson.UNDEFINED_TEXT`` were).

A use is any mention of the name as a word outside its definition and outside quotes (``__all__``
lists it quoted), so a docstring that names it counts: this finds names nothing mentions at all.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "desktop_app" / "session"
SEARCHED = ("desktop_app", "tests", "benchmarks", "tools", "packaging")
AWAITING_USE: set[tuple[str, str]] = set()
_WORD = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")


def _defined(tree: ast.Module) -> list[str]:
    """The names a module defines at its top level: functions, classes and assigned names."""
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if n != "__all__"]


def test_every_module_level_name_in_session_is_used() -> None:
    words: Counter[str] = Counter()
    quoted: Counter[str] = Counter()
    for top in SEARCHED:
        for path in (ROOT / top).rglob("*.py"):
            if path.resolve() == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            words.update(_WORD.findall(text))
            quoted.update(_QUOTED.findall(text))
    definitions = {
        module.stem: _defined(ast.parse(module.read_text(encoding="utf-8"))) for module in sorted(SESSION.glob("*.py"))
    }
    defined_times = Counter(name for names in definitions.values() for name in names)
    unused = [
        f"session/{module}.py: {name}"
        for module, names in definitions.items()
        for name in names
        if words[name] - quoted[name] - defined_times[name] <= 0 and (module, name) not in AWAITING_USE
    ]
    assert unused == []
