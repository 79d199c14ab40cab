"""The conformance corpus as the UI tests use it: case names and an opened copy of a case."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_app.session import SessionManager

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
CASES = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))


def open_copy(case: str, directory: Path) -> SessionManager:
    """Open a copy of a conformance case: opening may migrate and rewrite the file."""
    target = directory / f"{case}.jsonl"
    shutil.copy(FIXTURES / f"{case}.jsonl", target)
    return SessionManager.open(target, fsync=False)
