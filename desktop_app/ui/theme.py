"""Light and dark for the whole window: the ``theme`` setting (``system``, ``light``, ``dark``).

Why a palette and not a style sheet: every widget (and the graph and chat, which pick their colours
from the application palette) follows a ``QPalette``, so one palette switch re-colours everything
that listens for ``PaletteChange``, and nothing hard-codes a colour that breaks the other theme.
``system`` asks Qt for the desktop's colour scheme; a setting of ``light`` or ``dark`` overrides it.
The Fusion style is used so the palette is honoured the same way on every platform.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

__all__ = ["THEMES", "apply_theme", "dark_palette", "is_dark", "light_palette", "system_prefers_dark"]

THEMES: tuple[str, ...] = ("system", "light", "dark")
"""The values of the ``theme`` setting, in the order the settings dialog offers them."""


def system_prefers_dark() -> bool:
    """The desktop's colour scheme as Qt reports it (unknown counts as light)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return False
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def is_dark(setting: str, system_dark: bool) -> bool:
    """``dark`` and ``light`` win; anything else (``system``, a typo) follows the desktop."""
    if setting == "dark":
        return True
    if setting == "light":
        return False
    return system_dark


def _palette(colours: dict[QPalette.ColorRole, str], disabled_text: str) -> QPalette:
    palette = QPalette()
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled_text))
    return palette


def dark_palette() -> QPalette:
    """A calm dark palette (GitHub-dark-like greys, blue selection) with readable disabled text."""
    role = QPalette.ColorRole
    return _palette(
        {
            role.Window: "#1f2125",
            role.WindowText: "#e6e6e6",
            role.Base: "#17191c",
            role.AlternateBase: "#23262b",
            role.ToolTipBase: "#2b2e33",
            role.ToolTipText: "#e6e6e6",
            role.PlaceholderText: "#8b9096",
            role.Text: "#e6e6e6",
            role.Button: "#2a2d32",
            role.ButtonText: "#e6e6e6",
            role.BrightText: "#ff7b72",
            role.Light: "#3a3e44",
            role.Midlight: "#31353a",
            role.Mid: "#26292d",
            role.Dark: "#141518",
            role.Shadow: "#000000",
            role.Highlight: "#2f6feb",
            role.HighlightedText: "#ffffff",
            role.Link: "#58a6ff",
            role.LinkVisited: "#bc8cff",
        },
        "#6e7681",
    )


def light_palette() -> QPalette:
    """The Fusion style's own light palette (what Qt shows without a theme)."""
    app = QApplication.instance()
    style = app.style() if isinstance(app, QApplication) else None
    return style.standardPalette() if style is not None else QPalette()


def apply_theme(setting: str, app: QApplication | None = None) -> bool:
    """Put the palette for ``setting`` on the application; returns whether it is dark.

    Widgets get ``PaletteChange`` events, so the chat and the status bar re-colour at once.
    """
    instance = app or QApplication.instance()
    if not isinstance(instance, QApplication):
        return False
    if instance.style().name().lower() != "fusion":
        instance.setStyle("Fusion")
    dark = is_dark(setting, system_prefers_dark())
    instance.setPalette(dark_palette() if dark else light_palette())
    return dark
