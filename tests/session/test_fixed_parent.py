"""``append_message(..., parent_id=...)``: the entry goes exactly where the caller says.

The agent builds a request at one leaf and appends the reply later; meanwhile another writer may
have appended. The reply must stay under its request, and the other writer's lines must still
reach the in-memory tree (issue 13 item 2, contracts.md "Appending under a fixed parent").
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from desktop_app.session import ExternalAppend, SessionEvent, SessionManager
from desktop_app.session.entries import serialize_line

from .helpers import assistant, user


def _ids_on_disk(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_in_memory_parent_is_the_given_id_and_the_leaf_moves_to_the_new_entry() -> None:
    m = SessionManager.in_memory("/p")
    a = m.append_message(user("a"))
    b = m.append_message(user("b"))
    reply = m.append_message(assistant("to a"), parent_id=a)
    assert m.get_entry(reply)["parentId"] == a and m.leaf_id == reply
    root = m.append_message(user("new root"), parent_id=None)
    assert m.get_entry(root)["parentId"] is None
    assert [e["id"] for e in m.get_children(a)] == [b, reply]


def test_other_arbor_appended_meanwhile_parent_stays_and_their_entry_is_read(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    request = m.append_message(user("question"))
    path = Path(m.session_file or "")
    other = SessionManager.open(path)
    theirs = other.append_message(user("someone else"))  # under our request, on our branch
    events: list[SessionEvent] = []
    m.subscribe(events.append)
    reply = m.append_message(assistant("answer"), parent_id=request)
    assert m.get_entry(reply)["parentId"] == request
    assert m.get_entry(theirs) is not None and m.get_entry(theirs)["parentId"] == request
    assert isinstance(events[0], ExternalAppend) and events[0].entries[0]["id"] == theirs
    assert m.leaf_id == reply
    assert _ids_on_disk(path) == [request, theirs, reply]
    reopened = SessionManager.open(path)
    assert reopened.get_entry(reply)["parentId"] == request


def test_pi_style_writer_appended_meanwhile(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    request = m.append_message(user("question"))
    path = Path(m.session_file or "")
    external = {"type": "message", "id": "pi000001", "parentId": request,
                "timestamp": "2026-01-01T00:00:00.000Z", "message": user("from pi")}
    with open(path, "a", encoding="utf-8") as fh:  # pi's appendFileSync: no lock
        fh.write(serialize_line(external))
    reply = m.append_message(assistant("answer"), parent_id=request)
    assert m.get_entry(reply)["parentId"] == request
    assert m.get_entry("pi000001") == external
    assert _ids_on_disk(path) == [request, "pi000001", reply]


def test_second_process_appended_meanwhile(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    request = m.append_message(user("question"))
    path = Path(m.session_file or "")
    script = textwrap.dedent(
        """
        import sys
        from desktop_app.session import SessionManager
        other = SessionManager.open(sys.argv[1])
        for n in range(5):
            print(other.append_message({"role": "user", "content": f"other {n}", "timestamp": 1}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    theirs = done.stdout.split()
    reply = m.append_message(assistant("answer"), parent_id=request)
    assert m.get_entry(reply)["parentId"] == request
    assert all(m.get_entry(i) is not None for i in theirs) and len(theirs) == 5
    assert _ids_on_disk(path) == [request, *theirs, reply]
