"""A draft per session: what was typed but not sent stays with the conversation it was typed in.

Without this, text left in the composer survived New, Open and session switches, and one Enter sent
it into the wrong conversation (issue 9, Found item 3). The window calls :meth:`Drafts.switch`
whenever it binds another session: the composer's text is kept for the session being left, and the
draft of the session being entered (if any) comes back.
"""

from __future__ import annotations

__all__ = ["Drafts", "draft_key"]


def draft_key(session_file: str | None, session_id: str) -> str:
    """Which conversation a draft belongs to: the file, or the id of an in-memory session."""
    return session_file if session_file else f"memory:{session_id}"


class Drafts:
    """Unsent composer text per session (in memory, for the life of the window)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._current: str | None = None

    @property
    def current(self) -> str | None:
        """The key of the session the composer belongs to now."""
        return self._current

    def switch(self, key: str, composer_text: str) -> str:
        """Keep ``composer_text`` as the draft of the session being left; return ``key``'s draft.

        Switching to the same session keeps the composer as it is (``composer_text`` comes back).
        """
        if key == self._current:
            return composer_text
        if self._current is not None:
            if composer_text.strip():
                self._texts[self._current] = composer_text
            else:
                self._texts.pop(self._current, None)
        self._current = key
        return self._texts.pop(key, "")

    def draft(self, key: str) -> str:
        """The kept draft of a session not on screen ("" when none)."""
        return self._texts.get(key, "")
