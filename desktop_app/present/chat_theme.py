"""Colours of the chat, light and dark (``ui.chat.theme`` picks one from the widget palette).

One place for them so the renderer (HTML) and the delegate (bubbles) agree, and so a summary card
looks unlike any message in both themes.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.session.kinds import Role

__all__ = ["ChatTheme", "Bubble", "LIGHT", "DARK"]


@dataclass(frozen=True)
class Bubble:
    """Fill, border and accent (label/left bar) of one kind of row."""

    fill: str
    border: str
    accent: str


@dataclass(frozen=True)
class ChatTheme:
    dark: bool
    background: str
    text: str
    dim: str
    user: Bubble
    assistant: Bubble
    tool: Bubble
    tool_error: Bubble
    bash: Bubble
    custom: Bubble
    compaction: Bubble
    branch: Bubble
    system: Bubble
    edit: Bubble
    error: Bubble
    aborted: Bubble
    unknown: Bubble

    def bubble(self, kind: Role | str, status: str = "ok", is_error_result: bool = False) -> Bubble:
        """The bubble for a row kind (an error/aborted assistant gets its status colours)."""
        if kind == Role.ASSISTANT:
            return {"error": self.error, "aborted": self.aborted}.get(status, self.assistant)
        if kind == Role.TOOL_RESULT:
            return self.tool_error if is_error_result else self.tool
        cards: dict[str, Bubble] = {
            Role.USER: self.user,
            Role.BASH_EXECUTION: self.bash,
            Role.CUSTOM: self.custom,
            Role.COMPACTION_SUMMARY: self.compaction,
            Role.BRANCH_SUMMARY: self.branch,
            Role.SYSTEM: self.system,
        }
        return cards.get(kind, self.unknown)


LIGHT = ChatTheme(
    dark=False,
    background="#f4f5f7",
    text="#1f2328",
    dim="#656d76",
    user=Bubble("#dbeeff", "#a8d1f7", "#0969da"),
    assistant=Bubble("#ffffff", "#d8dee4", "#1a7f37"),
    tool=Bubble("#eef0f3", "#dde1e6", "#57606a"),
    tool_error=Bubble("#fff0ee", "#f5c2bd", "#cf222e"),
    bash=Bubble("#eef0f3", "#dde1e6", "#1a7f37"),
    custom=Bubble("#f6f8fa", "#b8c0c8", "#6639ba"),
    compaction=Bubble("#fff5d6", "#d4a72c", "#7d4e00"),
    branch=Bubble("#f1ebff", "#a37ff0", "#6639ba"),
    system=Bubble("#f8f0fc", "#cc5de8", "#862e9c"),
    edit=Bubble("#fff5f5", "#e03131", "#c92a2a"),
    error=Bubble("#fff0ee", "#ff8182", "#cf222e"),
    aborted=Bubble("#fff4e8", "#f0a25a", "#bc4c00"),
    unknown=Bubble("#f6f8fa", "#d0d7de", "#656d76"),
)

DARK = ChatTheme(
    dark=True,
    background="#0d1117",
    text="#e6edf3",
    dim="#9198a1",
    user=Bubble("#112a45", "#1f4b7a", "#58a6ff"),
    assistant=Bubble("#161b22", "#30363d", "#3fb950"),
    tool=Bubble("#12171e", "#262c34", "#9198a1"),
    tool_error=Bubble("#2a1416", "#6e2b2f", "#f85149"),
    bash=Bubble("#12171e", "#262c34", "#3fb950"),
    custom=Bubble("#161b22", "#484f58", "#bc8cff"),
    compaction=Bubble("#2b2111", "#9e6a03", "#e3b341"),
    branch=Bubble("#221a38", "#6e40c9", "#bc8cff"),
    system=Bubble("#2b1733", "#9c36b5", "#e599f7"),
    edit=Bubble("#2a1416", "#c92a2a", "#ff8787"),
    error=Bubble("#2a1416", "#da3633", "#f85149"),
    aborted=Bubble("#2b1b0e", "#bd561d", "#f0883e"),
    unknown=Bubble("#161b22", "#30363d", "#9198a1"),
)
