"""Hand-edited files with odd ids (pi's adversarial cases) still give a view graph, never an exception."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.present.filters import FILTER_MODES
from desktop_app.present.graph_model import build_view_graph
from desktop_app.session import SessionManager

ADVERSARIAL = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "adversarial"
CASES = sorted(ADVERSARIAL.glob("*.jsonl"))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
@pytest.mark.parametrize("filter_mode", FILTER_MODES)
def test_every_adversarial_case_builds_a_view_graph(case: Path, filter_mode: str, tmp_path: Path) -> None:
    copy = tmp_path / case.name
    shutil.copy(case, copy)
    manager = SessionManager.open(copy, fsync=False)
    graph = build_view_graph(manager.index, manager.leaf_id, filter_mode)
    string_ids = {k for k in manager.index.by_id if isinstance(k, str) and k}
    shown = {m for node in graph.nodes.values() for m in node.ids}
    assert shown <= string_ids  # only entries the graph can name get nodes


def test_the_cases_are_there() -> None:
    assert len(CASES) >= 14
    assert any("nonstring_ids" in c.name for c in CASES)
