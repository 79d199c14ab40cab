"""Fixtures for the graph canvas tests: conformance sessions, hand-made trees, a stall meter."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shutil  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from desktop_app.session import SessionManager  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"
CASES = sorted(p.stem for p in FIXTURES.glob("*.jsonl"))


def open_copy(case: str, directory: Path) -> SessionManager:
    """Open a copy of a conformance case: opening may migrate and rewrite the file."""
    target = directory / f"{case}.jsonl"
    shutil.copy(FIXTURES / f"{case}.jsonl", target)
    return SessionManager.open(target, fsync=False)


@pytest.fixture
def open_case(tmp_path: Path) -> Callable[[str], SessionManager]:
    return lambda case: open_copy(case, tmp_path)
