"""``session.kinds``: the enums name exactly the kinds the typed shapes declare, and classifying any
JSON value never raises (odd files hold lists, numbers and nulls where a type string belongs)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from desktop_app.session import kinds
from desktop_app.session.kinds import (
    BlockKind,
    EntryKind,
    Role,
    block_kind,
    entry_role,
    kind_of,
    message_of,
    role_of,
)


def _shape_values(union: Any) -> set[str]:
    return {kinds.literal_type(shape) for shape in get_args(union)}


def test_every_entry_kind_has_one_typed_shape_with_a_literal_type() -> None:
    assert _shape_values(kinds.TypedEntry) == {k.value for k in EntryKind} - {"?"}
    assert len(get_args(kinds.TypedEntry)) >= 12


def test_roles_and_blocks_match_their_shapes() -> None:
    assert _shape_values(kinds.TypedMessage) <= {r.value for r in Role}
    assert _shape_values(kinds.ContentBlock) == {b.value for b in BlockKind} - {"?"}


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({"type": "compaction"}, EntryKind.COMPACTION),
        ({"type": "session", "id": "x"}, EntryKind.HEADER),
        ({"type": "Compaction"}, EntryKind.UNKNOWN),
        ({"type": "?"}, EntryKind.UNKNOWN),
        ({"type": ["message"]}, EntryKind.UNKNOWN),
        ({"type": None}, EntryKind.UNKNOWN),
        ({}, EntryKind.UNKNOWN),
        (None, EntryKind.UNKNOWN),
        ([{"type": "message"}], EntryKind.UNKNOWN),
        ("message", EntryKind.UNKNOWN),
    ],
)
def test_kind_of_any_json_value(value: Any, kind: EntryKind) -> None:
    assert kind_of(value) is kind


def test_roles_and_blocks_of_odd_values() -> None:
    assert role_of({"role": "toolResult"}) is Role.TOOL_RESULT
    assert role_of({"role": {"x": 1}}) is Role.UNKNOWN and role_of(3) is Role.UNKNOWN
    assert block_kind({"type": "toolCall"}) is BlockKind.TOOL_CALL
    assert block_kind({"type": "?"}) is BlockKind.UNKNOWN and block_kind("text") is BlockKind.UNKNOWN


def test_message_of_and_entry_role() -> None:
    message = {"role": "assistant", "content": []}
    assert message_of({"type": "message", "message": message}) is message
    assert entry_role({"type": "message", "message": message}) is Role.ASSISTANT
    assert message_of({"type": "message", "message": "hi"}) is None
    assert entry_role({"type": "compaction", "message": message}) is None


ODD_VALUES: list[Any] = [None, 3, 2.5, True, ["user"], {"a": 1}, "", "?", "USER", "text ", "nope"]


@pytest.mark.parametrize("value", ODD_VALUES)
def test_odd_values_are_unknown_kinds(value: Any) -> None:
    assert role_of({"role": value}) is Role.UNKNOWN
    assert block_kind({"type": value}) is BlockKind.UNKNOWN
    assert kind_of({"type": value}) is EntryKind.UNKNOWN
