"""pi keeps ``arbor.checkpoint`` entries and never sends them to the model (issue 25 item 2).

``tests/fixtures/odd/checkpoints/three-turns.jsonl`` is the session the "Done when" flow wrote (three
``arbor ask --yes`` turns, then a restore that kept a hand edit); ``three-turns-without.jsonl`` is the
same file with its checkpoint entries taken out (each child re-attached to the checkpoint's parent).
Both carry pi 0.73.1's and pi 1.6.0's recorded answers, which the odd-files runner compares section by
section with Arbor's (tests/conformance/test_odd_files.py). Here: at every entry, pi's context (both
versions) and Arbor's equal the context of the file without checkpoints at the same place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE
from tests.conformance.resolve import Resolved, load_expected, normalise

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "odd" / "checkpoints"


def _without_checkpoints() -> dict[str, str]:
    """Each entry id of the file with checkpoints → the entry in the file without them whose context it has."""
    entries = [json.loads(line) for line in (CASES / "three-turns.jsonl").read_text().splitlines()[1:] if line]
    by_id = {e["id"]: e for e in entries}
    out: dict[str, str] = {}
    for entry in entries:
        at = entry["id"]
        while by_id[at].get("customType") == CHECKPOINT_TYPE:
            at = by_id[at]["parentId"]
        out[entry["id"]] = at
    assert sum(e.get("customType") == CHECKPOINT_TYPE for e in entries) == 5  # the case has them all
    return out


@pytest.mark.parametrize("pi", ["pi073", "pi16"])
def test_pi_reads_the_file_as_without_checkpoints(pi: str) -> None:
    def contexts(name: str) -> dict[str, Any]:
        text = (CASES / f"{name}.{pi}.expected.json").read_text(encoding="utf-8")
        section: dict[str, Any] = Resolved(normalise(load_expected(text))).section("contexts")
        return section

    with_them, without = contexts("three-turns"), contexts("three-turns-without")
    for entry_id, same_as in _without_checkpoints().items():
        assert with_them[entry_id] == without[same_as], entry_id


def test_arbor_builds_the_same_context_with_and_without_checkpoints() -> None:
    for profile in (PI_0_73_1, PI_1_6_0):
        with_them = SessionManager.open_snapshot(CASES / "three-turns.jsonl", profile=profile)
        without = SessionManager.open_snapshot(CASES / "three-turns-without.jsonl", profile=profile)
        for entry_id, same_as in _without_checkpoints().items():
            assert with_them.build_session_context(entry_id) == without.build_session_context(same_as), entry_id
