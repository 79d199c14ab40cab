"""Colours, shapes and fonts of the canvas, for a light and a dark window.

One place decides how each kind reads at a glance: messages are rounded cards with a coloured
stripe, bookkeeping entries are small pills, and the two kinds that rewrite context look like
nothing else: a compaction is a solid orange slab with torn top and bottom edges (history was cut
here), a branch summary a solid teal hexagon. pi 1.6.0's kinds: a system message (the prompt and
tool set, or a change to them) is a grape card, a context edit a dashed red note linked to the
entry it omits or replaces, a usage entry a small grey marker.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette

from desktop_app.present.kind_style import DASHED_KINDS, KIND_ACCENTS, KIND_SHAPES
from desktop_app.present.layout import LayoutSpec
from desktop_app.session.kinds import Role

__all__ = ["GraphStyle", "KindStyle", "default_style"]


# The tables are Qt-free (present/kind_style.py): the exported page's tree draws with the same colours.
SHAPES = KIND_SHAPES
_ACCENTS = KIND_ACCENTS
_DASHED = DASHED_KINDS


@dataclass(frozen=True)
class KindStyle:
    shape: str
    accent: QColor
    fill: QColor
    text: QColor
    dashed: bool = False


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` blended towards ``b`` by ``t`` (0 → a, 1 → b)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


@dataclass
class GraphStyle:
    """Everything the items need to paint; built once per theme."""

    dark: bool = False
    spec: LayoutSpec = field(default_factory=LayoutSpec)
    background: QColor = field(default_factory=lambda: QColor("#f8f9fb"))
    edge: QColor = field(default_factory=lambda: QColor("#b4bac2"))
    active: QColor = field(default_factory=lambda: QColor("#7048e8"))
    selection: QColor = field(default_factory=lambda: QColor("#1c7ed6"))
    pin: QColor = field(default_factory=lambda: QColor("#e03131"))
    flag: QColor = field(default_factory=lambda: QColor("#f59f00"))
    match: QColor = field(default_factory=lambda: QColor("#ffd43b"))
    current_match: QColor = field(default_factory=lambda: QColor("#fd7e14"))
    dim: QColor = field(default_factory=lambda: QColor(60, 64, 72, 120))
    kept: QColor = field(default_factory=lambda: QColor("#e8590c"))
    cut: QColor = field(default_factory=lambda: QColor("#c92a2a"))
    summary_link: QColor = field(default_factory=lambda: QColor("#0c8599"))
    edit_link: QColor = field(default_factory=lambda: QColor("#c92a2a"))
    text: QColor = field(default_factory=lambda: QColor("#212529"))
    muted: QColor = field(default_factory=lambda: QColor("#6c757d"))
    font: QFont = field(default_factory=QFont)
    tag_font: QFont = field(default_factory=QFont)
    mono_font: QFont = field(default_factory=QFont)
    kinds: dict[str, KindStyle] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.font.setPixelSize(12)
        self.tag_font.setPixelSize(10)
        self.tag_font.setBold(True)
        self.mono_font.setFamilies(["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"])
        self.mono_font.setStyleHint(QFont.StyleHint.Monospace)
        self.mono_font.setPixelSize(11)
        if self.dark:
            self.background = QColor("#1b1c1f")
            self.edge = QColor("#5c6370")
            self.text = QColor("#e9ecef")
            self.muted = QColor("#adb5bd")
            self.dim = QColor(0, 0, 0, 140)
            self.active = QColor("#9775fa")
        base = QColor("#26282c") if self.dark else QColor("#ffffff")
        for kind, accent_name in _ACCENTS.items():
            accent = QColor(accent_name)
            shape = SHAPES[kind]
            if shape in ("slab", "hexagon"):
                fill, text = accent, QColor("#ffffff")
            elif shape == "terminal":
                fill, text = QColor("#212529"), QColor("#b2f2bb")
            else:
                fill = _mix(base, accent, 0.22 if self.dark else 0.11)
                text = self.text
            if kind == Role.SYSTEM:  # a little stronger than a message: it frames every message after it
                fill = _mix(base, accent, 0.3 if self.dark else 0.16)
            dashed = kind in _DASHED
            self.kinds[kind] = KindStyle(shape, accent, fill, text, dashed)

    def kind(self, kind: str) -> KindStyle:
        return self.kinds.get(kind) or self.kinds["unknown"]

    def adopt(self, other: GraphStyle) -> None:
        """Take ``other``'s colours and fonts in place: the scene, its items, the minimap and the
        side panels all hold this one object, so a theme switch reaches them without rebuilding."""
        for f in fields(self):
            setattr(self, f.name, getattr(other, f.name))


def default_style() -> GraphStyle:
    """Light or dark, following the application palette."""
    app = QGuiApplication.instance()
    dark = False
    if isinstance(app, QGuiApplication):
        dark = app.palette().color(QPalette.ColorRole.Window).lightness() < 128
    return GraphStyle(dark=dark)
