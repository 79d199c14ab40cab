"""Arbor's git deltas (workspace/packing.py) are read back by dulwich exactly: random small edits,
long runs of copies (over one copy instruction's 64 KB), empty sides."""

from __future__ import annotations

import random

from dulwich.pack import apply_delta

from desktop_app.workspace.packing import create_delta, line_delta


def test_deltas_apply_back_to_the_target() -> None:
    rng = random.Random(25)
    cases = [(b"", b""), (b"", b"new"), (b"old", b""), (bytes(range(256)) * 600, bytes(range(256)) * 600)]
    big = bytes(range(256)) * 600
    cases.append((big, big[:1000] + b"x" + big[1001:]))
    for _ in range(300):
        base = bytes(rng.randrange(4) for _ in range(rng.randrange(400)))
        target = bytearray(base)
        for _ in range(rng.randrange(4)):
            at = rng.randrange(len(target) + 1)
            target[at:at + rng.randrange(5)] = bytes(rng.randrange(4) for _ in range(rng.randrange(5)))
        cases.append((base, bytes(target)))
    for base, target in cases:
        assert b"".join(apply_delta(base, create_delta(base, target))) == target
    assert len(create_delta(big, big[:1000] + b"x" + big[1001:])) < 40  # copy, insert one byte, copy


def test_line_deltas_apply_back_and_cost_the_changed_lines() -> None:
    rng = random.Random(26)
    lines = [f"line {i} {rng.random()}\n".encode() for i in range(300)]
    base = b"".join(lines)
    edited = list(lines)
    for at in (10, 150, 290):  # three lines far apart
        edited[at] = b"changed by the agent\n"
    edited.insert(200, b"a new line\n")
    target = b"".join(edited)
    delta = line_delta(base, target)
    assert b"".join(apply_delta(base, delta)) == target
    assert len(delta) < 200  # the new lines and a few copies, not the 140 lines between the first and last edit
    assert len(create_delta(base, target)) > 5000
    for _ in range(200):  # random small files, lines added, removed, changed, no final newline
        old = [bytes(rng.choice(b"ab\n") for _ in range(rng.randrange(30))) for _ in range(rng.randrange(8))]
        new = [x for x in old if rng.random() > 0.2] + [b"x\n"] * rng.randrange(3)
        rng.shuffle(new)
        a, b = b"".join(old), b"".join(new)
        assert b"".join(apply_delta(a, line_delta(a, b))) == b


def test_a_merge_takes_the_small_packs_and_leaves_the_grown_ones() -> None:
    from desktop_app.workspace.store import _geometric

    assert _geometric([("a", 100), ("b", 120), ("c", 90)]) == ["c", "a", "b"]  # alike: all of them
    assert _geometric([("old", 5000), ("x", 100), ("y", 110), ("z", 105)]) == ["x", "z", "y"]  # the grown one stays
    assert _geometric([("big", 1000), ("small", 10)]) == []  # already in progression: nothing to merge
