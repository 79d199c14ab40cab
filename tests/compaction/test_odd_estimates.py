"""``estimateTokens`` of odd messages as each pi answers it (issue 23).

``tests/fixtures/odd/estimates.json`` holds every odd message of the hand-made sessions recorded for
issue 23 (content ``null``/missing/a number/an object/a string where a list is expected, ``null``
blocks, missing or non-string texts, ``.length`` of arrays and objects, odd tool-call names and
arguments, bash fields, summaries, system messages with odd sections and tools) with pi 0.73.1's and
pi 1.6.0's answers: a number, ``null`` (NaN) or ``{"error": "TypeError: ..."}`` where pi threw.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.tokens import estimate_tokens, estimate_tokens_lenient
from desktop_app.session.jsjson import js_parse
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "odd" / "estimates.json"
CASES: list[dict[str, Any]] = js_parse(RECORDED.read_text(encoding="utf-8"))["cases"]
PROFILES: dict[str, PiProfile] = {"pi073": PI_0_73_1, "pi16": PI_1_6_0}


def _answer(message: Any, profile: PiProfile) -> Any:
    try:
        tokens = estimate_tokens(message, profile)
    except TypeError as exc:
        return {"error": f"TypeError: {exc}"}
    return None if isinstance(tokens, float) and math.isnan(tokens) else tokens


@pytest.mark.parametrize("tag", sorted(PROFILES))
def test_every_recorded_message_is_estimated_as_pi(tag: str) -> None:
    wrong = [
        (json.dumps(case["message"])[:120], case[tag], _answer(case["message"], PROFILES[tag]))
        for case in CASES
        if _answer(case["message"], PROFILES[tag]) != case[tag]
    ]
    assert wrong == []


def test_the_table_has_errors_and_differences_between_the_versions() -> None:
    assert len(CASES) > 100
    assert sum(isinstance(c["pi16"], dict) for c in CASES) > 20
    assert any(c["pi073"] == 0 and isinstance(c["pi16"], dict) for c in CASES)  # null user content


@pytest.mark.parametrize(
    ("content", "old", "new"),
    [
        (None, 0, "TypeError: content is not iterable"),
        ("<missing>", 0, "TypeError: content is not iterable"),
        ({"type": "text", "text": "abcd"}, 0, "TypeError: content is not iterable"),
        (7, 0, "TypeError: content is not iterable"),
        ([None], "TypeError: Cannot read properties of null (reading 'type')", None),
    ],
)
def test_user_content_that_is_not_a_list(content: Any, old: Any, new: Any) -> None:
    message: dict[str, Any] = {"role": "user", "timestamp": 1}
    if content != "<missing>":
        message["content"] = content
    assert _answer(message, PI_0_73_1) == (old if not isinstance(old, str) else {"error": old})
    if new is not None:
        assert _answer(message, PI_1_6_0) == {"error": new}
    assert estimate_tokens_lenient(message, PI_1_6_0) == 0  # the app never fails on it
