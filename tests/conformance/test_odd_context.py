"""Odd files against both pis' own answers: what the context is made of (tests/fixtures/odd/context).

Every ``NAME.jsonl`` there comes with ``NAME.pi073.expected.json`` (pi 0.73.1's answers) and
``NAME.pi16.expected.json`` (pi 1.6.0's), recorded unedited by the oracles in shared/oracle and
shared/oracle16. ``arbor inspect`` with each ``piVersion`` profile must give the same document, section
by section. The files:

* ``pi16-*-headN``: the first N lines of files pi 1.6.0 wrote (gen16): system messages, context edits,
  compaction checkpoints. pi 0.73.1 keeps the system messages in its context (``convertToLlm`` drops
  them), ignores the edits and the checkpoints, and so builds another context.
* ``edit-SHAPE-TARGET``: a ``context_edit`` whose ``replacement`` is not ``null`` or ``{content}``
  (a number, a string, ``false``, ``{}``, …; ``absent`` has no ``replacement`` key, and pi throws) on a
  user (u1), assistant (a1), tool result (t1) or custom message (c1).
* ``absent-*``: an edit without ``replacement`` on targets whose messages it cannot replace.
* ``cedit-*``: edits of compactions (a ``null`` edit of the newest one leaves no previous summary).
* ``bsfold-*``, ``bsedit-*``: edits of a branch summary (inside a branch summary's entries), of a
  system message, of a label.
* ``bsbudget-absent``: such an edit far back in a branch summary's entries: pi throws only at the
  budgets whose walk reaches it.
* ``sysmsg-*``: a compaction ``systemMessage`` that is a string, ``true``, an array, ``""``, ….
* ``hx-*``: a checkpoint of role user that an edit replaces, an edit of an entry further down, a
  compaction whose first kept entry is a system message.
* ``mix-*``: random small sessions mixing all of the above with branches and several compactions.

A runner for every ``tests/fixtures/odd/**`` folder may exist as well (test_odd_files.py); this one
covers the context folder on its own.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from desktop_app.inspection import build_report
from desktop_app.session.profile import PROFILES

from .resolve import Resolved, load_expected, normalise
from .test_conformance import COMPACTION_SECTIONS, SESSION_SECTIONS, compare_section

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "odd" / "context"
CASES = sorted(p.name.removesuffix(".jsonl") for p in FOLDER.glob("*.jsonl"))
ANSWERS = {"0.73.1": "pi073", "1.6.0": "pi16"}


def test_every_case_has_both_answers() -> None:
    assert len(CASES) >= 30
    for case in CASES:
        for tag in ANSWERS.values():
            assert (FOLDER / f"{case}.{tag}.expected.json").exists(), (case, tag)


@functools.cache
def _pair(case: str, version: str) -> tuple[Resolved, Resolved]:
    expected = load_expected((FOLDER / f"{case}.{ANSWERS[version]}.expected.json").read_text(encoding="utf-8"))
    actual = build_report(FOLDER / f"{case}.jsonl", sequential_ids_=True, profile=PROFILES[version])
    return Resolved(normalise(expected)), Resolved(normalise(actual))


@pytest.mark.parametrize("section", SESSION_SECTIONS + COMPACTION_SECTIONS)
@pytest.mark.parametrize("version", sorted(ANSWERS))
@pytest.mark.parametrize("case", CASES)
def test_section_matches_pi(case: str, version: str, section: str) -> None:
    expected, actual = _pair(case, version)
    compare_section(case, section, expected, actual)
