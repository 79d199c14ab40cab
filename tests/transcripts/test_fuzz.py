"""Odd Claude Code transcripts never crash the reader (issue 27 point 5), fuzzed with a fixed seed:
every truncation point of one fixture, and values of the wrong type swapped into the others. What
comes out is always a valid pi v3 session (a header, unique ids, every parent in the file, a
context that builds), or nothing at all."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from desktop_app.session.context import build_session_context
from desktop_app.session.entries import is_valid_header, parse_session_text, serialize_line
from desktop_app.session.tree import SessionIndex
from desktop_app.transcripts.convert import convert
from desktop_app.transcripts.lines import parse_lines
from desktop_app.transcripts.model import build_transcript

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code"
#: Values of other types than the one a field holds.
_ODD_VALUES: list[Any] = [None, 0, -1, 1.5, True, "", "x", [], [1, "a", None], {}, {"type": "text"}, "\u0000\ud800"]


def _check_output(data: bytes, what: str) -> None:
    """``data`` read, modelled and converted without an exception, into a valid pi session."""
    try:
        conversion = convert(build_transcript(parse_lines(data)))
    except Exception as exc:  # noqa: BLE001 - the point: name the input that broke it
        raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc
    if not conversion.entries:
        return
    text = serialize_line(conversion.header) + "".join(serialize_line(e) for e in conversion.entries)
    parsed = parse_session_text(text)
    assert not parsed.malformed and is_valid_header(parsed.objects[0]), what
    entries = parsed.objects[1:]
    seen: set[str] = set()
    for entry in entries:
        assert isinstance(entry.get("id"), str) and entry["id"] not in seen, what
        seen.add(entry["id"])
    assert all(entry.get("parentId") is None or entry["parentId"] in seen for entry in entries), what
    assert conversion.leaf_id is None or conversion.leaf_id in seen, what
    index = SessionIndex.build(entries)
    build_session_context(index.entries, conversion.leaf_id, index)


def test_every_truncation_of_a_transcript_reads() -> None:
    data = (FIXTURES / "torn.jsonl").read_bytes()
    for end in range(len(data) + 1):
        _check_output(data[:end], f"torn.jsonl cut at byte {end}")


def _odd(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(_ODD_VALUES))


def _swap_one(obj: Any, rng: random.Random) -> Any:
    """``obj`` with one value somewhere inside replaced by a value of another type."""
    if isinstance(obj, dict) and obj:
        key = rng.choice(list(obj))
        if rng.random() < 0.6 and isinstance(obj[key], (dict, list)) and obj[key]:
            obj[key] = _swap_one(obj[key], rng)
        else:
            obj[key] = _odd(rng)
        return obj
    if isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        obj[i] = _swap_one(obj[i], rng) if rng.random() < 0.6 else _odd(rng)
        return obj
    return _odd(rng)


def test_values_of_the_wrong_type_and_huge_lines_read() -> None:
    rng = random.Random(27)
    for path in sorted(FIXTURES.glob("*.jsonl")):
        lines = path.read_bytes().decode("utf-8").splitlines()
        objects = [json.loads(line) for line in lines if line.strip().startswith("{") and _is_json(line)]
        for trial in range(60 if path.stat().st_size < 20_000 else 8):  # fewer for the two long real ones
            mutated = [json.loads(json.dumps(o)) for o in objects]
            for _ in range(rng.randint(1, 4)):
                n = rng.randrange(len(mutated))
                mutated[n] = _swap_one(mutated[n], rng)
            data = "\n".join(json.dumps(o) for o in mutated).encode() + b"\n"
            _check_output(data, f"{path.name} trial {trial}")
    huge = {"type": "user", "uuid": "huge", "parentUuid": None, "message": {"content": "y" * 2_000_000}}
    _check_output(json.dumps(huge).encode() + b"\n", "a 2 MB line")


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
