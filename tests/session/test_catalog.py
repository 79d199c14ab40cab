"""Session listings (pi-spec §1.3, §3.9, §6.5): SessionInfo field rules, list/list_all/search,
``--continue``'s choice with its 512-byte quirk, and the stat-validated cache.

Expected values for the conformance fixtures were produced by pi 0.73.1's own ``SessionManager.list``
(see ``test_matches_pi_oracle``, which re-checks everything when pi is available).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import catalog as catalog_mod
from desktop_app.session.catalog import (
    NO_MESSAGES,
    SessionCatalog,
    SessionInfo,
    filter_sessions,
    is_resumable_session_file,
    read_session_info,
    session_info_from_text,
)
from desktop_app.session.paths import encode_cwd

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"

HEADER_TS = "2025-03-01T10:00:00.000Z"
HEADER_MS = 1740823200000
_MISSING: Any = object()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may touch the real home directory."""
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path / "arbor-home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


# ----------------------------------------------------------------------------------------- builders


def header(sid: str = "sess-1", ts: Any = HEADER_TS, cwd: Any = "/w/proj", **extra: Any) -> dict[str, Any]:
    h: dict[str, Any] = {"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": cwd}
    if cwd is _MISSING:
        del h["cwd"]
    if ts is _MISSING:
        del h["timestamp"]
    h.update(extra)
    return h


def msg(
    eid: str,
    parent: str | None,
    role: str,
    text: str | None = None,
    *,
    ts: str = "2025-03-01T10:00:05.000Z",
    msg_ts: Any = _MISSING,
    content: Any = _MISSING,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role}
    if content is not _MISSING:
        message["content"] = content
    elif text is not None:
        message["content"] = [{"type": "text", "text": text}]
    if msg_ts is not _MISSING:
        message["timestamp"] = msg_ts
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": message}


def info_entry(eid: str, parent: str | None, name: Any) -> dict[str, Any]:
    return {
        "type": "session_info",
        "id": eid,
        "parentId": parent,
        "timestamp": "2025-03-01T11:00:00.000Z",
        "name": name,
    }


def write(path: Path, *objs: Any) -> Path:
    """One line per object; a ``str`` is written verbatim (malformed lines, raw headers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        o if isinstance(o, str) else json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in objs
    ]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def session(path: Path, sid: str, modified_ms: int, *, cwd: str = "/w/proj", text: str = "hello") -> Path:
    """A small valid session whose ``modified`` is ``modified_ms``."""
    return write(
        path,
        header(sid, cwd=cwd),
        msg("u1", None, "user", text, msg_ts=modified_ms - 1000),
        msg("a1", "u1", "assistant", f"answer to {text}", msg_ts=modified_ms),
    )


def fixture(name: str, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / f"{name}.jsonl", dest)
    return dest


def info_of(path: Path) -> SessionInfo:
    info = read_session_info(path)
    assert info is not None, path
    return info


def project_dir(root: Path, cwd: str) -> Path:
    return root / encode_cwd(cwd)


# =========================================================================== SessionInfo fields


def test_conformance_fixture_fields_are_pis(tmp_path: Path) -> None:
    info = info_of(fixture("gen-0001", tmp_path / "a.jsonl"))
    assert info.path == tmp_path / "a.jsonl"
    assert info.id == "019a1b8d-dc4d-7146-ac19-ba82ed87425f"
    assert info.cwd == "/home/dev/code/cli-tool-fork"
    assert info.name == "Build Cursor field"
    assert info.parent_session_path == (
        "/tmp/pi-oracle-gen/conformance-1/2025-10-25T13-07-43-972Z_db966550-0451-4d1b-9c5e-02248173aa75.jsonl"
    )
    assert info.created == 1761398873165
    assert info.modified == 1761399819630
    assert info.message_count == 82
    assert info.first_message.startswith(
        "look at examples/compaction-server.md and AGENTS.md, then rebase event"
    )
    assert len(info.all_messages_text) == 7101
    assert info.title == "Build Cursor field"

    unicode = info_of(fixture("unicode-text", tmp_path / "u.jsonl"))
    assert unicode.name == "セッション 🎌"
    assert unicode.cwd == "/home/ユーザー/プロジェクト"
    assert unicode.first_message == "日本語で説明してください 🚀 — café naïve"
    assert (unicode.message_count, unicode.modified) == (16, 1740823252000)

    big = info_of(fixture("before-compaction", tmp_path / "b.jsonl"))
    # The header is younger than every message here: modified < created is pi's answer too.
    assert (big.created, big.modified, big.message_count) == (1765241609825, 1765240959594, 990)
    assert big.name is None and big.title == big.first_message


def test_name_last_session_info_wins_even_when_empty(tmp_path: Path) -> None:
    named = write(
        tmp_path / "named.jsonl",
        header(),
        info_entry("i1", None, "First"),
        msg("u1", "i1", "user", "hi", msg_ts=HEADER_MS + 1),
        info_entry("i2", "u1", "  Second  "),
    )
    assert info_of(named).name == "Second"

    cleared = write(
        tmp_path / "cleared.jsonl",
        header(),
        info_entry("i1", None, "Named once"),
        msg("u1", "i1", "user", "hi", msg_ts=HEADER_MS + 1),
        info_entry("i2", "u1", "   "),
    )
    assert info_of(cleared).name is None  # pi 0.73.1: an empty last name clears (0.58.3 kept "Named once")
    assert info_of(cleared).title == "hi"

    renamed_after_clear = write(
        tmp_path / "again.jsonl", header(), info_entry("i1", None, ""), info_entry("i2", "i1", "Back")
    )
    assert info_of(renamed_after_clear).name == "Back"


def test_name_is_trimmed_like_javascript_and_odd_names_clear(tmp_path: Path) -> None:
    # JS trim() strips the BOM and U+3000; Python's str.strip() would keep the BOM.
    js_ws = write(tmp_path / "ws.jsonl", header(), info_entry("i1", None, "\ufeff\u3000Spaced\u00a0\n"))
    assert info_of(js_ws).name == "Spaced"
    # pi throws on a non-string name and drops the whole file; Arbor lists it, unnamed.
    odd = write(tmp_path / "odd.jsonl", header(), info_entry("i1", None, "Kept?"), info_entry("i2", "i1", 42))
    assert info_of(odd).name is None
    missing = write(
        tmp_path / "none.jsonl", header(), info_entry("i1", None, "X"), info_entry("i2", "i1", None)
    )
    assert info_of(missing).name is None


def test_modified_is_max_numeric_message_timestamp_of_user_and_assistant(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        # numeric message.timestamp wins over the entry's ISO time, whatever the entry says
        msg("u1", None, "user", "q", ts="2030-01-01T00:00:00.000Z", msg_ts=HEADER_MS + 5_000),
        msg("a1", "u1", "assistant", "a", ts="2020-01-01T00:00:00.000Z", msg_ts=HEADER_MS + 9_000),
        # other roles and other entry types never count, however late they are
        msg("t1", "a1", "toolResult", "out", ts="2031-01-01T00:00:00.000Z", msg_ts=HEADER_MS + 99_000_000),
        msg("c1", "t1", "custom", "ext", ts="2031-01-01T00:00:00.000Z", msg_ts=HEADER_MS + 99_000_000),
        info_entry("i1", "c1", "late"),
        {
            "type": "label",
            "id": "l1",
            "parentId": "i1",
            "timestamp": "2032-01-01T00:00:00.000Z",
            "targetId": "u1",
        },
    )
    assert info_of(path).modified == HEADER_MS + 9_000


def test_modified_uses_entry_timestamp_when_message_timestamp_is_missing_or_not_a_number(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("u1", None, "user", "q", ts="2025-03-01T10:00:30.000Z", msg_ts=HEADER_MS + 1_000),
        msg("a1", "u1", "assistant", "a", ts="2025-03-01T10:01:00.000Z"),  # no message.timestamp
        # a string message.timestamp is not a number: the entry's time is used, not the string
        msg("u2", "a1", "user", "q2", ts="2025-03-01T10:00:45.000Z", msg_ts="2099-01-01T00:00:00.000Z"),
    )
    assert info_of(path).modified == HEADER_MS + 60_000
    # float timestamps are truncated like new Date(x); booleans are not numbers
    floats = write(tmp_path / "f.jsonl", header(), msg("u1", None, "user", "q", msg_ts=HEADER_MS + 1234.9))
    assert info_of(floats).modified == HEADER_MS + 1234
    boolean = write(
        tmp_path / "b.jsonl",
        header(),
        msg("u1", None, "user", "q", ts="2025-03-01T10:00:07.000Z", msg_ts=True),
    )
    assert info_of(boolean).modified == HEADER_MS + 7_000


def test_modified_falls_back_to_header_then_file_mtime(tmp_path: Path) -> None:
    header_only = info_of(fixture("edge-header-only", tmp_path / "h.jsonl"))
    assert header_only.modified == header_only.created == HEADER_MS
    assert (header_only.message_count, header_only.first_message, header_only.all_messages_text) == (
        0,
        NO_MESSAGES,
        "",
    )

    # Only non-positive activity (pi: Math.max(0, t) and then "> 0") also falls back to the header.
    epoch = write(tmp_path / "e.jsonl", header(), msg("u1", None, "user", "q", msg_ts=0))
    assert info_of(epoch).modified == HEADER_MS
    # Messages of other roles do not count as activity either.
    tools_only = write(
        tmp_path / "t.jsonl", header(), msg("t1", None, "toolResult", "x", msg_ts=HEADER_MS + 5)
    )
    assert info_of(tools_only).modified == HEADER_MS

    bad_header = write(tmp_path / "bad.jsonl", header(ts="not a date"))
    os.utime(bad_header, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    info = info_of(bad_header)
    assert info.created is None  # pi: Invalid Date
    assert info.modified == 1_700_000_000_123
    no_ts = write(tmp_path / "nots.jsonl", header(ts=_MISSING))
    os.utime(no_ts, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    assert (info_of(no_ts).created, info_of(no_ts).modified) == (None, 1_600_000_000_000)


def test_message_count_counts_every_message_entry_on_every_branch(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("u1", None, "user", "root"),
        msg("a1", "u1", "assistant", "branch one"),
        msg("a2", "u1", "assistant", "branch two"),  # sibling branch
        msg("t1", "a2", "toolResult", "tool output"),
        msg("c1", "t1", "custom", "extension"),
        msg("x1", "c1", "bashExecution", None),  # no content at all
        {
            "type": "message",
            "id": "n1",
            "parentId": "x1",
            "timestamp": HEADER_TS,
        },  # no message: still counted
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "n1",
            "timestamp": HEADER_TS,
            "summary": "s",
            "tokensBefore": 1,
        },
        {
            "type": "custom_message",
            "id": "m1",
            "parentId": "k1",
            "timestamp": HEADER_TS,
            "customType": "x",
            "content": "not counted",
            "display": True,
        },
        "{not json",  # malformed lines are skipped
    )
    info = info_of(path)
    assert info.message_count == 7
    assert info.all_messages_text == "root branch one branch two"  # user + assistant text only


def test_first_message_and_all_messages_text(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        msg("a0", None, "assistant", "assistant speaks first"),
        msg("u1", "a0", "user", None, content=[{"type": "image", "data": "AAAA", "mimeType": "image/png"}]),
        msg(
            "u2",
            "u1",
            "user",
            None,
            content=[
                {"type": "text", "text": "two"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "blocks"},
            ],
        ),
        msg(
            "a2",
            "u2",
            "assistant",
            None,
            content=[
                {"type": "thinking", "thinking": "hidden"},
                {"type": "text", "text": "visible"},
                {"type": "toolCall", "id": "c", "name": "read", "arguments": {}},
            ],
        ),
        msg("u3", "a2", "user", None, content="plain string content"),
        msg("t3", "u3", "toolResult", "tool text is not searched"),
    )
    info = info_of(path)
    # The first *user* message that has text: image-only messages are skipped.
    assert info.first_message == "two blocks"
    assert info.all_messages_text == "assistant speaks first two blocks visible plain string content"

    only_assistant = write(tmp_path / "a.jsonl", header(), msg("a1", None, "assistant", "hi"))
    assert info_of(only_assistant).first_message == NO_MESSAGES


def test_header_fields_cwd_and_parent(tmp_path: Path) -> None:
    no_cwd = info_of(write(tmp_path / "a.jsonl", header(cwd=_MISSING)))
    assert no_cwd.cwd == "" and no_cwd.parent_session_path is None
    odd_cwd = info_of(write(tmp_path / "b.jsonl", header(cwd=42)))
    assert odd_cwd.cwd == ""
    forked = info_of(write(tmp_path / "c.jsonl", header(parentSession="/x/parent.jsonl")))
    assert forked.parent_session_path == "/x/parent.jsonl"


def test_files_without_a_valid_first_header_are_not_sessions(tmp_path: Path) -> None:
    assert read_session_info(fixture("edge-no-header", tmp_path / "nohdr.jsonl")) is None
    assert read_session_info(fixture("edge-empty-file", tmp_path / "empty.jsonl")) is None
    assert read_session_info(write(tmp_path / "blank.jsonl", "   ", "")) is None
    assert read_session_info(write(tmp_path / "garbage.jsonl", "{nope", "[1,")) is None
    assert read_session_info(write(tmp_path / "null-first.jsonl", "null", header())) is None
    no_id = header()
    del no_id["id"]
    assert read_session_info(write(tmp_path / "noid.jsonl", no_id)) is None
    assert read_session_info(write(tmp_path / "numid.jsonl", header(sid=7))) is None  # type: ignore[arg-type]
    # A malformed line *before* the header is dropped by the parser, so the header is still first.
    assert info_of(write(tmp_path / "late.jsonl", "{torn", header("ok"))).id == "ok"


def test_unreadable_paths_give_none(tmp_path: Path) -> None:
    assert read_session_info(tmp_path / "missing.jsonl") is None
    (tmp_path / "dir.jsonl").mkdir()
    assert read_session_info(tmp_path / "dir.jsonl") is None
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert read_session_info(fifo) is None  # must not block on open()


def test_v1_file_is_listed_with_migrated_content_and_left_untouched(tmp_path: Path) -> None:
    path = fixture("mig-v1-basic", project_dir(tmp_path, "/home/dev/code/webapp") / "v1.jsonl")
    before = path.read_bytes()
    stat_before = path.stat()
    [info] = SessionCatalog(tmp_path).list("/home/dev/code/webapp")
    assert info.id == "6c1f0a2e-5d4b-4a3c-9e8f-7a6b5c4d3e2f"
    assert (info.message_count, info.modified, info.created) == (17, 1740823300000, HEADER_MS)
    assert info.first_message == "read src/index.ts and tell me what it exports"
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat_before.st_mtime_ns
    assert sorted(p.name for p in path.parent.iterdir()) == ["v1.jsonl"]  # no backup, no temp file

    v2 = info_of(fixture("mig-v2-hookmessage", tmp_path / "v2.jsonl"))
    assert (v2.message_count, v2.first_message) == (18, "set up the project")


def test_odd_but_readable_files_are_listed(tmp_path: Path) -> None:
    bom = info_of(fixture("edge-bom-crlf", tmp_path / "bom.jsonl"))
    assert bom.id == "b0b0b0b0-0000-4000-8000-000000000001"
    assert bom.first_message == "windows line endings"
    # pi's listing throws on a `null` line and drops the file; Arbor skips the line and lists it.
    null_line = info_of(fixture("edge-null-line", tmp_path / "null.jsonl"))
    assert null_line.all_messages_text.startswith("before null after null")
    non_object_message = write(
        tmp_path / "odd.jsonl", header(), {"type": "message", "id": "x", "parentId": None, "message": "str"}
    )
    assert info_of(non_object_message).message_count == 1


def test_session_info_from_text_is_pure() -> None:
    text = json.dumps(header("pure")) + "\n"
    info = session_info_from_text(Path("/nowhere/x.jsonl"), text, mtime_ms=5)
    assert info is not None and info.path == Path("/nowhere/x.jsonl") and info.modified == HEADER_MS


# =========================================================================== listings


def test_list_reads_one_directory_newest_first(tmp_path: Path) -> None:
    here = project_dir(tmp_path, "/w/proj")
    session(here / "old.jsonl", "old", HEADER_MS + 1_000)
    session(here / "new.jsonl", "new", HEADER_MS + 3_000)
    session(here / "mid.jsonl", "mid", HEADER_MS + 2_000)
    write(here / "broken.jsonl", "{not a session")
    (here / "notes.txt").write_text("not a session file")
    session(here / "nested" / "deeper.jsonl", "deeper", HEADER_MS + 9_000)  # one directory only
    session(project_dir(tmp_path, "/w/other") / "x.jsonl", "elsewhere", HEADER_MS + 9_000)

    catalog = SessionCatalog(tmp_path)
    assert [i.id for i in catalog.list("/w/proj")] == ["new", "mid", "old"]

    flat = tmp_path / "flat-dir"
    session(flat / "f.jsonl", "flat", HEADER_MS)
    assert [i.id for i in catalog.list("/ignored", flat)] == ["flat"]
    assert [i.id for i in catalog.list("/ignored", str(flat))] == ["flat"]


def test_list_of_missing_directory_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    catalog = SessionCatalog(tmp_path / "root")
    assert catalog.list("/w/proj") == []
    assert catalog.list_all() == []
    assert catalog.search("x") == []
    assert catalog.most_recent("/w/proj") is None
    assert not (tmp_path / "root").exists()


def test_list_all_covers_immediate_subdirectories_only(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    session(project_dir(root, "/a") / "1.jsonl", "a1", HEADER_MS + 1_000)
    session(project_dir(root, "/b") / "1.jsonl", "b1", HEADER_MS + 3_000)
    session(project_dir(root, "/a") / "2.jsonl", "a2", HEADER_MS + 2_000)
    session(root / "loose.jsonl", "loose", HEADER_MS + 9_000)  # directly in the root: not listed
    session(project_dir(root, "/a") / "sub" / "deep.jsonl", "deep", HEADER_MS + 9_000)  # too deep
    outside = tmp_path / "outside"
    session(outside / "linked.jsonl", "linked", HEADER_MS + 9_000)
    (root / "--linked--").symlink_to(outside, target_is_directory=True)  # pi's isDirectory(): false

    assert [i.id for i in SessionCatalog(root).list_all()] == ["b1", "a2", "a1"]


def test_roots_come_from_the_environment(tmp_path: Path) -> None:
    assert SessionCatalog.arbor().root == tmp_path / "arbor-home" / "sessions"
    assert SessionCatalog.pi().root == tmp_path / "pi-agent" / "sessions"
    session(project_dir(tmp_path / "pi-agent" / "sessions", "/w/proj") / "s.jsonl", "pi-one", HEADER_MS)
    assert [i.id for i in SessionCatalog.pi().list("/w/proj")] == ["pi-one"]
    assert SessionCatalog.arbor().list_all() == []


def test_search_matches_every_term_case_insensitively_across_fields(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    write(
        project_dir(root, "/w/alpha") / "1.jsonl",
        header("id-AAA", cwd="/w/alpha"),
        info_entry("i0", None, "Refactor Parser"),
        msg("u1", "i0", "user", "please fix the tokenizer", msg_ts=HEADER_MS + 3_000),
        msg("a1", "u1", "assistant", "Done: Tokenizer FIXED", msg_ts=HEADER_MS + 4_000),
    )
    write(
        project_dir(root, "/w/beta") / "2.jsonl",
        header("id-BBB", cwd="/w/beta"),
        msg("u1", None, "user", "write the docs", msg_ts=HEADER_MS + 5_000),
        msg("t1", "u1", "toolResult", "tokenizer mentioned only in a tool result"),
    )
    catalog = SessionCatalog(root)

    def ids(query: str) -> list[str]:
        return [i.id for i in catalog.search(query)]

    assert ids("") == ["id-BBB", "id-AAA"]  # newest first
    assert ids("   ") == ["id-BBB", "id-AAA"]
    assert ids("TOKENIZER") == ["id-AAA"]  # tool results are not searched
    assert ids("parser tokenizer") == ["id-AAA"]  # name + text
    assert ids("parser docs") == []  # every term must match in one session
    assert ids("/w/beta") == ["id-BBB"]  # cwd
    assert ids("id-aaa") == ["id-AAA"]  # id
    assert ids("w") == ["id-BBB", "id-AAA"]
    assert ids("parser\nplease") == ["id-AAA"]
    assert ids("parserplease") == []  # no match across field boundaries
    assert ids("alphaid") == []

    # A change on disk is searched on the next query.
    write(
        project_dir(root, "/w/beta") / "2.jsonl",
        header("id-BBB", cwd="/w/beta"),
        msg("u1", None, "user", "now about the parser", msg_ts=HEADER_MS + 5_000),
    )
    assert ids("parser") == ["id-BBB", "id-AAA"]

    infos = catalog.list_all()
    assert [i.id for i in filter_sessions(infos, "NOW parser")] == ["id-BBB"]
    assert filter_sessions(infos, "") == infos


# =========================================================================== most_recent (--continue)


def _set_mtime(path: Path, seconds: int) -> None:
    os.utime(path, (seconds, seconds))


def test_most_recent_uses_filesystem_mtime_not_modified(tmp_path: Path) -> None:
    here = project_dir(tmp_path, "/w/proj")
    chatty = session(here / "chatty.jsonl", "chatty", HEADER_MS + 99_000_000)  # newest `modified`
    touched = session(here / "touched.jsonl", "touched", HEADER_MS)
    write(here / "invalid.jsonl", msg("u1", None, "user", "no header"))
    _set_mtime(chatty, 1_000)
    _set_mtime(touched, 2_000)
    _set_mtime(here / "invalid.jsonl", 3_000)
    catalog = SessionCatalog(tmp_path)
    assert catalog.list("/w/proj")[0].id == "chatty"
    assert catalog.most_recent("/w/proj") == here / "touched.jsonl"
    assert catalog.most_recent("/ignored", here) == here / "touched.jsonl"
    assert catalog.most_recent("/w/none") is None


def _header_line_of_length(n: int) -> str:
    base = json.dumps(header("long", parentSession=""), separators=(",", ":"))
    line = base.replace('"parentSession":""', '"parentSession":"' + "p" * (n - len(base)) + '"')
    assert len(line.encode()) == n
    return line


def test_most_recent_skips_headers_longer_than_512_bytes(tmp_path: Path) -> None:
    here = project_dir(tmp_path, "/w/proj")
    fits = write(here / "fits.jsonl", _header_line_of_length(512), msg("u1", None, "user", "a"))
    too_long = write(here / "long.jsonl", _header_line_of_length(513), msg("u1", None, "user", "b"))
    assert is_resumable_session_file(fits)  # the whole line is inside the 512 bytes (newline is byte 513)
    assert not is_resumable_session_file(too_long)
    _set_mtime(fits, 1_000)
    _set_mtime(too_long, 2_000)
    catalog = SessionCatalog(tmp_path)
    assert catalog.most_recent("/w/proj") == fits  # the newer file is invisible to --continue ...
    assert {i.path.name for i in catalog.list("/w/proj")} == {"fits.jsonl", "long.jsonl"}  # ... not to lists
    too_long.unlink()
    assert catalog.most_recent("/w/proj") == fits


def test_resumable_probe_quirks(tmp_path: Path) -> None:
    # A BOM makes JSON.parse fail on the raw first line, although the full reader (trim) accepts it.
    bom = fixture("edge-bom-crlf", tmp_path / "bom.jsonl")
    assert not is_resumable_session_file(bom) and read_session_info(bom) is not None
    # CRLF is fine: "\r" is JSON whitespace.
    assert is_resumable_session_file(write(tmp_path / "crlf.jsonl", json.dumps(header()) + "\r"))
    # Blank first line, malformed first line, or a header without a string id: not resumable, and
    # no fallback to a later line (unlike the full reader).
    assert not is_resumable_session_file(write(tmp_path / "blank.jsonl", "", json.dumps(header())))
    assert not is_resumable_session_file(write(tmp_path / "torn.jsonl", "{torn", json.dumps(header())))
    assert not is_resumable_session_file(write(tmp_path / "num.jsonl", header(sid=1)))  # type: ignore[arg-type]
    assert not is_resumable_session_file(write(tmp_path / "null.jsonl", "null"))
    assert not is_resumable_session_file(tmp_path / "missing.jsonl")
    assert is_resumable_session_file(fixture("edge-header-only", tmp_path / "h.jsonl"))


# =========================================================================== the cache


def _populate(root: Path, count: int = 5) -> list[Path]:
    return [
        session(
            project_dir(root, f"/w/p{i % 2}") / f"{i}.jsonl", f"s{i}", HEADER_MS + i * 1_000, text=f"t{i}"
        )
        for i in range(count)
    ]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path the catalog reads, in order."""
    seen: list[Path] = []
    original = catalog_mod._read_text

    def recording(path: Path) -> str:
        seen.append(path)
        return original(path)

    monkeypatch.setattr(catalog_mod, "_read_text", recording)
    return seen


def test_first_listing_reads_every_file_and_later_ones_none(tmp_path: Path, reads: list[Path]) -> None:
    files = _populate(tmp_path)
    catalog = SessionCatalog(tmp_path)
    first = catalog.list_all()
    assert sorted(reads) == sorted(files)
    assert (catalog.stats.files_read, catalog.stats.cache_hits) == (5, 0)
    reads.clear()
    again = catalog.list_all()
    assert reads == [] and again == first
    assert (catalog.stats.files_read, catalog.stats.cache_hits, catalog.stats.listings) == (5, 5, 2)


def test_changed_file_is_reread_exactly(tmp_path: Path, reads: list[Path]) -> None:
    files = _populate(tmp_path)
    catalog = SessionCatalog(tmp_path)
    catalog.list_all()
    reads.clear()
    with files[2].open("a", encoding="utf-8") as fh:  # an append, as pi and Arbor write
        fh.write(json.dumps(msg("u9", "a1", "user", "appended", msg_ts=HEADER_MS + 50_000)) + "\n")
    infos = catalog.list_all()
    assert reads == [files[2]]
    assert infos[0].id == "s2" and infos[0].message_count == 3 and infos[0].modified == HEADER_MS + 50_000
    assert catalog.stats.files_read == 6


def test_same_size_rewrite_and_atomic_replace_are_noticed(tmp_path: Path, reads: list[Path]) -> None:
    files = _populate(tmp_path, 3)
    catalog = SessionCatalog(tmp_path)
    catalog.list_all()

    # Same size, new content, new mtime.
    reads.clear()
    before = files[0].stat()
    files[0].write_text(files[0].read_text().replace("t0", "T0"))
    os.utime(files[0], ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert files[0].stat().st_size == before.st_size
    assert "answer to T0" in next(i for i in catalog.list_all() if i.id == "s0").all_messages_text
    assert reads == [files[0]]

    # Same size *and* same mtime, but a new file renamed over the old one: the inode tells.
    reads.clear()
    before = files[1].stat()
    replacement = files[1].with_name(".tmp")
    replacement.write_text(files[1].read_text().replace("t1", "X1"))
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, files[1])
    assert "X1" in next(i for i in catalog.list_all() if i.id == "s1").first_message
    assert reads == [files[1]]


def test_deleted_files_drop_and_new_files_appear(tmp_path: Path, reads: list[Path]) -> None:
    files = _populate(tmp_path)
    catalog = SessionCatalog(tmp_path)
    catalog.list_all()
    reads.clear()
    files[4].unlink()
    assert [i.id for i in catalog.list_all()] == ["s3", "s2", "s1", "s0"]
    assert reads == [] and catalog.stats.files_dropped == 1

    added = session(project_dir(tmp_path, "/w/new") / "n.jsonl", "added", HEADER_MS + 99_000)
    assert [i.id for i in catalog.list_all()][0] == "added"
    assert reads == [added]

    reads.clear()
    shutil.rmtree(project_dir(tmp_path, "/w/p1"))  # a whole project folder goes away
    assert [i.id for i in catalog.list_all()] == ["added", "s2", "s0"]
    assert reads == [] and catalog.stats.files_dropped == 3


def test_files_that_are_not_sessions_are_cached_too(tmp_path: Path, reads: list[Path]) -> None:
    here = project_dir(tmp_path, "/w/proj")
    write(here / "junk.jsonl", "{junk")
    catalog = SessionCatalog(tmp_path)
    assert catalog.list("/w/proj") == []
    assert catalog.list("/w/proj") == []
    assert reads == [here / "junk.jsonl"]
    # ... until they become one.
    session(here / "junk.jsonl", "fixed", HEADER_MS)
    assert [i.id for i in catalog.list("/w/proj")] == ["fixed"]


def test_list_and_list_all_share_the_cache(tmp_path: Path, reads: list[Path]) -> None:
    files = _populate(tmp_path, 4)
    catalog = SessionCatalog(tmp_path)
    assert [i.id for i in catalog.list("/w/p0")] == ["s2", "s0"]
    assert sorted(reads) == sorted([files[0], files[2]])
    reads.clear()
    catalog.list_all()
    assert sorted(reads) == sorted([files[1], files[3]])
    reads.clear()
    catalog.list("/w/p1")
    catalog.search("t1")
    assert reads == []
    catalog.clear()
    catalog.list("/w/p1")
    assert sorted(reads) == sorted([files[1], files[3]])


def test_progress_is_reported_for_the_files_read(tmp_path: Path) -> None:
    files = _populate(tmp_path, 3)
    catalog = SessionCatalog(tmp_path)
    calls: list[tuple[int, int]] = []
    catalog.list_all(progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    calls.clear()
    catalog.list_all(progress=lambda done, total: calls.append((done, total)))
    assert calls == []
    files[0].write_text(files[0].read_text() + "\n")
    catalog.search("t", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 1)]


def test_concurrent_listings_read_each_file_once(tmp_path: Path) -> None:
    _populate(tmp_path, 40)
    catalog = SessionCatalog(tmp_path)
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            results.append([i.id for i in catalog.list_all()])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 8 and all(r == results[0] for r in results) and len(results[0]) == 40
    assert catalog.stats.files_read == 40


# =========================================================================== pi as the oracle
