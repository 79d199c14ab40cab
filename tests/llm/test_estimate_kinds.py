"""``llm.estimate`` weighs a message by its role from a table: every role must have a weight."""

from __future__ import annotations

import pytest

from desktop_app.llm import estimate
from desktop_app.session.kinds import Role


def test_every_role_has_a_weight() -> None:
    assert set(estimate._CHARS_BY_ROLE) == set(Role)


@pytest.mark.parametrize("role", ["hookMessage", "?", "nobody"])
def test_roles_without_a_rule_weigh_nothing(role: str) -> None:
    assert estimate.estimate_tokens({"role": role, "content": "x" * 400, "summary": "y" * 400}) == 0
