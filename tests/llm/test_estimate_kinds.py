"""``llm.estimate`` reads kinds through its own fast lookups (a hot loop): they must answer exactly
as ``session.kinds`` does, and every role must have a weight."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.llm import estimate
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of

ODD_VALUES: list[Any] = [None, 3, 2.5, True, ["user"], {"a": 1}, "", "?", "USER", "text ", "nope"]


@pytest.mark.parametrize("value", [*(r.value for r in Role), *ODD_VALUES])
def test_role_lookup_is_role_of(value: Any) -> None:
    message = {"role": value}
    assert estimate._role(message) is role_of(message)


def test_role_lookup_of_a_message_without_role() -> None:
    assert estimate._role({}) is role_of({}) is Role.UNKNOWN


@pytest.mark.parametrize("value", [*(b.value for b in BlockKind), *ODD_VALUES])
def test_block_lookup_is_block_kind(value: Any) -> None:
    block = {"type": value}
    assert estimate._block(block) is block_kind(block)


def test_every_role_has_a_weight() -> None:
    assert set(estimate._CHARS_BY_ROLE) == set(Role)


@pytest.mark.parametrize("role", ["hookMessage", "?", "nobody"])
def test_roles_without_a_rule_weigh_nothing(role: str) -> None:
    assert estimate.estimate_tokens({"role": role, "content": "x" * 400, "summary": "y" * 400}) == 0
