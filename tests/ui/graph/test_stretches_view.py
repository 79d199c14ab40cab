"""Far out, a folded run's edge is drawn as a thick line as long as the rows the run spans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.present.lod import stretch_rows
from desktop_app.session import SessionManager
from desktop_app.ui.graph import GraphView
from tests.present.builders import synthetic_session


def test_overview_draws_each_runs_edge_with_its_length(qtbot: Any, tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    for entry in synthetic_session(1_500, branch_rate=0.03, seed=4):
        manager._index.add(entry)
    manager._leaf_id = manager._index.last_id
    view = GraphView(use_dot=False)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    view.set_session(manager)
    scene = view.graph_scene()
    graph = view.graph()
    runs = [(a, b) for a, b in graph.edges() if graph.nodes[a].is_segment]
    assert runs and not scene.stretches.isVisible()
    view.fit_all()
    view.zoom_by(0.01)  # far out: the overview layer
    assert scene.overview and scene.stretches.isVisible()
    assert scene.stretches.line_count == len(runs)
    row = view.graph_style.spec.row
    lengths = sorted(line.length() for line in scene.stretches.lines())
    expected = sorted(
        (stretch_rows(graph.nodes[a].count) * row - scene.nodes[b].half_height) for a, b in runs
    )
    assert lengths == expected
