"""compaction/ and inspection/ ask ``session.kinds`` what an entry, message or block is (issue 24).

A role that is not a string (a list or an object in an odd file) is no role pi's rules name, so the
message is neither a cut point nor a turn start (pi-spec §5.5) and nothing raises: with the role strings
kept in sets, an unhashable role raised ``TypeError`` where pi's ``switch`` simply matches nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.compaction.cut_points import find_cut_point, find_turn_start_index, find_valid_cut_points
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.serialize import serialize_conversation
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from tests.test_type_comparisons import outside_session

from .builders import assistant, chain, msg, sized, user

PROFILES = [pytest.param(PI_0_73_1, id="pi073"), pytest.param(PI_1_6_0, id="pi16")]


def test_compaction_and_inspection_compare_no_kind_strings() -> None:
    left = {path: lines for path, lines in outside_session().items() if path.startswith(("compaction/", "inspection/"))}
    assert left == {}


def _odd_role_path(role: Any) -> list[dict[str, Any]]:
    return chain(
        msg("u1", user("first question")),
        msg("a1", assistant("first answer")),
        msg("o1", {"role": role, "content": [{"type": "text", "text": "odd"}]}),
        msg("a2", assistant("second answer")),
    )


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("role", [["user"], {"role": "user"}], ids=["list", "object"])
def test_a_role_that_is_not_a_string_is_no_cut_point_nor_turn_start(role: Any, profile: PiProfile) -> None:
    path = _odd_role_path(role)
    assert find_valid_cut_points(path, 0, len(path), profile) == [0, 1, 3]
    assert find_turn_start_index(path, 2, 0, profile) == 0
    cut = find_cut_point(path, 0, len(path), 1, profile)
    assert cut.first_kept_entry_index == 3 and cut.turn_start_index == 0 and cut.is_split_turn


@pytest.mark.parametrize("role", [["user"], {"role": "user"}], ids=["list", "object"])
def test_the_serializer_leaves_out_a_message_whose_role_is_not_a_string(role: Any) -> None:
    messages = [user("q"), {"role": role, "content": "odd"}]
    assert serialize_conversation(messages, PI_1_6_0) == "[User]: q"


def _sized_turns(*names: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [item for n in names for item in (msg(f"u{n}", user(sized(f"q{n}", 400))), msg(f"a{n}", assistant(sized(f"a{n}", 400))))]


@pytest.mark.parametrize(
    ("compactions", "expected"),
    [(0, -1), (1, 4), (2, 9)],
    ids=["none", "one", "two"],
)
def test_pi16_plan_names_the_newest_compaction_on_the_path(compactions: int, expected: int) -> None:
    """``prev_compaction_index`` of pi 1.6.0's plan is the path index of the compaction its projection
    starts at (found by identity; none on the path: -1)."""
    items = _sized_turns("1", "2")
    if compactions >= 1:
        items.append(("c1", "compaction", {"summary": "s1", "firstKeptEntryId": "u2", "tokensBefore": 1}))
    items += _sized_turns("3", "4")
    if compactions >= 2:
        items.append(("c2", "compaction", {"summary": "s2", "firstKeptEntryId": "u4", "tokensBefore": 1}))
    items += _sized_turns("5", "6")
    path = chain(*items)
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=500), PI_1_6_0)
    assert prep is not None and prep.prev_compaction_index == expected
    if expected >= 0:
        assert path[expected]["id"] == f"c{compactions}"
