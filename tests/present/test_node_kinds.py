"""Every entry kind and role of ``session.kinds`` has a node kind, a tag title and a text (issue 24):
a kind added there must be placed here, not fall silently into "unknown"."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.present.card_actions import card_actions, has_action_line
from desktop_app.present.filters import pi_visible
from desktop_app.present.text import KIND_TITLES, NodeKind, entry_kind, entry_text, full_text, searchable_text
from desktop_app.session.kinds import EntryKind, Role

#: Kinds with no node of their own: the header, and what pi's format does not know.
_NO_NODE = {EntryKind.HEADER, EntryKind.UNKNOWN}
#: Roles entries do not store (pi makes them from their entries when it builds the context).
_NOT_STORED = {Role.HOOK_MESSAGE, Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY, Role.UNKNOWN}


def _entry(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": "e1", "parentId": None, "timestamp": "2026-01-01T00:00:00.000Z", **fields}


def _message(role: str) -> dict[str, Any]:
    return _entry("message", message={"role": role, "content": [{"type": "text", "text": "hello there"}]})


@pytest.mark.parametrize("kind", [k for k in EntryKind if k is not EntryKind.MESSAGE])
def test_every_entry_kind_is_a_node_kind_of_the_same_name(kind: EntryKind) -> None:
    expected = NodeKind.UNKNOWN if kind in _NO_NODE else NodeKind(kind.value)
    assert entry_kind(_entry(kind.value)) is expected


@pytest.mark.parametrize("role", list(Role))
def test_every_role_is_a_node_kind(role: Role) -> None:
    expected = {Role.CUSTOM: NodeKind.CUSTOM_MESSAGE}.get(role, NodeKind.UNKNOWN if role in _NOT_STORED else NodeKind(role.value))
    assert entry_kind(_message(role.value)) is expected


def test_odd_values_are_unknown_nodes() -> None:
    for odd in (_entry(5), _entry(None), _entry(["message"]), _entry("message", message="hi"), _message(7)):  # type: ignore[arg-type]
        assert entry_kind(odd) is NodeKind.UNKNOWN


def test_every_node_kind_has_a_title_and_the_values_stay_strings() -> None:
    assert set(KIND_TITLES) == set(NodeKind)
    assert KIND_TITLES["user"] == "user" and KIND_TITLES["segment"] == "folded"  # views look up plain strings
    assert entry_kind(_message("user")) == "user"


@pytest.mark.parametrize("kind", list(EntryKind))
def test_every_entry_kind_has_texts(kind: EntryKind) -> None:
    """``entry_text`` and ``searchable_text`` match on every kind (``assert_never``); none raises."""
    entry = _message("assistant") if kind is EntryKind.MESSAGE else _entry(kind.value, summary="s", name="n", content="c")
    assert entry_text(entry)
    assert isinstance(searchable_text(entry), str)
    assert full_text(entry)


@pytest.mark.parametrize("role", list(Role))
def test_every_role_has_a_text(role: Role) -> None:
    entry = _message(role.value)
    text = entry_text(entry)
    assert text == (f"[{role.value}]" if role in _NOT_STORED else text) and text
    assert role.value in searchable_text(entry)


@pytest.mark.parametrize("mode", ["default", "no-tools", "user-only", "labeled-only", "all"])
def test_an_entry_whose_type_is_a_list_is_filtered_as_pi_does(mode: str) -> None:
    """pi's settings test is ``[...].includes(entry.type)``: false for a list, so such an entry shows
    where any unknown one does (the frozenset lookup raised ``TypeError: unhashable type``)."""
    odd = _entry(["label"], id="x")  # type: ignore[arg-type]
    unknown = _entry("weird", id="x")
    assert pi_visible(odd, mode, None, {}) is pi_visible(unknown, mode, None, {})


def test_a_message_whose_role_is_a_list_has_no_action_line() -> None:
    """Like any unknown role (the frozenset lookup raised ``TypeError: unhashable type``)."""
    odd = {"role": ["user"], "content": "hi"}
    assert not has_action_line(odd)
    assert card_actions(odd) == ()
