"""The column beside the graph: the outline with the legend, and the context lens, as tabs."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QWidget

from .lens_panel import LensPanel
from .outline_panel import OutlinePanel
from .view import GraphView

__all__ = ["GraphSidebar"]


class GraphSidebar(QTabWidget):
    """Outline (landmarks, legend) and Context (the lens); the lens's heat strip shows on the
    graph while its tab is open."""

    def __init__(self, graph: GraphView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outline = OutlinePanel(graph, graph.graph_style, self)
        self.lens = LensPanel(graph, graph.graph_style, self)
        self.addTab(self.outline, "Outline")
        self.addTab(self.lens, "Context")
        self.setTabToolTip(1, "What the model receives at the active leaf or the selected entry")
        self.setMinimumWidth(200)
        graph.style_changed.connect(self.outline.restyle)
        graph.style_changed.connect(lambda: self.lens.refresh() if self.lens.isVisible() else None)

    def show_lens(self) -> None:
        self.setCurrentWidget(self.lens)
