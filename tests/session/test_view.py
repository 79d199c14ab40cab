"""``SessionManager`` satisfies the read-only ``SessionView`` protocol (checked by mypy, not by hope)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mypy import api as mypy_api

from desktop_app.session import SessionManager, SessionView

from .helpers import user

REPO = Path(__file__).resolve().parents[2]


def _as_view(manager: SessionManager) -> SessionView:
    return manager  # mypy --strict on this file rejects it if the protocol is not satisfied


def test_manager_is_a_session_view_for_mypy(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            from desktop_app.session import SessionManager, SessionView

            def as_view(manager: SessionManager) -> SessionView:
                return manager

            class NotAView:
                leaf_id = None

            def wrong() -> SessionView:
                return NotAView()  # must be reported: proves the check can fail
            """
        ),
        encoding="utf-8",
    )
    out, err, status = mypy_api.run(
        ["--strict", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"), str(probe)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    # exactly one error, and it is the deliberate one: SessionManager itself passes
    assert len(errors) == 1 and "NotAView" in errors[0] and "return-value" in errors[0], out + err


def test_view_reads_what_the_manager_holds() -> None:
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("q"))
    view = _as_view(manager)
    seen: list[object] = []
    unsubscribe = view.subscribe(seen.append)
    second = manager.append_message(user("r"))
    unsubscribe()
    assert view.leaf_id == second and [e["id"] for e in view.get_branch()] == [first, second]
    assert [m["content"][0]["text"] for m in view.build_session_context(first).messages] == ["q"]
    assert len(view.build_session_context().messages) == 2 and len(seen) == 1
