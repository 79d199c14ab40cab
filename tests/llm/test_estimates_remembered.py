"""``estimates_remembered``: inside the block each message's estimate is worked out once (issue 23:
``arbor inspect`` estimated the same messages at every budget of every compaction target)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.llm import estimate
from desktop_app.llm.estimate import estimate_tokens, estimates_remembered
from desktop_app.session.kinds import Role
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0


def test_each_message_is_weighed_once_inside_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    weighed: list[Any] = []
    user_chars = estimate._CHARS_BY_ROLE[Role.USER]

    def counted(message: Any, profile: Any) -> Any:
        weighed.append(message)
        return user_chars(message, profile)

    monkeypatch.setitem(estimate._CHARS_BY_ROLE, Role.USER, counted)
    image = {"type": "image", "data": "x", "mimeType": "image/png"}
    first = {"role": "user", "content": [{"type": "text", "text": "a" * 40}, image]}
    same_words = {"role": "user", "content": [{"type": "text", "text": "a" * 40}, image]}
    outside = [estimate_tokens(first, PI_0_73_1), estimate_tokens(first, PI_1_6_0)]
    assert len(weighed) == 2
    with estimates_remembered():
        inside = [estimate_tokens(first, p) for p in (PI_0_73_1, PI_1_6_0, PI_0_73_1, PI_1_6_0)]
        estimate_tokens(same_words, PI_1_6_0)  # another object: weighed on its own
        assert len(weighed) == 2 + 3
    assert inside == outside * 2 and outside[1] > outside[0]  # each profile its own answer
    first["content"] = "b"  # after the block nothing is remembered
    assert estimate_tokens(first, PI_1_6_0) == 1 and len(weighed) == 6


def test_a_throwing_estimate_still_throws_every_time() -> None:
    with estimates_remembered():
        for _ in range(2):
            with pytest.raises(TypeError):
                estimate_tokens({"role": "branchSummary", "summary": None}, PI_1_6_0)
