"""The chat's colours for a widget palette: light or dark (the colours: ``present.chat_theme``)."""

from __future__ import annotations

from PySide6.QtGui import QPalette

from desktop_app.present.chat_theme import DARK, LIGHT, ChatTheme

__all__ = ["theme_for_palette"]


def theme_for_palette(palette: QPalette) -> ChatTheme:
    """Dark colours when the palette's window is dark (system dark mode or a dark stylesheet)."""
    return DARK if palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5 else LIGHT
