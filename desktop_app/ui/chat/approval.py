"""``ApprovalCardWidget``: the card above the composer that asks before a write, edit or bash runs.

The agent awaits :meth:`ApprovalCardWidget.ask` (through the window's ``agent.approver``); the card
stays up until a button answers it or the awaiting coroutine is cancelled (Esc aborts the turn),
and closes either way. What it shows is decided in ``desktop_app.present.approval_card``; this only
renders it. The buttons have Alt mnemonics, take Tab focus, and the first one gets focus.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout

from desktop_app.present.approval_card import ApprovalCard
from desktop_app.present.markdown_html import code_block_html
from desktop_app.tools import ApprovalDecision

__all__ = ["ApprovalCardWidget"]


class ApprovalCardWidget(QFrame):
    """Hidden until :meth:`ask`; one card at a time (the agent asks in call order)."""

    #: A card was shown (tests and screenshots wait for it).
    shown = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._future: asyncio.Future[ApprovalDecision] | None = None
        self._card: ApprovalCard | None = None
        self._dark = False
        self._title = QLabel(self)
        self._title.setObjectName("approvalTitle")
        self._title.setTextFormat(Qt.TextFormat.PlainText)
        self._title.setWordWrap(True)
        self._facts = QLabel(self)
        self._facts.setTextFormat(Qt.TextFormat.PlainText)
        self._facts.setWordWrap(True)
        self._facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._warning = QLabel(self)
        self._warning.setObjectName("approvalWarning")
        self._warning.setTextFormat(Qt.TextFormat.PlainText)
        self._warning.setWordWrap(True)
        self._body = QTextBrowser(self)
        self._body.setObjectName("approvalBody")
        self._body.setOpenLinks(False)
        self._body.setMinimumHeight(60)
        self._body.setMaximumHeight(320)
        self.buttons: list[QPushButton] = []
        row = QHBoxLayout()
        row.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        layout.addWidget(self._title)
        layout.addWidget(self._facts)
        layout.addWidget(self._warning)
        layout.addWidget(self._body)
        layout.addLayout(row)
        self._row = row
        self.apply_theme(dark=False)
        self.hide()

    # ------------------------------------------------------------------------------ asking

    async def ask(self, card: ApprovalCard) -> ApprovalDecision:
        """Show ``card`` and return the button's decision; cancelled, the card closes."""
        if self._future is not None and not self._future.done():
            self._future.cancel()
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._future = future
        self._show(card)
        try:
            return await future
        finally:
            if self._future is future:
                self._future = None
                self._card = None
                self.hide()

    def answer(self, decision: ApprovalDecision) -> None:
        """Answer the open card (what its buttons do)."""
        if self._future is not None and not self._future.done():
            self._future.set_result(decision)

    @property
    def card(self) -> ApprovalCard | None:
        """The card on screen, if any."""
        return self._card

    def button(self, decision: ApprovalDecision) -> QPushButton:
        """The button that answers ``decision`` (for keyboard tests)."""
        assert self._card is not None, "no card is shown"
        index = [b.decision for b in self._card.buttons].index(decision)
        return self.buttons[index]

    # ------------------------------------------------------------------------------ drawing

    def _show(self, card: ApprovalCard) -> None:
        self._card = card
        self._title.setText(card.title)
        self._facts.setText("\n".join(card.facts))
        self._facts.setVisible(bool(card.facts))
        self._warning.setText(card.warning or "")
        self._warning.setVisible(bool(card.warning))
        if card.body:
            self._body.setHtml(code_block_html(card.body, card.language, dark=self._dark))
            self._body.show()
        else:
            self._body.clear()
            self._body.hide()
        while self._row.count():
            item = self._row.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        self.buttons = []
        for spec in card.buttons:
            button = QPushButton(spec.label, self)
            button.setAutoDefault(True)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            button.clicked.connect(lambda _checked=False, d=spec.decision: self.answer(d))
            self._row.addWidget(button)
            self.buttons.append(button)
        self._row.addStretch(1)
        self.show()
        if self.buttons:
            self.buttons[0].setDefault(True)
            self.buttons[0].setFocus(Qt.FocusReason.OtherFocusReason)
        self.shown.emit()

    def apply_theme(self, dark: bool) -> None:
        self._dark = dark
        fill, border, warn = ("#1c2128", "#d29922", "#f85149") if dark else ("#fff8e5", "#d4a72c", "#cf222e")
        self.setStyleSheet(
            f"#approvalCard {{ background: {fill}; border: 1px solid {border}; border-radius: 6px; }}"
            f" #approvalCard QLabel {{ background: transparent; }}"
            f" #approvalTitle {{ font-weight: bold; }}"
            f" #approvalWarning {{ color: {warn}; }}"
        )
        if self._card is not None and self._card.body:
            self._body.setHtml(code_block_html(self._card.body, self._card.language, dark=dark))
