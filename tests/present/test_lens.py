"""The context lens without Qt: pi's context at an entry, each message with its entry, section and
estimate; the total is pi's estimateContextTokens, on every conformance case."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_app.compaction.tokens import estimate_context_tokens
from desktop_app.llm.estimate import estimate_tokens_lenient
from desktop_app.present.lens import context_lens, heat
from desktop_app.session import SessionManager
from desktop_app.session.context import context_message
from tests.ui.conformance_cases import CASES


@pytest.mark.parametrize("case", CASES)
def test_the_lens_is_pis_context_with_pis_total(case: str, open_case: Callable[[str], SessionManager]) -> None:
    session = open_case(case)
    lens = context_lens(session)
    if session.leaf_id is None:
        assert lens.rows == ()
        return
    messages = session.build_session_context(session.leaf_id).messages
    assert len(lens.rows) == len(messages)
    assert [r.tokens for r in lens.rows] == [estimate_tokens_lenient(m) for m in messages]
    try:
        expected = estimate_context_tokens(messages).tokens
    except TypeError:
        assert lens.total is None
        return
    assert lens.total == expected or (expected != expected and lens.total != lens.total)  # NaN stays NaN
    trailing = sum(r.tokens for r in lens.rows if not r.covered_by_usage)
    if expected == expected:
        assert lens.usage_tokens + trailing == expected
    for row, message in zip(lens.rows, messages, strict=True):
        if row.entry_id is not None and row.section != "compaction summary":
            entry = session.get_entry(row.entry_id)
            assert entry is not None and context_message(entry) == message
    compactions = [e for e in session.get_branch() if e.get("type") == "compaction"]
    if compactions and lens.rows and lens.rows[0].entry_id is not None:
        assert lens.compaction_id == compactions[-1]["id"]
        assert lens.rows[0].section == "compaction summary" and lens.rows[0].llm_role == "user"


def test_the_lens_at_an_earlier_entry_is_that_entrys_context(open_case: Callable[[str], SessionManager]) -> None:
    session = open_case("gen-0031")
    branch = session.get_branch()
    middle = branch[len(branch) // 2]["id"]
    lens = context_lens(session, middle)
    assert lens.entry_id == middle
    assert len(lens.rows) == len(session.build_session_context(middle).messages)
    assert len(lens.rows) != len(context_lens(session).rows)


def test_heat_scale() -> None:
    assert heat(0, 100) == 0.0 and heat(100, 100) == 1.0
    assert 0.0 < heat(1, 100) < heat(25, 100) == 0.5 < 1.0
