"""Graph canvas tests use the shared conformance cases (``open_case`` comes from ``tests/ui/conftest.py``)."""

from __future__ import annotations

from ..conformance_cases import CASES, FIXTURES, open_copy  # noqa: F401  (re-exported for the tests)
