"""``agent/`` asks ``session.kinds`` for an entry, role or
block kind, never compares it as a string (issue 24)."""

from __future__ import annotations

from tests.test_type_comparisons import outside_session


def test_agent_compares_no_kind_strings() -> None:
    found = {
        path: lines
        for path, lines in outside_session().items()
        if path.startswith("agent/")
    }
    assert found == {}
