"""Soak test (not part of `make test`): two Arbor writers and a pi-style writer on one session file.

Two loops run `arbor ask` with the offline model against the same file (real processes), while a
third process appends pi-style whole lines (no lock, one write per line). After N seconds it checks:

* every line the pi-style writer wrote is in the file exactly once, and no line appears twice;
* every entry id is unique, and every file line is valid JSON (no torn or glued lines);
* every Arbor reply (assistant entry) is the child of its own request: its parent is the user
  message whose text it was asked with (the offline model answers the request it was given).

Usage: python tools/soak.py [--seconds 60] [--dir DIR]. Prints counts; exit 1 on any violation.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pi_writer(path: Path, stop: threading.Event, written: list[str]) -> None:
    n = 0
    while not stop.is_set():
        entry = {
            "type": "custom", "customType": "pi-soak", "data": {"n": n},
            "id": f"pisoak{n:06d}", "parentId": None, "timestamp": "2026-01-01T00:00:00.000Z",
        }
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        with open(path, "a", encoding="utf-8") as fh:  # appendFileSync: no lock, one write
            fh.write(line)
        written.append(entry["id"])
        n += 1
        time.sleep(0.01)


def _arbor_writer(path: Path, name: str, stop: threading.Event, asked: list[str], failures: list[str]) -> None:
    n = 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    while not stop.is_set():
        text = f"soak {name} request {n}"
        done = subprocess.run(
            [sys.executable, "-m", "desktop_app", "ask", text, "--session", str(path), "--model", "offline"],
            capture_output=True, text=True, env=env, timeout=120,
        )
        if done.returncode != 0:
            failures.append(f"{name} #{n}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
        asked.append(text)
        n += 1


def _text(message: dict[str, object]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--dir", help="where to put the session file (default: a temporary directory)")
    args = parser.parse_args()
    directory = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="arbor-soak-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "soak.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(  # the file exists (with its header) before the writers start
        [sys.executable, "-m", "desktop_app", "ask", "soak start", "--session", str(path), "--model", "offline"],
        capture_output=True, text=True, env=env, check=True, timeout=120,
    )
    stop = threading.Event()
    pi_written: list[str] = []
    asked: dict[str, list[str]] = {"A": [], "B": []}
    failures: list[str] = []
    threads = [threading.Thread(target=_pi_writer, args=(path, stop, pi_written))]
    threads += [threading.Thread(target=_arbor_writer, args=(path, n, stop, asked[n], failures)) for n in asked]
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    for t in threads:
        t.join()

    violations: list[str] = list(failures)
    raw = path.read_text(encoding="utf-8").splitlines()
    entries: list[dict[str, object]] = []
    for number, line in enumerate(raw, 1):
        try:
            entries.append(json.loads(line))
        except ValueError:
            violations.append(f"line {number} is not JSON (torn or glued): {line[:80]!r}")
    body = [e for e in entries if e.get("type") != "session"]
    ids = [str(e.get("id")) for e in body]
    duplicates = {i for i in ids if ids.count(i) > 1}
    violations += [f"id {i} appears more than once" for i in sorted(duplicates)]
    lines_seen = list(raw)
    if len(lines_seen) != len(set(lines_seen)):
        violations.append(f"{len(lines_seen) - len(set(lines_seen))} line(s) written twice")
    pi_in_file = [i for i in ids if i.startswith("pisoak")]
    missing = set(pi_written) - set(pi_in_file)
    violations += [f"pi-style line {i} missing" for i in sorted(missing)]
    by_id = {str(e.get("id")): e for e in body}
    replies = 0
    for entry in body:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        replies += 1
        parent = by_id.get(str(entry.get("parentId")))
        parent_message = parent.get("message") if parent else None
        if not isinstance(parent_message, dict) or parent_message.get("role") != "user":
            violations.append(f"reply {entry.get('id')} is not under a user request (parent {entry.get('parentId')})")
            continue
        request = _text(parent_message)
        if request not in _text(message):
            violations.append(f"reply {entry.get('id')} answers another request than its parent {parent.get('id')}")
    asked_total = sum(len(v) for v in asked.values()) + 1
    print(f"file: {path}")
    print(f"seconds: {args.seconds:g}")
    print(f"lines in file: {len(raw)} (entries {len(body)})")
    print(f"pi-style writer: {len(pi_written)} lines written, {len(pi_in_file)} in file")
    print(f"arbor writer A: {len(asked['A'])} asks; arbor writer B: {len(asked['B'])} asks")
    print(f"replies checked: {replies} (asks incl. the first: {asked_total})")
    print(f"violations: {len(violations)}")
    for v in violations[:30]:
        print("  " + v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
