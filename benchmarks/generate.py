"""Realistic pi v3 session files for the benchmarks, generated deterministically from a seed.

The sessions look like pi's own large sessions (``conformance/real/*.jsonl`` scaled up): a header,
then turns of a user prompt, assistant messages with thinking / text / tool calls and realistic
``usage``/``cost``, tool results with file contents and command output; now and then a model or
thinking-level change, a label, a compaction, and branches:

* *revisits* (pi's ``/tree`` navigation): the conversation goes back to an earlier turn end,
  abandoning what followed, optionally leaving a ``branch_summary`` there, and goes on from it;
* *side excursions*: a short side branch forks from an earlier turn end, then the main line goes on
  from where it was.

Branching is steered so that about ``active_fraction`` of all entries lie on the final active path,
whose last entry is the last line of the file (pi's leaf on open). Every line goes through
:func:`desktop_app.session.entries.serialize_line` and the ``make_*`` builders, so the bytes are
exactly what pi writes. The same ``(n_entries, seed, active_fraction)`` always gives the same file.

``python benchmarks/generate.py N [--seed S]`` writes (or finds) the cached file and prints its stats.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.session.entries import (
    iso_from_ms,
    make_branch_summary_entry,
    make_compaction_entry,
    make_header,
    make_label_entry,
    make_message_entry,
    make_model_change_entry,
    make_session_info_entry,
    make_thinking_level_entry,
    serialize_line,
)

# Bump when the generated content changes, so cached files are regenerated.
GENERATOR_VERSION = 1
# Scales every generated text length; tuned so lines average ≈1.35 KB like pi's large test sessions.
SIZE_SCALE = 1.3
DATA_DIR = Path(__file__).resolve().parent / ".data"

START_MS = 1_762_160_400_000  # 2025-11-03T09:00:00.000Z
CWD = "/home/dev/projects/arbor-bench"

# provider, model, api, $ per million tokens: input, output, cacheRead, cacheWrite
MODELS = [
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages", (3.0, 15.0, 0.3, 3.75)),
    ("anthropic", "claude-opus-4-5", "anthropic-messages", (5.0, 25.0, 0.5, 6.25)),
    ("openai", "gpt-5.1-codex", "openai-responses", (1.25, 10.0, 0.125, 0.0)),
    ("google", "gemini-2.5-pro", "google-generative-ai", (1.25, 10.0, 0.31, 0.0)),
]
THINKING = ("off", "minimal", "low", "medium", "high")

_WORDS = (
    "the a an of to in for on with and or but not is are was be this that it we you they should could "
    "would will can may must function class method module import export return value type interface "
    "session entry tree branch leaf parent child node index file line path context message assistant user "
    "tool call result error warning test fixture assert expected actual output input buffer stream token "
    "cache model provider request response header body json parse serialize write read append flush lock "
    "rename compact summary label thinking level change version migrate schema field key array object "
    "string number boolean null undefined async await promise callback handler event listener emit "
    "subscribe render widget layout scroll view selection cursor keyboard shortcut command option flag "
    "config settings directory cwd process thread signal timeout retry backoff latency memory allocation "
    "performance benchmark profile median quadratic linear constant refactor rename extract inline "
    "simplify handle edge case regression fix bug issue commit diff patch hunk merge rebase review "
    "first then next finally because however therefore instead also only just already still again"
).split()
_NON_ASCII = ("—", "→", "é", "ü", "✅", "“", "”", "…", "λ", "日本")
_IDENTS = (
    "sessionManager entries byId leafId parentId buildSessionContext getBranch getTree appendMessage "
    "fileEntries labelsById header cwd timestamp messages thinkingLevel model compaction firstKeptEntryId "
    "tokensBefore summary details readFiles modifiedFiles config options result error handler stream "
    "chunk buffer offset length index count total items node children stack queue cache"
).split()
_FILES = [
    f"{CWD}/{d}/{f}"
    for d in ("src", "src/core", "src/ui", "src/session", "tests", "docs", "packages/agent/src")
    for f in (
        "index.ts",
        "session-manager.ts",
        "agent-session.ts",
        "compaction.ts",
        "tree-view.ts",
        "messages.ts",
        "config.ts",
        "utils.ts",
        "README.md",
        "main.py",
        "store.py",
    )
]
_COMMANDS = (
    "npm test",
    "npm run check",
    "git status",
    "git diff --stat",
    "ls -la src",
    "rg -n 'buildSessionContext' src",
    "python -m pytest -q tests/session",
    "node --version",
    "wc -l src/core/*.ts",
    "git log --oneline -20",
)


def _make_corpus(rng: random.Random, n_words: int) -> str:
    out: list[str] = []
    sentence = 0
    for _ in range(n_words):
        r = rng.random()
        if r < 0.01:
            word = rng.choice(_NON_ASCII)
        elif r < 0.10:
            word = "`" + rng.choice(_IDENTS) + "`"
        else:
            word = rng.choice(_WORDS)
        if sentence == 0:
            word = word[:1].upper() + word[1:]
        out.append(word)
        sentence += 1
        if sentence > rng.randint(6, 18):
            out[-1] += "." if rng.random() < 0.85 else ":"
            sentence = 0
            if rng.random() < 0.12:
                out[-1] += "\n\n" + ("- " if rng.random() < 0.4 else "")
    return " ".join(out)


def _make_code(rng: random.Random, n_lines: int) -> str:
    lines: list[str] = []
    depth = 0
    for _ in range(n_lines):
        ident = rng.choice(_IDENTS)
        other = rng.choice(_IDENTS)
        r = rng.random()
        if r < 0.12 and depth < 4:
            line = f"function {ident}({other}: string, options?: Options): Promise<void> {{"
            depth_next = depth + 1
        elif r < 0.24 and depth > 0:
            line = "}"
            depth -= 1
            depth_next = depth
        elif r < 0.40:
            line = f'const {ident} = {other}.get({rng.randint(0, 999)}) ?? "{rng.choice(_WORDS)}";'
            depth_next = depth
        elif r < 0.52:
            line = f"if (!{ident}) return {other};"
            depth_next = depth
        elif r < 0.62:
            line = f"// {rng.choice(_WORDS)} {rng.choice(_WORDS)} {ident} {rng.choice(_WORDS)}"
            depth_next = depth
        elif r < 0.72:
            line = f"for (const {ident} of this.{other}) {{"
            depth_next = depth + 1 if depth < 4 else depth
        else:
            line = f'this.{ident}.push({{ {other}, id: {ident}.id, "type": "{rng.choice(_WORDS)}" }});'
            depth_next = depth
        lines.append("\t" * depth + line)
        depth = depth_next
    return "\n".join(lines)


@dataclass
class SessionStats:
    path: str
    entries: int
    bytes: int
    avg_line_bytes: float
    active_entries: int
    active_fraction: float
    leaf_id: str
    compactions: int
    branch_points: int


class _Generator:
    def __init__(self, n_entries: int, seed: int, active_fraction: float, compaction_every: int = 450) -> None:
        self.rng = random.Random(seed)
        self.n = n_entries
        self.active = active_fraction
        self.compaction_every = compaction_every
        corpus_rng = random.Random(seed * 7919 + 1)
        self.prose = _make_corpus(corpus_rng, 60_000)
        self.code = _make_code(corpus_rng, 6_000)
        self.lines: list[str] = []
        self.ids: set[str] = set()
        self.by_line: list[dict[str, Any]] = []
        self.now = START_MS
        self.path: list[str] = []  # ids on the current main line, root first
        self.path_kinds: list[str] = []  # "turn_end", "user", "other" for each path entry
        self.model = MODELS[0]
        self.context_tokens = 8_000
        self.compactions = 0
        self.branch_points = 0
        self.read_files: set[str] = set()
        self.modified_files: set[str] = set()

    # ----------------------------------------------------------------------- primitives

    def _id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def _tick(self, lo: int = 400, hi: int = 30_000) -> int:
        self.now += self.rng.randint(lo, hi)
        return self.now

    def _len(self, median: float, sigma: float, lo: int, hi: int) -> int:
        return max(lo, min(hi, int(self.rng.lognormvariate(math.log(median * SIZE_SCALE), sigma))))

    def _text(self, median: float, sigma: float = 0.8, lo: int = 8, hi: int = 20_000) -> str:
        n = self._len(median, sigma, lo, hi)
        src = self.prose
        start = self.rng.randrange(0, len(src) - n - 1)
        return src[start : start + n].strip() or "ok"

    def _code(self, median: float, sigma: float = 0.9, lo: int = 20, hi: int = 40_000) -> str:
        n = self._len(median, sigma, lo, hi)
        src = self.code
        start = self.rng.randrange(0, len(src) - n - 1)
        return src[start : start + n]

    def _tool_call_id(self) -> str:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "toolu_01" + "".join(self.rng.choice(alphabet) for _ in range(22))

    def remaining(self) -> int:
        return self.n - len(self.lines) + 1  # the header is line 0

    def _emit(self, entry: dict[str, Any], on_path: bool, kind: str = "other") -> str:
        self.lines.append(serialize_line(entry))
        if on_path:
            self.path.append(entry["id"])
            self.path_kinds.append(kind)
        return str(entry["id"])

    def _entry_ts(self) -> str:
        return iso_from_ms(self._tick(5, 900))

    # ----------------------------------------------------------------------- messages

    def _usage(self, output_tokens: int) -> dict[str, Any]:
        rng = self.rng
        prices = self.model[3]
        self.context_tokens = min(195_000, self.context_tokens + rng.randint(200, 4_000))
        fresh = rng.randint(1, 4_000)
        cache_write = rng.randint(0, 6_000) if rng.random() < 0.4 else 0
        cache_read = max(0, self.context_tokens - fresh - cache_write)
        if rng.random() < 0.03:
            fresh, cache_read, cache_write = self.context_tokens, 0, 0
        total = fresh + output_tokens + cache_read + cache_write
        c_in = fresh * prices[0] / 1_000_000
        c_out = output_tokens * prices[1] / 1_000_000
        c_cr = cache_read * prices[2] / 1_000_000
        c_cw = cache_write * prices[3] / 1_000_000
        return {
            "input": fresh,
            "output": output_tokens,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": total,
            "cost": {
                "input": c_in,
                "output": c_out,
                "cacheRead": c_cr,
                "cacheWrite": c_cw,
                "total": c_in + c_out + c_cr + c_cw,
            },
        }

    def _assistant(
        self, blocks: list[dict[str, Any]], stop_reason: str, error: str | None = None
    ) -> dict[str, Any]:
        provider, model, api, _ = self.model
        chars = sum(len(json.dumps(b)) for b in blocks)
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": blocks,
            "api": api,
            "provider": provider,
            "model": model,
            "usage": self._usage(max(1, chars // 4 + self.rng.randint(0, 60))),
            "stopReason": stop_reason,
            "timestamp": self._tick(800, 40_000),
        }
        if provider == "openai" or self.rng.random() < 0.5:
            msg["responseId"] = (
                "resp_" if provider == "openai" else "msg_01"
            ) + f"{self.rng.getrandbits(96):024x}"
        if error is not None:
            msg["errorMessage"] = error
        return msg

    def _thinking(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "thinking", "thinking": self._text(260, 0.9, 20, 6_000)}
        if self.model[0] == "anthropic":
            block["thinkingSignature"] = "".join(
                self.rng.choice("ABCDEFabcdef0123456789+/") for _ in range(96)
            )
        return block

    def _tool_call(self) -> tuple[dict[str, Any], str, dict[str, Any]]:
        """A tool call block and the matching tool result message (without timestamp)."""
        rng = self.rng
        name = rng.choices(("read", "bash", "edit", "write", "grep"), weights=(38, 30, 20, 5, 7))[0]
        path = rng.choice(_FILES)
        details: Any = None
        is_error = False
        if name == "read":
            args: dict[str, Any] = {"path": path}
            if rng.random() < 0.2:
                args["offset"] = rng.randint(1, 800)
            output = self._code(900, 1.1, 40, 60_000)
            self.read_files.add(path)
        elif name == "bash":
            args = {"command": rng.choice(_COMMANDS)}
            output = self._text(380, 1.1, 10, 40_000)
            if rng.random() < 0.1:
                is_error = True
                output += "\n\nCommand exited with code 1"
        elif name == "edit":
            old = self._code(90, 0.6, 10, 2_000)
            new = self._code(120, 0.6, 10, 2_000)
            args = {"path": path, "edits": [{"oldText": old, "newText": new}]}
            output = f"Successfully replaced text in {path}."
            line = rng.randint(1, 900)
            details = {"diff": f"-{line} {old[:200]}\n+{line} {new[:200]}", "firstChangedLine": line}
            self.modified_files.add(path)
        elif name == "write":
            args = {"path": path, "content": self._code(800, 0.9, 40, 20_000)}
            output = f"Successfully wrote {len(args['content'])} bytes to {path}"
            self.modified_files.add(path)
        else:
            args = {"pattern": rng.choice(_IDENTS), "path": "src"}
            output = "\n".join(
                f"{rng.choice(_FILES)[len(CWD) + 1 :]}:{rng.randint(1, 900)}: {self._code(60, 0.4, 10, 200).strip()}"
                for _ in range(rng.randint(1, 12))
            )
        call_id = self._tool_call_id()
        block = {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
        result: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": output}],
        }
        if details is not None:
            result["details"] = details
        result["isError"] = is_error
        return block, call_id, result

    # ----------------------------------------------------------------------- entries

    def _message(
        self, parent: str | None, message: dict[str, Any], on_path: bool, kind: str = "other"
    ) -> str:
        entry = make_message_entry(self._id(), parent, self._entry_ts(), message)
        return self._emit(entry, on_path, kind)

    def _turn(self, parent: str | None, on_path: bool, budget: int) -> str | None:
        """One user prompt and the agent's work on it: at most ``budget`` entries. Returns the last id."""
        rng = self.rng
        if budget <= 0:
            return parent
        user = {
            "role": "user",
            "content": [{"type": "text", "text": self._text(220, 1.0, 5, 8_000)}],
            "timestamp": self._tick(5_000, 300_000),
        }
        last = self._message(parent, user, on_path, "user")
        budget -= 1
        rounds = min(int(rng.expovariate(1 / 3.2)), 14)
        for _ in range(rounds):
            if budget < 3:
                break
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.45:
                blocks.append(self._thinking())
            if rng.random() < 0.5:
                blocks.append({"type": "text", "text": self._text(120, 0.8, 10, 2_000)})
            n_calls = 1 if rng.random() < 0.8 else 2
            n_calls = min(n_calls, budget - 2)
            results = []
            for _ in range(n_calls):
                block, _call_id, result = self._tool_call()
                blocks.append(block)
                results.append(result)
            last = self._message(last, self._assistant(blocks, "toolUse"), on_path)
            budget -= 1
            for result in results:
                result["timestamp"] = self._tick(50, 20_000)
                last = self._message(last, result, on_path)
                budget -= 1
        if budget >= 1:
            r = rng.random()
            if r < 0.02:
                final = self._assistant([], "aborted", "Request was aborted")
            elif r < 0.035:
                final = self._assistant(
                    [{"type": "text", "text": ""}], "error", "Overloaded: upstream connect error (529)"
                )
            else:
                blocks = [self._thinking()] if rng.random() < 0.5 else []
                blocks.append({"type": "text", "text": self._text(420, 0.9, 10, 10_000)})
                final = self._assistant(blocks, "stop")
            last = self._message(last, final, on_path, "turn_end")
        return last

    def _files_details(self) -> dict[str, Any]:
        read = sorted(self.read_files - self.modified_files)[:12]
        modified = sorted(self.modified_files)[:12]
        return {"readFiles": read, "modifiedFiles": modified}

    def _compaction(self) -> None:
        """A compaction on the main line keeping the last few turns (firstKeptEntryId = a user entry)."""
        users = [i for i, k in enumerate(self.path_kinds) if k == "user"]
        candidates = [i for i in users if len(self.path) - i >= 12]
        if not candidates:
            return
        keep_from = candidates[-self.rng.randint(1, min(3, len(candidates)))]
        summary = (
            "## Goal\n"
            + self._text(300, 0.5)
            + "\n\n## Progress\n"
            + "\n".join("- " + self._text(140, 0.5) for _ in range(self.rng.randint(4, 10)))
            + "\n\n## Next Steps\n"
            + self._text(300, 0.5)
        )
        details = self._files_details()
        summary += "\n\n<read-files>\n" + "\n".join(details["readFiles"]) + "\n</read-files>"
        summary += "\n\n<modified-files>\n" + "\n".join(details["modifiedFiles"]) + "\n</modified-files>"
        entry = make_compaction_entry(
            self._id(),
            self.path[-1],
            self._entry_ts(),
            summary,
            self.path[keep_from],
            self.context_tokens + self.rng.randint(0, 5_000),
            details,
            False,
        )
        self._emit(entry, True)
        self.compactions += 1
        self.context_tokens = 12_000 + self.rng.randint(0, 8_000)
        self.read_files.clear()
        self.modified_files.clear()

    def _fork_index(self, max_back: int) -> int | None:
        """A turn end on the main line at most ``max_back`` entries before its tip."""
        ends = [
            i
            for i in range(max(0, len(self.path) - max_back), len(self.path) - 1)
            if self.path_kinds[i] == "turn_end"
        ]
        return self.rng.choice(ends) if ends else None

    def _branch_event(self, excess: float) -> None:
        rng = self.rng
        if rng.random() < 0.5:
            # Revisit: go back to an earlier turn end, abandoning what followed.
            fork = self._fork_index(int(min(max(excess, 6), 70)))
            if fork is None:
                return
            fork_id = self.path[fork]
            del self.path[fork + 1 :]
            del self.path_kinds[fork + 1 :]
            self.branch_points += 1
            if rng.random() < 0.5:
                summary = (
                    "The user explored a different approach and came back.\n\n## Goal\n"
                    + self._text(200, 0.5)
                    + "\n\n## Findings\n"
                    + self._text(350, 0.6)
                )
                entry = make_branch_summary_entry(
                    self._id(), fork_id, self._entry_ts(), fork_id, summary, self._files_details(), False
                )
                self._emit(entry, True)
        else:
            # Side excursion: a short branch off an earlier turn end; the main line continues at its tip.
            fork = self._fork_index(200)
            if fork is None:
                return
            size = int(min(max(excess, 4), rng.randint(4, 40)))
            self.branch_points += 1
            self._turn(self.path[fork], on_path=False, budget=min(size, self.remaining() - 20))

    def _bookkeeping(self) -> None:
        rng = self.rng
        tip = self.path[-1]
        r = rng.random()
        if r < 0.15:
            self.model = rng.choice(MODELS)
            entry = make_model_change_entry(self._id(), tip, self._entry_ts(), self.model[0], self.model[1])
            self._emit(entry, True)
        elif r < 0.55:
            level = rng.choice(THINKING)
            self._emit(make_thinking_level_entry(self._id(), tip, self._entry_ts(), level), True)
        elif len(self.path) > 10:
            target = self.path[rng.randrange(max(0, len(self.path) - 300), len(self.path))]
            label = (
                rng.choice(("checkpoint", "good state", "before refactor", "tests green", "wip"))
                if rng.random() < 0.9
                else None
            )
            self._emit(make_label_entry(self._id(), tip, self._entry_ts(), target, label), True)

    def run(self) -> list[str]:
        rng = self.rng
        sid = uuid.UUID(
            int=(START_MS << 80)
            | (0x7 << 76)
            | (rng.getrandbits(12) << 64)
            | (0b10 << 62)
            | rng.getrandbits(62)
        )
        self.lines.append(serialize_line(make_header(str(sid), CWD, iso_from_ms(START_MS))))
        self._emit(
            make_model_change_entry(self._id(), None, self._entry_ts(), self.model[0], self.model[1]), True
        )
        self._emit(make_thinking_level_entry(self._id(), self.path[-1], self._entry_ts(), "medium"), True)
        named = False
        since_compaction = 0
        while self.remaining() > 0:
            written = len(self.lines) - 1
            excess = len(self.path) - self.active * written
            tail_room = self.remaining() > 120
            if tail_room and excess > 6 + rng.random() * 40:
                self._branch_event(excess)
                continue
            every = self.compaction_every  # 450: 450–700 path entries apart (the default's bytes)
            if tail_room and since_compaction > every + rng.random() * every * 250 / 450:
                self._compaction()
                since_compaction = 0
                continue
            if tail_room and rng.random() < 0.08:
                self._bookkeeping()
                continue
            if not named and written > 30:
                self._emit(
                    make_session_info_entry(
                        self._id(), self.path[-1], self._entry_ts(), "Bench: refactor the session engine"
                    ),
                    True,
                )
                named = True
                continue
            before = len(self.path)
            self._turn(self.path[-1], on_path=True, budget=self.remaining())
            since_compaction += len(self.path) - before
        return self.lines


def generate_session(
    path: str | os.PathLike[str],
    n_entries: int,
    seed: int = 0,
    active_fraction: float = 0.72,
    compaction_every: int = 450,
) -> SessionStats:
    """Write a session of ``n_entries`` entries (plus the header) to ``path``; returns its stats.

    ``compaction_every``: path entries between compactions (×1 to ×1.56); e.g. 700 entries with
    ``compaction_every=20`` and ``active_fraction=0.6`` look like the issue's 691-entry session
    with 23 compactions and ~25 leaves."""
    gen = _Generator(n_entries, seed, active_fraction, compaction_every)
    lines = gen.run()
    assert len(lines) == n_entries + 1, (len(lines), n_entries)
    data = "".join(lines).encode("utf-8")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    leaf = gen.path[-1]
    assert json.loads(lines[-1])["id"] == leaf, "the active leaf must be the last line"
    return SessionStats(
        path=str(target),
        entries=n_entries,
        bytes=len(data),
        avg_line_bytes=len(data) / len(lines),
        active_entries=len(gen.path),
        active_fraction=len(gen.path) / n_entries,
        leaf_id=leaf,
        compactions=gen.compactions,
        branch_points=gen.branch_points,
    )


def cached_session(
    n_entries: int, seed: int = 0, active_fraction: float = 0.72, verbose: bool = True
) -> tuple[Path, SessionStats]:
    """The generated file for ``(n_entries, seed)`` under ``benchmarks/.data/``, made on first use."""
    stem = f"session-v{GENERATOR_VERSION}-n{n_entries}-s{seed}-a{round(active_fraction * 100)}"
    path = DATA_DIR / f"{stem}.jsonl"
    meta = DATA_DIR / f"{stem}.json"
    if path.exists() and meta.exists():
        try:
            stats = SessionStats(**json.loads(meta.read_text()))
        except (ValueError, TypeError):
            stats = None  # half-written or from another version: make it again
        if stats is not None and path.stat().st_size == stats.bytes:
            stats.path = str(path)
            return path, stats
    if verbose:
        print(
            f"generating {n_entries:,} entries (seed {seed}) → {path.name} ...", file=sys.stderr, flush=True
        )
    stats = generate_session(path, n_entries, seed, active_fraction)
    tmp = meta.with_name(f".{meta.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(asdict(stats), indent=1))
    os.replace(tmp, meta)  # the file first, then its stats: a reader never trusts a half-made pair
    if verbose:
        print(describe(stats), file=sys.stderr, flush=True)
    return path, stats


def describe(stats: SessionStats) -> str:
    return (
        f"{stats.entries:,} entries, {stats.bytes / 1e6:.1f} MB, {stats.avg_line_bytes / 1000:.2f} KB/line, "
        f"{stats.active_fraction:.1%} on the active path, {stats.compactions} compactions, "
        f"{stats.branch_points} branch points"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("entries", type=int, nargs="+")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--active-fraction", type=float, default=0.72)
    parser.add_argument("--out", help="write here instead of the cache (one size only)")
    parser.add_argument(
        "--compaction-every", type=int, default=450, help="path entries between compactions (needs --out if not 450)"
    )
    args = parser.parse_args(argv)
    if args.compaction_every != 450 and not args.out:
        parser.error("--compaction-every needs --out (the cache holds the default sessions only)")
    for n in args.entries:
        if args.out:
            stats = generate_session(args.out, n, args.seed, args.active_fraction, args.compaction_every)
        else:
            _, stats = cached_session(n, args.seed, args.active_fraction, verbose=False)
        print(f"{stats.path}: {describe(stats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
