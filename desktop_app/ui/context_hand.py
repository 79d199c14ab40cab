"""Context by hand in the window (issue 26): the node menu's context items, the edit dialog, the manual
compaction dialog, and the marks of hidden and edited entries on the canvas.

Every change goes through the agent's commands (``edit_context``, ``show_in_context``, ``compact``,
``generate_summary``, ``expand_compaction``), each of which appends entries or moves the leaf: nothing is
rewritten, and each new leaf is recorded in the steering's leaf history, so Undo (Ctrl+Z) moves the leaf
back to before the change. What applies and why not comes from
:mod:`desktop_app.present.context_actions`, the words from :mod:`desktop_app.present.context_words`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from desktop_app.agent.context_hand import original_content
from desktop_app.compaction.session_ops import NothingToCompactError
from desktop_app.present.chat_feed import session_profile
from desktop_app.present.compaction_preview import CompactionPreview, preview_compaction
from desktop_app.present.context_actions import (
    ActionState,
    ContextAction,
    EditState,
    action_state,
    context_actions,
    context_edit_states,
    cut_choices_of,
    edit_token_change,
)
from desktop_app.present.context_words import entry_text, text_in_context

from .context_edit_dialog import ContextEditDialog
from .dialogs import CompactionDialog
from .graph.cut_drag import CutDrag, keep_cut_in_view
from .graph.edit_marks import apply_edit_marks
from .manual_compaction import ManualCompaction, ManualCompactionDialog
from .plain import plain_text


class Steering(Protocol):
    """What :class:`ContextHand` uses of :class:`~desktop_app.ui.steering.Steering` (no import: no cycle)."""

    window: Any
    host: Any
    reader: Any
    history: Any
    compaction_dialog: Any

    def _sync_undo(self) -> None: ...

    def _open_compaction_dialog(self, dialog: Any) -> Any: ...

    def _beside_graph(self, dialog: Any) -> None: ...

__all__ = ["CONTEXT_MNEMONICS", "ContextHand"]

#: The underlined letter of each item (none taken by the node menu's own items).
CONTEXT_MNEMONICS = {
    ContextAction.HIDE: "&Hide from context",
    ContextAction.SHOW: "Sho&w in context again",
    ContextAction.EDIT_TEXT: "Edit te&xt in context…",
    ContextAction.RESTORE_TEXT: "Restore ori&ginal text",
    ContextAction.SUMMARIZE_UP_TO_HERE: "Su&mmarize up to here",
    ContextAction.CONTINUE_WITHOUT_COMPACTION: "Continue with&out this compaction",
}


class ContextHand(QObject):
    """See the module docstring; made by :class:`~desktop_app.ui.steering.Steering`."""

    def __init__(self, steering: Steering, parent: QObject) -> None:
        super().__init__(parent)
        self.steering = steering
        self.window = steering.window
        self.edit_dialog: ContextEditDialog | None = None  #: the open editor (automation reads it)
        self.cut_drag: CutDrag | None = None  #: the canvas's cut-line drag while a compaction dialog is open
        self._unsubscribe: Callable[[], None] | None = None
        self._marks_timer = QTimer(self)
        self._marks_timer.setSingleShot(True)
        self._marks_timer.setInterval(30)
        self._marks_timer.timeout.connect(self.refresh_marks)
        self.window.graph.layout_applied.connect(lambda _kind: self._marks_timer.start())

    @property
    def _view(self) -> Any:
        return self.window.agent.view

    @property
    def _profile(self) -> Any:
        return self.window.agent.session.profile

    # ================================================================================ marks

    def session_bound(self) -> None:
        """Another session: marks follow its appends and leaf moves (a hide is an append, Undo a move)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = self._view.subscribe(lambda _event: self._marks_timer.start())
        self._marks_timer.start()

    def edit_states(self) -> dict[str, EditState]:
        """The applied edits of the active path (walks its context end: a few hundred entries; asked
        once per batch of session events, never per paint)."""
        view = self._view
        return context_edit_states(view, session_profile(view)) if view.leaf_id else {}

    def refresh_marks(self) -> None:
        """Strike through the hidden entries' nodes, badge the edited ones (the nodes on the canvas)."""
        apply_edit_marks(self.window.graph.graph_scene().nodes, self.edit_states())

    # ================================================================================ menu

    def extend_menu(self, menu: QMenu, entry_id: str) -> None:
        """Add the context items to the node menu (after a separator); each ``data()`` is its action."""
        items = context_actions(self._view, entry_id, profile=self._profile, busy=self.window.agent.busy)
        if not items:
            return
        menu.addSeparator()
        for item in items:
            action = QAction(CONTEXT_MNEMONICS[item.action], menu)
            action.setData(item.action)
            action.setEnabled(item.enabled)
            action.setToolTip(plain_text(item.reason))
            action.setStatusTip(item.reason)
            menu.addAction(action)
        menu.triggered.connect(lambda chosen: self._chosen(entry_id, chosen))

    def _chosen(self, entry_id: str, chosen: QAction | None) -> None:
        data = chosen.data() if chosen is not None else None
        if isinstance(data, ContextAction):
            self.run(entry_id, data)

    def state(self, entry_id: str, action: ContextAction) -> ActionState:
        return action_state(self._view, entry_id, action, profile=self._profile, busy=self.window.agent.busy)

    def run(self, entry_id: str, action: ContextAction) -> None:
        """Carry out an item (re-checked: the session may have moved since the menu opened)."""
        state = self.state(entry_id, action)
        if not state.enabled:
            self.window.statusBar().showMessage(state.reason, 6000)
            return
        agent = self.window.agent
        match action:
            case ContextAction.HIDE:
                self._write(action.value, lambda: agent.edit_context(entry_id, None))
            case ContextAction.SHOW | ContextAction.RESTORE_TEXT:
                self._write(action.value, lambda: agent.show_in_context(entry_id))
            case ContextAction.EDIT_TEXT:
                self.edit_text(entry_id)
            case ContextAction.SUMMARIZE_UP_TO_HERE:
                self.compact(entry_id)
            case ContextAction.CONTINUE_WITHOUT_COMPACTION:
                self._write(action.value, lambda: agent.expand_compaction(entry_id))

    def _write(self, what: str, command: Callable[[], str | None]) -> None:
        """Run a command that appends (or moves the leaf); Undo moves the leaf back to before it."""
        before = self._view.leaf_id
        self.window._guarded(what, command)
        after = self._view.leaf_id
        if after != before:
            self.steering.history.record(before, after)
            self.steering._sync_undo()
        self._marks_timer.start()

    # ================================================================================ edit dialog

    def edit_text(self, entry_id: str) -> ContextEditDialog | None:
        """The editor for the text the model receives for ``entry_id`` (not blocking)."""
        view, profile = self._view, self._profile
        entry = view.get_entry(entry_id)
        if entry is None:
            return None
        if self.edit_dialog is not None:
            self.edit_dialog.close()
        dialog = ContextEditDialog(
            entry_id,
            entry_text(original_content(entry)),
            text_in_context(view, entry_id, profile),
            lambda text: edit_token_change(self._view, entry_id, text, self._profile),
            self.steering.host,
        )
        self.edit_dialog = dialog
        self.window.graph.reveal(entry_id)
        self.window.graph.select(entry_id, center=True, notify=True)  # the reader and the lens follow
        dialog.text_chosen.connect(
            lambda text: self._write("Edit text in context", lambda: self.window.agent.edit_context(entry_id, text))
        )
        dialog.finished.connect(lambda _r: self._edit_closed(dialog))
        self.steering._beside_graph(dialog)
        dialog.open()
        return dialog

    def _edit_closed(self, dialog: ContextEditDialog) -> None:
        if self.edit_dialog is dialog:
            self.edit_dialog = None

    # ================================================================================ compaction by hand

    def _preview_at(self, cut: str | None) -> CompactionPreview:
        window = self.window
        return preview_compaction(self._view, window.settings.compaction, self._profile, first_kept_entry_id=cut)

    def compact(self, cut: str | None = None) -> CompactionDialog:
        """The compaction preview with the cut slider and the editable summary (``cut``: "Summarize up
        to here"'s entry); nothing is written before Compact."""
        steering = self.steering
        open_dialog: CompactionDialog | None = steering.compaction_dialog
        if isinstance(open_dialog, ManualCompactionDialog) and cut is not None:
            open_dialog.set_cut(cut)
        if open_dialog is not None:
            open_dialog.raise_()
            return open_dialog
        preview = self._preview_at(None)
        choices = cut_choices_of(self._view, self._profile)
        dialog = ManualCompactionDialog(preview, choices, self._preview_at, steering.host, cut=cut)
        steering._open_compaction_dialog(dialog)
        self._show_bands(dialog.preview)
        view = self._view
        drag = CutDrag(
            self.window.graph,
            [str(e.get("id")) for e in view.get_branch()],
            [c.entry_id for c in choices],
            dialog.set_cut,
            lambda: self._show_bands(dialog.preview, moved=True),  # dropped: the cut's node unfolded, in view
        )
        self.cut_drag = drag
        dialog.finished.connect(lambda _r: self._drag_ended(drag))
        dialog.cut_changed.connect(lambda p: self._show_bands(p, reveal=not drag.dragging, moved=True))
        dialog.generate_requested.connect(lambda focus, at: self._generate(dialog, focus, at))
        dialog.compact_requested.connect(lambda request: self._run(dialog, request))
        return dialog

    def _drag_ended(self, drag: CutDrag) -> None:
        drag.detach()
        if self.cut_drag is drag:
            self.cut_drag = None
        drag.deleteLater()

    def _show_bands(self, preview: CompactionPreview | None, *, reveal: bool = True, moved: bool = False) -> None:
        """The plan's bands and cut line on the canvas (they follow the slider and the drag; a drag
        keeps the view where it is, under the pointer)."""
        if preview is None or not preview.runnable or preview.first_kept_entry_id is None:
            return
        graph = self.window.graph
        if reveal:  # the cut line in view; when the user moved it, the view stays there (not on the leaf)
            if moved:
                graph.user_moved()  # as after a search jump: a relayout no longer pulls the view to the leaf
            graph.reveal(preview.first_kept_entry_id, keep_following=not moved)
        self.steering.reader.show_detail(False)  # the dialog tells the bands; a selected audit would not
        graph.graph_scene().show_audit(preview.as_audit())
        if reveal:
            keep_cut_in_view(graph)

    def _generate(self, dialog: ManualCompactionDialog, focus: str | None, cut: str | None) -> None:
        async def generate() -> None:
            try:
                at = None if cut == dialog.default_cut else cut
                text = await self.window.agent.generate_summary(focus, first_kept_entry_id=at)
            except Exception as exc:  # noqa: BLE001 - shown in the dialog, in words
                if self.steering.compaction_dialog is dialog:
                    dialog.show_error(f"No summary: {getattr(exc, 'reason', None) or exc}")
                return
            if self.steering.compaction_dialog is dialog:
                dialog.set_summary(text)

        self.window.run_task(generate(), "Generating the summary")

    def _run(self, dialog: ManualCompactionDialog, request: ManualCompaction) -> None:
        """Compact as asked; a refusal (a bad cut, nothing to compact) is shown in the dialog, which
        stays open; the dialog's Cancel cancels this very task."""
        steering = self.steering

        async def run() -> None:
            before = self._view.leaf_id
            try:
                await self.window.agent.compact(
                    request.focus, summary=request.summary, first_kept_entry_id=request.first_kept_entry_id
                )
            except (ValueError, NothingToCompactError) as exc:  # a bad cut, nothing to compact: in words
                if steering.compaction_dialog is dialog:
                    dialog.show_error(str(exc))
                return
            steering.history.record(before, self._view.leaf_id)  # Undo: back to before the compaction
            steering._sync_undo()
            if steering.compaction_dialog is dialog:
                dialog.ended()

        future = self.window.run_task(run(), "Compaction")
        dialog.cancel_requested.disconnect()
        dialog.cancel_requested.connect(future.cancel)
        future.add_done_callback(lambda _f: dialog.ended() if steering.compaction_dialog is dialog and dialog.running else None)
