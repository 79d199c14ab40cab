"""``llm/`` asks ``session.kinds`` for a role or block kind, never compares it as a string (issue 24).

The one comparison left is the Anthropic SDK's own content-block type (``getattr(block, "type")``
in the stream translator): the wire format, not pi's kinds.
"""

from __future__ import annotations

from tests.test_type_comparisons import outside_session

SDK_WIRE = {"llm/anthropic.py": 1}


def test_llm_compares_no_kind_strings() -> None:
    found = {path: len(lines) for path, lines in outside_session().items() if path.startswith("llm/")}
    assert found == SDK_WIRE
