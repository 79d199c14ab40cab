"""``SessionManager`` satisfies the read-only ``SessionView`` protocol (checked by mypy, not by hope)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from desktop_app.session import SessionManager, SessionReadOnlyError, SessionView

from .helpers import user

REPO = Path(__file__).resolve().parents[2]


def _as_view(manager: SessionManager) -> SessionView:
    return manager  # mypy --strict on this file rejects it if the protocol is not satisfied


def test_manager_is_a_session_view_for_mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mypy with ``make lint``'s options and cache (``.mypy_cache``, which ``.ci/run`` fills just before
    the tests): only the probe and what changed since are checked, not the session package and the
    standard library from nothing (~0.3 s instead of ~2.5 s). A changed ``SessionManager`` or protocol
    is a changed module, so it is checked again."""
    probe = tmp_path / "arbor_session_view_probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            from desktop_app.session import SessionManager, SessionReadOnlyError, SessionView

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
    monkeypatch.chdir(REPO)  # mypy finds desktop_app (this checkout's) in the working directory
    out, err, status = mypy_api.run(
        ["--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(REPO / ".mypy_cache"), str(probe)]
    )
    # the probe's errors only (mypy may name the folder of an earlier run: the module is the same)
    errors = [line for line in out.splitlines() if ": error:" in line and f"/{probe.name}:" in line]
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


def test_open_snapshot_never_touches_the_file(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    header = '{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
    message = '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n'
    source.write_text(header + message)  # a v1 file: opening it normally would migrate (rewrite) it
    before = source.read_bytes()
    snapshot = SessionManager.open_snapshot(source)
    assert snapshot.session_file == str(source.resolve())
    assert snapshot.read_only and len(snapshot.get_entries()) == 1
    assert snapshot.poll_external_changes() == []
    with pytest.raises(SessionReadOnlyError):
        snapshot.append_label_change(snapshot.get_entries()[0]["id"], "x")
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v1.jsonl"]  # no backup, no lock file
