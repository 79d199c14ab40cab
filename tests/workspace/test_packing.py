"""Arbor's git deltas (workspace/packing.py) are read back by dulwich exactly: random small edits,
long runs of copies (over one copy instruction's 64 KB), empty sides."""

from __future__ import annotations

import random

from dulwich.pack import apply_delta

from desktop_app.workspace.packing import create_delta


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
