"""What the Sessions panel shows (present.sessions): both roots, groups by folder, titles, counts,
newest first, search across all text (a tool result included), the window title."""

from __future__ import annotations

from pathlib import Path

from desktop_app.present.sessions import (
    SessionSources,
    build_groups,
    folder_labels,
    relative_time,
    session_title,
    window_title,
)
from desktop_app.session import SessionManager
from desktop_app.session.catalog import SessionCatalog, session_info_from_text
from desktop_app.session.paths import arbor_sessions_root, pi_sessions_root
from tests.session.helpers import assistant, tool_result, user

DAY = 86_400_000


def make_session(root: Path, cwd: str, texts: list[str], *, name: str | None = None,
                 tool_text: str | None = None) -> Path:
    """A real session file under ``root`` (pi's layout), written through SessionManager."""
    manager = SessionManager.create(cwd, SessionCatalog(root).session_dir(cwd))
    for text in texts:
        manager.append_message(user(text))
        manager.append_message(assistant(f"reply to {text}"))
    if tool_text is not None:
        manager.append_message(tool_result("call-1", tool_text))
    if name is not None:
        manager.append_session_info(name)
    path = Path(manager.session_file or "")
    manager.close()
    return path


def test_both_roots_are_listed_with_names_counts_and_sources() -> None:
    mine = make_session(arbor_sessions_root(), "/home/ann/trips", ["plan Lisbon"], name="Lisbon")
    theirs = make_session(pi_sessions_root(), "/home/ann/code", ["fix the parser", "add a test"])
    found = SessionSources().list()
    by_path = {str(info.path): (source, info) for source, info in found}
    assert by_path[str(mine)][0] == "Arbor"
    assert by_path[str(theirs)][0] == "pi"
    groups = build_groups(found)
    rows = {row.path: row for group in groups for row in group.rows}
    assert rows[str(mine)].title == "Lisbon" and rows[str(mine)].named
    assert rows[str(mine)].message_count == 2
    assert rows[str(theirs)].title == "fix the parser" and not rows[str(theirs)].named
    assert rows[str(theirs)].message_count == 4
    assert rows[str(theirs)].detail.startswith("4 messages · ")
    assert {g.label for g in groups} == {"trips", "code"}


def test_the_same_root_twice_is_listed_once(tmp_path: Path) -> None:
    make_session(tmp_path, "/w", ["one"])
    sources = SessionSources(tmp_path, tmp_path)
    assert len(sources.catalogs) == 1
    assert len(sources.list()) == 1


def test_a_word_only_inside_a_tool_result_is_found() -> None:
    hit = make_session(arbor_sessions_root(), "/w", ["read the config"], tool_text="zanzibar_flag = true")
    make_session(arbor_sessions_root(), "/w", ["something else"])
    found = SessionSources().list("ZANZIBAR_flag")
    assert [str(info.path) for _, info in found] == [str(hit)]
    assert SessionSources().list("zanzibar nothere") == []


def test_groups_and_rows_are_newest_first_and_current_is_marked(tmp_path: Path) -> None:
    def info(name: str, cwd: str, modified: int):  # noqa: ANN202
        text = (
            f'{{"type":"session","version":3,"id":"{name}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}}\n'
            f'{{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
            f'"message":{{"role":"user","content":"{name} text","timestamp":{modified}}}}}\n'
        )
        result = session_info_from_text(tmp_path / f"{name}.jsonl", text, 0)
        assert result is not None
        return result

    now = 1_800_000_000_000
    found = [("Arbor", info("old-a", "/a", now - 5 * DAY)), ("pi", info("new-b", "/b", now - 60_000)),
             ("Arbor", info("mid-a", "/a", now - DAY))]
    groups = build_groups(found, current=str(tmp_path / "mid-a.jsonl"), now_ms=now)
    assert [g.folder for g in groups] == ["/b", "/a"]
    assert [r.title for r in groups[1].rows] == ["mid-a text", "old-a text"]
    assert [r.current for r in groups[1].rows] == [True, False]
    assert groups[0].rows[0].detail == "1 message · 1 min ago"
    assert groups[1].rows[0].detail.endswith("yesterday")


def test_folders_sharing_a_name_are_told_apart_by_their_fewest_parents() -> None:
    labels = folder_labels([
        "/home/bob/code/pi-mono", "/home/kim/code/pi-mono", "/Users/badlogic/workspaces/pi-mono",
        "/home/dev/code/webapp", "/Users/dev/workspaces/webapp", "/home/you/trips", "", "/x", "/a/x",
    ])
    assert labels == {
        "/home/bob/code/pi-mono": "pi-mono — bob/code",
        "/home/kim/code/pi-mono": "pi-mono — kim/code",
        "/Users/badlogic/workspaces/pi-mono": "pi-mono — workspaces",
        "/home/dev/code/webapp": "webapp — code",
        "/Users/dev/workspaces/webapp": "webapp — workspaces",
        "/home/you/trips": "trips",  # a name of its own: just the name
        "": "(no folder)",
        "/x": "x",
        "/a/x": "x — a",
    }
    assert len(set(labels.values())) == len(labels)


def test_relative_time() -> None:
    now = 1_800_000_000_000
    assert relative_time(now - 5_000, now) == "just now"
    assert relative_time(now - 3 * 3_600_000, now) == "3 h ago"
    assert relative_time(now - 3 * DAY, now) == "3 days ago"
    assert relative_time(now - 30 * DAY, now)[:2] == "20"  # a date


def test_window_title_is_the_name_or_the_first_message() -> None:
    manager = SessionManager.in_memory("/w")
    assert window_title(manager) == "New session — Arbor"
    manager.append_message(user("  plan   three days\nin Lisbon  "))
    assert window_title(manager) == "plan three days in Lisbon — Arbor"
    manager.append_session_info("Trip")
    assert session_title(manager) == "Trip"
    long = SessionManager.in_memory("/w")
    long.append_message(user("x" * 500))
    assert len(session_title(long)) == 80 and session_title(long).endswith("…")


def test_pi_search_stays_pi_s_and_everything_adds_tool_results_and_summaries(tmp_path: Path) -> None:
    root = tmp_path / "root"
    path = make_session(root, "/w", ["look around"], tool_text="ocelot in the output")
    manager = SessionManager.open(path)
    manager.append_compaction("summary mentions platypus", manager.get_entries()[0]["id"], 1000)
    manager.close()
    catalog = SessionCatalog(root)
    assert catalog.search("ocelot") == []  # pi's rule: user and assistant text only
    assert [i.path for i in catalog.search("ocelot", everything=True)] == [path]
    assert [i.path for i in catalog.search("platypus", everything=True)] == [path]
    assert catalog.search("look", everything=True)[0].all_messages_text.startswith("look around")
