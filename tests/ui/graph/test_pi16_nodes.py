"""pi 1.6.0 kinds on the canvas: a context edit is its own node with a dashed link to the entry it
edits, system messages have their own kind, and the legend lists them (pytest-qt)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, Qt

from desktop_app.session import SessionManager
from desktop_app.ui.graph import CompactionAuditPanel, GraphView
from desktop_app.ui.graph.outline_panel import Legend

CASES16 = Path(__file__).resolve().parents[2] / "fixtures" / "conformance16" / "cases"


def _view(qtbot: Any, tmp_path: Path, case: str) -> tuple[GraphView, SessionManager]:
    shutil.copy(CASES16 / f"{case}.jsonl", tmp_path / f"{case}.jsonl")
    session = SessionManager.open(tmp_path / f"{case}.jsonl", fsync=False)
    view = GraphView(use_dot=False)
    qtbot.addWidget(view)
    view.resize(1200, 900)
    view.show()
    view.set_session(session)
    return view, session


def test_context_edit_node_is_linked_to_its_target(qtbot: Any, tmp_path: Path) -> None:
    view, session = _view(qtbot, tmp_path, "pi16-1618")
    edits = [e for e in session.get_entries() if e.get("type") == "context_edit"]
    assert len(edits) == 4
    scene = view.graph_scene()
    links = [item for item in scene.links if item.toolTip().startswith("context edit")]
    assert len(links) == len(edits)
    for edit in edits:
        item = scene.nodes[edit["id"]]
        assert item.view.kind == "context_edit"
        target = view.model.node_for_entry(edit["targetId"])
        assert target is not None and (edit["id"], target) in view.graph().edit_links
        # One of the links starts at the edit's box and ends at its target's box.
        edit_box = item.sceneBoundingRect().adjusted(-6, -6, 6, 6)
        target_box = scene.nodes[target].sceneBoundingRect().adjusted(-6, -6, 6, 6)
        ends = [(link.path().pointAtPercent(0.0), link.path().elementAt(3)) for link in links]
        assert any(
            edit_box.contains(start) and target_box.contains(QPointF(end.x, end.y)) for start, end in ends
        )
    assert all(link.pen().style() == Qt.PenStyle.DashLine for link in links)


def test_system_nodes_and_the_legend(qtbot: Any, tmp_path: Path) -> None:
    view, session = _view(qtbot, tmp_path, "pi16-1618")
    system = [e["id"] for e in session.get_entries() if e.get("message", {}).get("role") == "system"]
    assert [view.graph().nodes[i].kind for i in system] == ["system", "system"]
    style = view.graph_style
    assert style.kind("system").accent != style.kind("user").accent
    assert style.kind("context_edit").shape == "note" and style.kind("usage").shape == "marker"
    kinds = {kind for _, kind, _ in Legend.ROWS}
    assert {"system", "context_edit", "usage"} <= kinds


def test_usage_markers_show_only_with_the_all_filter(qtbot: Any, tmp_path: Path) -> None:
    view, session = _view(qtbot, tmp_path, "pi16-1620")
    usage = [e["id"] for e in session.get_entries() if e.get("type") == "usage"]
    assert usage
    assert not any(view.graph_scene().nodes.get(i) for i in usage)  # the default filter hides them
    view.set_filter("all")
    items = [view.graph_scene().nodes[view.model.node_for_entry(i)] for i in usage]
    assert [item.view.kind for item in items] == ["usage"] * len(usage)
    assert all(item.half_height < view.graph_style.spec.node_height / 2 - 10 for item in items)  # small


def test_audit_panel_shows_the_system_prompt_checkpoint(qtbot: Any, tmp_path: Path) -> None:
    view, session = _view(qtbot, tmp_path, "pi16-1611")
    panel = CompactionAuditPanel()
    qtbot.addWidget(panel)
    view.compaction_selected.connect(panel.set_audit)
    view.select("3157f904")
    audit = panel.audit()
    assert audit is not None and audit.system_message == session.get_entry("3157f904")["systemMessage"]
    text = panel.text()
    assert "System prompt · sections: preamble" in text
    assert audit.system_message["sections"]["preamble"].splitlines()[0] in text
    assert 0 not in (len(audit.summarized_ids), len(audit.kept_ids))
