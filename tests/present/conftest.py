"""``present/`` tests run without Qt; they open the same conformance cases as the UI tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.session import SessionManager
from tests.ui.conformance_cases import open_copy


@pytest.fixture
def open_case(tmp_path: Path) -> Callable[[str], SessionManager]:
    """Open a copy of a conformance case by name (the copy lives in the test's tmp_path)."""
    return lambda case: open_copy(case, tmp_path)
