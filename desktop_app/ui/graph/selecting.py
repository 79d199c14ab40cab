"""The canvas's side of the selection: item states, the audit's bands, the signals the window follows.

What a selection means (the folds a compaction's audit opens, the entry a segment stands for) is
decided in :class:`~desktop_app.present.selection.Selection` (no Qt). :class:`CanvasSelection`
shows its result on the scene items of a :class:`~desktop_app.ui.graph.view.GraphView`, brings
the node into view and tells the window through the canvas's signals.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import SignalInstance

from desktop_app.compaction.audit import CompactionAudit, audit_compaction, branch_summary_info
from desktop_app.present.audit_words import turn_start
from desktop_app.present.chat_feed import session_profile
from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.selection import Selection
from desktop_app.present.viewgraph import Node
from desktop_app.session import SessionView

from .minimap import MinimapBinding
from .scene import GraphScene
from .viewport import ViewportController

__all__ = ["CanvasSelection", "SelectionCanvas"]


class SelectionCanvas(Protocol):
    """What the selection needs of the canvas itself."""

    node_selected: SignalInstance
    compaction_selected: SignalInstance
    branch_summary_selected: SignalInstance

    @property
    def model(self) -> ViewGraphModel | None: ...
    @property
    def session(self) -> SessionView | None: ...
    def relayout(self) -> None: ...
    def user_moved(self) -> None: ...


class CanvasSelection:
    """Selects nodes on one canvas (see the module docstring); ``state`` is the Qt-free selection."""

    def __init__(
        self, canvas: SelectionCanvas, scene: GraphScene, camera: ViewportController, minimap: MinimapBinding
    ) -> None:
        self._canvas = canvas
        self._scene = scene
        self._camera = camera
        self._minimap = minimap
        self.state: Selection[CompactionAudit] = Selection(self._audit_of)

    def _audit_of(self, compaction_id: str) -> CompactionAudit:
        session = self._canvas.session
        assert session is not None
        return audit_compaction(session.index, compaction_id, session_profile(session))

    def _split_turn_start(self, audit: CompactionAudit) -> str | None:
        """The entry that starts the turn a split compaction cut through (marked on the canvas)."""
        session = self._canvas.session
        if not audit.is_split_turn or session is None:
            return None
        return turn_start(session.get_branch(audit.compaction_id), audit.first_kept_entry_id)

    def select_node(self, node: Node | None, *, center: bool = False, notify: bool = True) -> None:
        """Select ``node`` (``None``: nothing); ``center`` brings it into view, ``notify`` tells
        the window (``node_selected``); a compaction's audit and a branch summary are always told."""
        scene, canvas = self._scene, self._canvas
        previous = self.state.node
        if previous is not None and previous in scene.nodes:
            scene.nodes[previous].set_state(selected=False)
        model = canvas.model
        if model is None:
            return
        change = self.state.select(model, node if node in scene.nodes else None)
        if change.nodes_changed:
            canvas.relayout()
        elif change.graph_changed:
            scene.rebind(model.graph)
        if change.audit_changed or change.audit is not None:
            if change.audit is None:
                scene.clear_audit()
            else:
                scene.show_audit(change.audit, self._split_turn_start(change.audit))
            canvas.compaction_selected.emit(change.audit)
        selected = self.state.node
        if selected is None or selected not in scene.nodes:
            scene.update_marks()
            return
        scene.nodes[selected].set_state(selected=True)
        scene.update_marks()
        if center:
            self._camera.bring_into_view(selected)
            if notify and not self._camera.leaf_visible():  # keys or a search jump took the view away
                canvas.user_moved()
        self._minimap.place()
        assert change.entry_id is not None
        session = canvas.session
        if change.kind == "branch_summary" and session is not None:
            canvas.branch_summary_selected.emit(branch_summary_info(session.index, change.entry_id))
        if notify and change.kind != "segment":
            canvas.node_selected.emit(change.entry_id)

    def restore(self) -> None:
        """Mark the selection on the new items (dropped when its node is gone)."""
        node = self.state.node
        if node is not None and node in self._scene.nodes:
            self._scene.nodes[node].set_state(selected=True)
        elif node is not None:
            self.state.node = None

    def audit_bands(self) -> tuple[list[Node], list[Node]]:
        """The nodes in the summarized and kept bands now on screen (empty when no audit)."""
        bands = self._scene.bands
        return (list(bands.summarized_nodes), list(bands.kept_nodes)) if bands is not None else ([], [])
