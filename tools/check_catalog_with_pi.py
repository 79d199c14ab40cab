"""Compare Arbor's session listing with pi's own, field by field (needs node and pi 0.73.1).

Not part of ``make test`` (CI has no node package of pi); run it by hand after changing the catalog:

    npm install --prefix /tmp/pi0731 @mariozechner/pi-coding-agent@0.73.1
    ARBOR_PI_PACKAGE=/tmp/pi0731/node_modules/@mariozechner/pi-coding-agent \
        .venv/bin/python tools/check_catalog_with_pi.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.session.catalog import SessionCatalog  # noqa: E402
from tests.session.test_catalog import (  # noqa: E402
    FIXTURES,
    HEADER_MS,
    _header_line_of_length,
    _set_mtime,
    fixture,
    header,
    info_entry,
    msg,
    write,
)

_ORACLE = """
const [pkg, dir] = process.argv.slice(1);
const sm = await import(pkg + "/dist/core/session-manager.js");
const list = await sm.SessionManager.list("/unused", dir);
const rows = list.map((i) => ({
  path: i.path, id: i.id, cwd: i.cwd, name: i.name ?? null, parent_session_path: i.parentSessionPath ?? null,
  created: Number.isNaN(i.created.getTime()) ? null : i.created.getTime(), modified: i.modified.getTime(),
  message_count: i.messageCount, first_message: i.firstMessage, all_messages_text: i.allMessagesText,
}));
process.stdout.write(JSON.stringify({ rows, recent: sm.findMostRecentSession(dir) }));
"""


def check_against_pi(tmp_path: Path) -> None:
    """Every conformance fixture plus the odd files above, listed by pi and by Arbor, field by field."""
    directory = tmp_path / "all"
    for source in sorted(FIXTURES.glob("*.jsonl")):
        fixture(source.stem, directory / source.name)
    write(
        directory / "x-cleared.jsonl", header("c"), info_entry("i1", None, "A"), info_entry("i2", "i1", " ")
    )
    write(
        directory / "x-no-msg-ts.jsonl", header("t"), msg("u1", None, "user", "q", ts="2025-03-02T00:00:00Z")
    )
    write(directory / "x-epoch.jsonl", header("e"), msg("u1", None, "user", "q", msg_ts=0))
    write(directory / "x-float.jsonl", header("f"), msg("u1", None, "user", "q", msg_ts=HEADER_MS + 0.9))
    write(
        directory / "x-str-ts.jsonl", header("s"), msg("u1", None, "user", "q", msg_ts="2031-01-01T00:00:00Z")
    )
    write(directory / "x-js-trim.jsonl", header("j"), info_entry("i1", None, "\ufeff\u3000Name\u00a0"))
    write(
        directory / "x-images.jsonl",
        header("i"),
        msg("u1", None, "user", None, content=[{"type": "image"}]),
        msg("u2", "u1", "user", None, content="second"),
        msg("t", "u2", "toolResult", "tool"),
    )
    write(directory / "z-long.jsonl", _header_line_of_length(600))  # newest mtime, invisible to --continue
    for n, path in enumerate(sorted(directory.iterdir())):
        _set_mtime(path, 1_000_000 + n)
    out = subprocess.run(
        ["node", "--input-type=module", "-e", _ORACLE, os.environ["ARBOR_PI_PACKAGE"], str(directory)],
        capture_output=True,
        text=True,
        check=True,
    )
    oracle = json.loads(out.stdout)
    ours = {str(i.path): i for i in SessionCatalog(tmp_path).list("/unused", directory)}
    # Arbor deliberately also lists files pi's listing throws on (a `null` line).
    assert set(ours) - {row["path"] for row in oracle["rows"]} == {str(directory / "edge-null-line.jsonl")}
    for row in oracle["rows"]:
        info = ours[row["path"]]
        for field, value in row.items():
            mine = str(info.path) if field == "path" else getattr(info, field)
            assert mine == value, (row["path"], field)
    assert str(SessionCatalog(tmp_path).most_recent("/unused", directory)) == oracle["recent"]


if __name__ == "__main__":
    if not os.environ.get("ARBOR_PI_PACKAGE"):
        sys.exit("set ARBOR_PI_PACKAGE to an installed @mariozechner/pi-coding-agent 0.73.1 directory")
    with tempfile.TemporaryDirectory() as tmp:
        check_against_pi(Path(tmp))
    print("catalog matches pi")
