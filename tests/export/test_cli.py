"""``arbor export`` from the command line, in-process: what it writes and how it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.cli import main
from tests.export.test_page import LAST_WORDS, _session


def test_export_writes_the_page_and_the_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = _session(tmp_path)
    assert main(["export", str(session), "--html", str(tmp_path / "o.html"), "--markdown", str(tmp_path / "o.md")]) == 0
    said = capsys.readouterr()
    assert f"wrote {tmp_path / 'o.html'}" in said.out and "1 compactions" in said.out and said.err == ""
    assert LAST_WORDS in (tmp_path / "o.html").read_text() and LAST_WORDS in (tmp_path / "o.md").read_text()
    assert session.read_text().count("\n") == 12  # the session file is never written
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    umask = os.umask(0o022)
    os.umask(umask)
    assert (tmp_path / "o.html").stat().st_mode & 0o777 == 0o666 & ~umask  # the usual permissions, not 0600


def test_export_refuses_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = _session(tmp_path)
    cases = [
        (["export", str(session)], "say what to write: --html OUT.html and/or --markdown OUT.md"),
        (["export", str(tmp_path / "none.jsonl"), "--html", str(tmp_path / "o.html")], "no such session file"),
        (["export", str(tmp_path), "--html", str(tmp_path / "o.html")], "is a directory, not a session file"),
        (["export", str(session), "--html", str(tmp_path / "no" / "o.html")], f"no such folder {tmp_path / 'no'}"),
        (["export", str(session), "--markdown", str(tmp_path)], "is a folder; give a file name"),
    ]
    for argv, words in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("arbor export: ") and words in err and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "o.html").exists()


def test_export_never_writes_over_the_session_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The session file (by its name, a symbolic link to it or a hard link) is never an output, and
    one output is not named twice (the Markdown would replace the page)."""
    session = _session(tmp_path)
    before = session.read_bytes()
    (tmp_path / "link.jsonl").symlink_to(session)
    os.link(session, tmp_path / "hard.jsonl")
    for out in (session, tmp_path / "link.jsonl", tmp_path / "hard.jsonl"):
        for flag in ("--html", "--markdown"):
            assert main(["export", str(session), flag, str(out)]) == 2
            err = capsys.readouterr().err
            assert "is the session file itself" in err and "Traceback" not in err, (out, flag, err)
    assert session.read_bytes() == before
    twice = tmp_path / "o.html"
    assert main(["export", str(session), "--html", str(twice), "--markdown", str(twice)]) == 2
    assert "the same file twice" in capsys.readouterr().err and not twice.exists()


def test_a_claude_code_transcript_exports_as_the_window_shows_it(tmp_path: Path) -> None:
    """Export… is offered on a Claude Code transcript the window shows: the page holds its
    conversation (read as the window reads it), not an empty session; the transcript is untouched."""
    from desktop_app.export import export_file
    from desktop_app.transcripts import open_transcript

    source = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code" / "basic.jsonl"
    before = source.read_bytes()
    shown = open_transcript(source)
    report = export_file(str(source), str(tmp_path / "cc.html"), str(tmp_path / "cc.md"))
    assert report.facts is not None and report.facts.entries == len(shown.get_entries()) > 0
    first = next(e for e in shown.get_entries() if e["type"] == "message" and e["message"]["role"] == "user")
    words = first["message"]["content"] if isinstance(first["message"]["content"], str) else first["message"]["content"][0]["text"]
    assert words.split("\n")[0][:40] in (tmp_path / "cc.md").read_text()
    assert source.read_bytes() == before


def test_a_claude_code_compaction_is_audited_as_the_window_audits_it(tmp_path: Path) -> None:
    """A Claude Code boundary keeps nothing from before it: the page says so in the audit panel's own
    words (it used the pi-only flag and called the first kept entry "not on this path", a broken cut)."""
    from desktop_app.export import export_file

    source = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code" / "compacted.jsonl"
    export_file(str(source), str(tmp_path / "cc.html"), None)
    page = (tmp_path / "cc.html").read_text()
    assert "Claude Code: nothing before its boundary is sent again" in page
    assert "is not on this path" not in page
