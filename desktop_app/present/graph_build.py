"""A big session's whole graph, built a slice at a time on the UI thread (issue 28). No Qt.

What :class:`~desktop_app.ui.graph.whole_graph.WholeGraphBuild` swaps in for the leaf's
neighbourhood: the view graph model, its tidy positions, and what the UI thread would otherwise
make from them in one go after the swap (the marks, the rows, the extent), all by the code that
builds them at once (:mod:`.pacing`), so the two are the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.session import SessionIndex

from .graph_model import ViewGraphModel
from .layout import LayoutSpec, Positions, RowIndex, tidy_tree_steps
from .lod import Marks, node_marks_steps
from .pacing import Pace, Steps

__all__ = ["Built", "Named", "build_whole_graph"]

#: The marks of a graph, made for the session's name given (:func:`~desktop_app.present.lod.node_marks`).
Named = tuple[Marks, str | None]


@dataclass(frozen=True)
class Built:
    """What the whole graph's build leaves: the model and its tidy positions, and what the UI
    thread would otherwise make from them in one go after the swap (issue 28): what each node
    says when labelled, the positions by row and their extent."""

    model: ViewGraphModel
    positions: Positions
    marks: Named
    rows: RowIndex
    extent: tuple[float, float, float, float] | None


def build_whole_graph(
    index: SessionIndex,
    leaf: str | None,
    mode: str,
    folding: bool,
    expanded: Iterable[str],
    spec: LayoutSpec,
    name: str | None,
    pace: Pace,
) -> Steps[Built]:
    """The whole graph a slice at a time (:mod:`desktop_app.present.pacing`): what
    ``ViewGraphModel(...)``, ``tidy_tree_layout``, ``node_marks`` and ``RowIndex`` make, by the
    same code."""
    model = yield from ViewGraphModel.in_steps(index, leaf, mode, folding, expanded, pace)
    positions = yield from tidy_tree_steps(model.graph, spec, pace)
    # What every node says when labelled, made here, not in the whole graph's first paint
    # (~130 ms at 100,000 entries in one go); so are the rows.
    marks = yield from node_marks_steps(model.graph, name, pace)
    rows = yield from RowIndex.in_steps(positions, spec, pace)
    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    extent = (min(xs), min(ys), max(xs), max(ys)) if xs else None
    return Built(model, positions, (marks, name), rows, extent)
