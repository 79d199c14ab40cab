"""``refreshed_page``: the reader's page re-read after the leaf moved (issue 22 item 7)."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.present.reader import context_page, reader_page, refreshed_page
from desktop_app.session import SessionManager

CASCAIS_A, SINTRA_A = "s0000016", "s0000019"


def sample(tmp_path: Path) -> SessionManager:
    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    return SessionManager.open(path, fsync=False)


def test_an_entry_page_follows_the_leaf(tmp_path: Path) -> None:
    view = sample(tmp_path)
    page = reader_page(view, SINTRA_A)
    assert page is not None and page.status == "On the active path" and page.can_continue
    view.branch(CASCAIS_A)
    fresh = refreshed_page(view, page)
    assert fresh is not None and "another branch" in fresh.status and fresh.body == page.body
    view.branch(SINTRA_A)
    leaf = refreshed_page(view, page)
    assert leaf is not None and leaf.status == "The active leaf" and not leaf.can_continue
    busy = refreshed_page(view, page, busy=True)
    assert busy is not None and busy.kind == "entry"


def test_a_context_page_keeps_its_text_and_follows_the_leaf(tmp_path: Path) -> None:
    view = sample(tmp_path)
    page = context_page(view, SINTRA_A)
    assert page is not None and page.kind == "context" and page.status == "On the active path"
    view.branch(CASCAIS_A)
    fresh = refreshed_page(view, page)
    assert fresh is not None and fresh.kind == "context" and fresh.body == page.body and fresh.title == page.title
    assert "another branch" in fresh.status


def test_a_vanished_entry_has_no_page(tmp_path: Path) -> None:
    view = sample(tmp_path)
    page = reader_page(view, SINTRA_A)
    assert page is not None
    view.new_session()
    assert refreshed_page(view, page) is None
