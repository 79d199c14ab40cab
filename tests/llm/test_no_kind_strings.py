"""``llm/`` asks ``session.kinds`` for a role or block kind, never compares it as a string (issue 24);
the Anthropic SDK's own stream events and blocks are told apart by their classes (``anthropic.types``)."""

from __future__ import annotations

from tests.test_type_comparisons import outside_session


def test_llm_compares_no_kind_strings() -> None:
    found = {path: len(lines) for path, lines in outside_session().items() if path.startswith("llm/")}
    assert found == {}
