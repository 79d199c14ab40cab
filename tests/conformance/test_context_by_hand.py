"""pi 1.6.0 reads what context by hand writes (issue 26): a file written through ``AgentSession``'s
commands (tests/agent/context_flow.py; recorded in tests/fixtures/context_by_hand with pi's answers from
``oracle16/expect.mjs``).

The file keeps every step, so pi's ``contexts`` answer for each: the hidden tool result is gone, the
replacement is there, the written summary comes first followed by the chosen entry, continuing without
the compaction gives back the summarized history word for word, and showing the result again restores
it. Arbor's ``inspect --pi 1.6.0`` agrees with pi on every section.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from desktop_app.inspection import build_report
from desktop_app.session.profile import PI_1_6_0
from tests.agent.context_flow import RECORDED, FlowRecord, check_steps

from .resolve import Resolved, load_expected, resolved_pair
from .test_conformance import assert_sections_match

CASE = RECORDED.name.removesuffix(".jsonl")


@functools.cache
def _pair() -> tuple[Resolved, Resolved]:
    expected = load_expected(RECORDED.with_suffix(".expected.json").read_text(encoding="utf-8"))
    actual = build_report(RECORDED, sequential_ids_=True, profile=PI_1_6_0)
    return resolved_pair(expected, actual)


def test_pi_1_6_0_reads_every_step_as_the_issue_says() -> None:
    expected, _ = _pair()
    record = FlowRecord(**json.loads(RECORDED.with_suffix(".flow.json").read_text(encoding="utf-8")))
    contexts: dict[str, Any] = expected.section("contexts")
    messages: dict[str, Any] = expected.section("entry_message")
    check_steps(lambda leaf: contexts[leaf]["messages"], lambda entry_id: messages[entry_id], record)


def test_arbor_agrees_with_pi_1_6_0_on_every_section() -> None:
    expected, actual = _pair()
    assert_sections_match(CASE, expected, actual)
