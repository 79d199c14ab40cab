"""The "Done when" flow of issue 26 (context by hand), shared by its test and by the script that records
pi 1.6.0's answers for a file written through it.

Starting from a copy of ``pi16-1606`` (written by pi 1.6.0: six compactions, three on the active path),
through ``SessionManager`` + ``AgentSession`` on the offline model:

1. hide a tool result and replace a user message's text, both after the newest compaction;
2. compact with the user's summary and a chosen first kept entry (no model call);
3. prompt once (so something follows the compaction);
4. continue without that compaction (a new branch with copies of what followed it);
5. show the hidden tool result again.

The file keeps every step (nothing is rewritten), so pi's ``contexts`` of one file answer for every step:
the leaf after each step is recorded in :class:`FlowRecord`.

Record pi's answers after changing the flow (from the worktree root)::

    PYTHONPATH=. python -m tests.agent.context_flow tests/fixtures/context_by_hand/ctx-1606.jsonl
    cd /work/shared/oracle16 && TZ=UTC node expect.mjs $WT/tests/fixtures/context_by_hand/ctx-1606.jsonl \\
        > $WT/tests/fixtures/context_by_hand/ctx-1606.expected.json
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from desktop_app.agent import AgentSession
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.offline import OfflineProvider
from desktop_app.session import SessionManager
from desktop_app.session.entries import message_text
from desktop_app.settings import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCE = FIXTURES / "conformance16" / "cases" / "pi16-1606.jsonl"
RECORDED = FIXTURES / "context_by_hand" / "ctx-1606.jsonl"

HIDDEN_TOOL_RESULT = "e04c7a2a"  #: a toolResult after the newest compaction of the active path
REPLACED_USER = "b216e0d7"  #: a user message after it
CHOSEN_CUT = "78ad6636"  #: an assistant reply before both (a split turn: its user message is summarized)
REPLACEMENT = "Replaced by hand: please only check the parser."
SUMMARY = "Written by hand: the user asked for a config parser review; nothing else matters."
PROMPT = "Please continue."


@dataclass
class FlowRecord:
    """The ids of one run of the flow, and the texts to look for in each step's context."""

    hidden_id: str
    hidden_text: str
    replaced_id: str
    replacement: str
    chosen_id: str
    summary: str
    compaction_id: str
    summarized_texts: list[str]  #: the texts of the messages the compaction summarized, in order
    after_edits: str
    after_compact: str
    after_prompt: str
    after_expand: str
    after_show: str


def _settings() -> Settings:
    return Settings(compaction=CompactionSettings(enabled=False))  # no automatic compaction in between


async def run_flow(path: Path) -> FlowRecord:
    """Copy the source session to ``path`` and run the five steps there."""
    shutil.copyfile(SOURCE, path)
    agent = AgentSession(SessionManager.open(path, fsync=False), OfflineProvider(), _settings())
    session = agent.session
    hidden = session.get_entry(HIDDEN_TOOL_RESULT)
    assert hidden is not None
    hidden_text = message_text(hidden["message"]["content"])
    agent.edit_context(HIDDEN_TOOL_RESULT, None)
    agent.edit_context(REPLACED_USER, REPLACEMENT)
    after_edits = str(session.leaf_id)
    plan = prepare_compaction(session.get_branch(), profile=session.profile, first_kept_entry_id=CHOSEN_CUT)
    assert plan is not None
    summarized = [message_text(m.get("content")) for m in [*plan.messages_to_summarize, *plan.turn_prefix_messages]]
    compaction_id = await agent.compact(summary=SUMMARY, first_kept_entry_id=CHOSEN_CUT)
    await agent.prompt(PROMPT)
    after_prompt = str(session.leaf_id)
    after_expand = agent.expand_compaction(compaction_id)
    assert after_expand is not None
    agent.show_in_context(HIDDEN_TOOL_RESULT)
    record = FlowRecord(
        HIDDEN_TOOL_RESULT,
        hidden_text,
        REPLACED_USER,
        REPLACEMENT,
        CHOSEN_CUT,
        SUMMARY,
        compaction_id,
        summarized,
        after_edits,
        compaction_id,
        after_prompt,
        after_expand,
        str(session.leaf_id),
    )
    agent.close()
    return record


# ------------------------------------------------------------------------------------------ checks

SOURCE_LEAF = "a4ce5534"  #: the source file's leaf, before the flow


def _text(message: dict[str, Any]) -> str:
    if message.get("role") in ("compactionSummary", "branchSummary"):
        return str(message.get("summary"))
    return message_text(message.get("content"))


def _all_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(_text(m) for m in messages)


def check_steps(
    context_at: Callable[[str], list[dict[str, Any]]],
    message_of: Callable[[str], dict[str, Any]],
    record: FlowRecord,
) -> None:
    """What the issue asks of each step's context, for contexts from Arbor or from pi's recorded answers.

    ``context_at(leaf)`` is the context with the leaf there; ``message_of(entry_id)`` the message an entry
    holds (as written).
    """
    before = context_at(SOURCE_LEAF)
    assert record.hidden_text in _all_text(before)  # the text to hide was there
    original_user = _text(message_of(record.replaced_id))
    assert original_user != record.replacement and original_user in [_text(m) for m in before]

    edited = context_at(record.after_edits)
    assert record.hidden_text not in _all_text(edited)
    assert record.replacement in [_text(m) for m in edited] and original_user not in [_text(m) for m in edited]
    assert len(edited) == len(before) - 1

    chosen = message_of(record.chosen_id)
    compacted = context_at(record.after_compact)
    rest = [m for m in compacted if m.get("role") != "system"]
    assert rest[0]["role"] == "compactionSummary" and rest[0]["summary"] == record.summary
    assert rest[1] == chosen
    assert rest[1:] == edited[edited.index(chosen) :]  # the kept range, edits applied
    for messages in (compacted, context_at(record.after_prompt)):
        assert record.hidden_text not in _all_text(messages)
        assert record.replacement in [_text(m) for m in messages]
    prompted = context_at(record.after_prompt)
    assert prompted[: len(compacted)] == compacted
    assert [m["role"] for m in prompted[len(compacted) :] if m["role"] != "system"] == ["user", "assistant"]
    assert _text(prompted[-2]) == PROMPT

    expanded = context_at(record.after_expand)
    assert expanded[: len(edited)] == edited  # the whole history again, word for word
    assert expanded[len(edited) :] == prompted[len(compacted) :]  # then the copies of what followed
    texts = [_text(m) for m in expanded if m.get("role") != "system"]  # a summary's input has no system message
    run = record.summarized_texts
    assert any(texts[i : i + len(run)] == run for i in range(len(texts))), "the summarized messages, in order"
    assert all(m.get("role") != "compactionSummary" or m.get("summary") != record.summary for m in expanded)
    assert record.hidden_text not in _all_text(expanded)

    shown = context_at(record.after_show)
    assert record.hidden_text in _all_text(shown) and len(shown) == len(expanded) + 1
    assert [m for m in shown if record.hidden_text not in _text(m)] == expanded


def file_shape(path: Path) -> list[Any]:
    """The file's entries with ids numbered by first appearance and every ``timestamp`` dropped: two runs
    of the flow (random ids, the clock) give the same shape exactly when they wrote the same entries."""
    ids: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k != "timestamp"}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        for key in ("id", "parentId", "targetId", "firstKeptEntryId"):
            value = entry.get(key)
            if isinstance(value, str):
                entry[key] = ids.setdefault(value, f"#{len(ids)}")
        out.append(walk(entry))
    return out


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    result = asyncio.run(run_flow(out))
    out.with_suffix(".flow.json").write_text(json.dumps(asdict(result), indent=1) + "\n", encoding="utf-8")
