"""The compaction sections of ``arbor inspect`` (conformance/README.md schema).

Each section is what pi 0.73.1 computes for the same file, in the same shape, so a case passes when
Arbor's document equals pi's key by key: ``entry_file_ops``, ``leaf_stats``, ``compaction``,
``branch_summary`` and ``serialize``. Message lists are returned as :class:`MessageList` holding the
very dicts the entries hold (or fresh dicts where pi synthesizes a message), so ``inspect`` can encode
them as message-table refs by identity. NaN (JavaScript arithmetic on a missing usage field) is ``None``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

from desktop_app.session.context import build_session_context, check_edits_as_pi, convert_to_llm
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import BlockKind, EntryKind, Role, block_kind, kind_of, message_of, role_of
from desktop_app.session.manager import SessionManager
from desktop_app.session.profile import PiProfile
from desktop_app.session.tree import SessionIndex

from .branch_entries import (
    collect_entries_for_branch_summary,
    prepare_branch_entries,
)
from .cut_points import CutPointResult, entry_messages, find_cut_point, find_turn_start_index
from .file_ops import FileOperations, compute_file_lists, extract_file_ops, format_file_operations
from .inspect_targets import branch_summary_pairs, compaction_targets
from .prepare import compaction_boundaries, prepare_compaction
from .serialize import serialize_conversation
from .tokens import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    get_last_assistant_usage,
    nan_to_none,
    should_compact,
)

_ABSENT: Any = object()  # JavaScript's undefined: a key the message does not have

__all__ = ["MessageList", "compaction_sections", "text_digest", "KEEP_BUDGETS", "BRANCH_BUDGETS", "CONTEXT_WINDOWS"]


class MessageList(list[Any]):
    """Messages that a report consumer encodes as message-table refs (by object identity).

    A marker on this module's output (``arbor inspect`` turns each into refs into its message table);
    defined here, where the sections are made, so the engine depends on nothing above it.
    """

KEEP_BUDGETS = (0, 50, 500, 2000, 20000)
BRANCH_BUDGETS = (0, 1000, 100000)
CONTEXT_WINDOWS = (32000, 128000, 200000)
RESERVE_TOKENS = 16384


def _guarded(compute: Callable[[], Any]) -> Any:
    """One value of the report, or ``{"error": ...}`` where pi threw computing it.

    pi's harness records each computation that threw in its place (one leaf's stats, one target's
    cut at one budget, one navigation pair, ...), so one bad message (a ``null`` summary, a bash
    output that is ``null``) fails only the values that touch it, not the whole section. Anything
    the engine raises on such data is recorded the same way: ``inspect`` never stops on it.
    """
    try:
        return compute()
    except Exception as exc:  # noqa: BLE001 - recorded in its place, as pi's harness records it
        return {"error": f"{type(exc).__name__}: {exc}"}


def _serialize_as_pi(messages: list[Message], profile: PiProfile) -> str:
    """``serializeConversation`` including where pi throws on odd content. The app's serializer
    skips what it cannot read instead; the report must record pi's failure in its place."""
    for message in messages:
        _raise_where_pi_throws(message, profile)
    return serialize_conversation(messages, profile)


def _filter_of(content: Any, expression: str) -> None:
    """``content.filter((c) => c.type === "text")`` as JavaScript evaluates it on any JSON value."""
    if content is None or content is _ABSENT:
        raise TypeError(f"Cannot read properties of {'null' if content is None else 'undefined'} (reading 'filter')")
    if not isinstance(content, list):
        raise TypeError(f"{expression}.filter is not a function")
    if any(block is None for block in content):
        raise TypeError("Cannot read properties of null (reading 'type')")


def _raise_where_pi_throws(message: Message, profile: PiProfile) -> None:
    """The ``TypeError`` pi's ``serializeConversation`` raises on this message, if any (both versions:
    user and tool-result content through ``.filter``, assistant content through ``for…of``, tool-call
    arguments through ``Object.entries``; 1.6.0 reads strings as text and asks ``content.some``)."""
    pi16 = not profile.serialize_thinking  # 1.6.0's serializer
    role = role_of(message)
    content = message.get("content", _ABSENT)
    if role is Role.USER or (role is Role.TOOL_RESULT and pi16):
        if not isinstance(content, str):
            _filter_of(content, "content" if pi16 else "msg.content")
    elif role is Role.TOOL_RESULT:
        _filter_of(content, "msg.content")
    elif role is Role.ASSISTANT:
        if not isinstance(content, (list, str)):
            raise TypeError("msg.content is not iterable")
        for block in content if isinstance(content, list) else ():
            if block is None:
                raise TypeError("Cannot read properties of null (reading 'type')")
            if block_kind(block) is BlockKind.TOOL_CALL and block.get("arguments") is None:
                raise TypeError("Cannot convert undefined or null to object")
        if pi16 and isinstance(content, str):
            raise TypeError("msg.content.some is not a function")


def text_digest(text: str) -> dict[str, Any]:
    """``{length, sha256_utf16le}``: a long JS string compared without storing it."""
    units = text.encode("utf-16-le", "surrogatepass")
    return {"length": len(units) // 2, "sha256_utf16le": hashlib.sha256(units).hexdigest()}


def compaction_sections(manager: SessionManager, leaves: list[str]) -> dict[str, Any]:
    """``entry_file_ops``, ``leaf_stats``, ``compaction``, ``branch_summary``, ``serialize``, with the
    answers of the manager's pi-version profile."""
    index = manager.index
    open_leaf = manager.leaf_id
    profile = manager.profile
    @functools.cache
    def context(leaf: str) -> list[Message]:
        # as pi's `branch(leaf); buildSessionContext()`: a falsy id ("") reads the last entry's context
        return build_session_context(index.entries, leaf, index, profile=profile).messages

    def at_leaf(leaf: str, compute: Callable[[], Any]) -> Any:
        """``compute`` where pi gets the leaf's context; pi throws first on an edit without replacement."""
        check_edits_as_pi(index.get_branch(leaf), profile)
        return compute()

    def stats(leaf: str) -> Any:
        return at_leaf(leaf, lambda: leaf_stats(index, leaf, context(leaf), profile))

    def serialized(leaf: str) -> Any:
        return at_leaf(leaf, lambda: serialize_report(context(leaf), leaf == open_leaf, profile))

    return {
        "entry_file_ops": entry_file_ops(index.entries, profile),
        "leaf_stats": {leaf: _guarded(functools.partial(stats, leaf)) for leaf in leaves},
        "compaction": [
            _guarded(functools.partial(compaction_target_report, index, t.target, t.why, profile))
            for t in compaction_targets(index, leaves, open_leaf)
        ],
        "branch_summary": [
            _guarded(functools.partial(branch_pair_report, index, p.old_leaf_id, p.target_id, p.why, profile))
            for p in branch_summary_pairs(index, leaves, open_leaf)
        ],
        "serialize": {leaf: _guarded(functools.partial(serialized, leaf)) for leaf in leaves},
    }


# ----------------------------------------------------------------------------------------- sections


def entry_file_ops(entries: list[Entry], profile: PiProfile) -> dict[str, Any]:
    """File operations of every assistant message that has any, in ``Set`` insertion order; where
    reading one message throws, that entry's value is the error."""
    out: dict[str, Any] = {}
    for entry in entries:
        message = message_of(entry)
        if message is None or not isinstance(entry.get("id"), str):  # as pi's harness
            continue
        if role_of(message) is not Role.ASSISTANT:
            continue
        ops = _guarded(functools.partial(extract_file_ops, message, None, profile))
        if isinstance(ops, dict):
            out[entry["id"]] = ops
        elif not ops.is_empty():
            out[entry["id"]] = ops.to_json()
    return out


def leaf_stats(index: SessionIndex, leaf: str, messages: list[Message], profile: PiProfile) -> dict[str, Any]:
    path = index.get_branch(leaf)
    estimate = estimate_context_tokens(messages, profile)
    usage = get_last_assistant_usage(path, profile)
    tokens = estimate.tokens
    enabled = CompactionSettings()
    disabled = CompactionSettings(enabled=False)
    return {
        "path_length": len(path),
        "estimateContextTokens": estimate.to_json(),
        "lastAssistantUsage": usage,
        "calculateContextTokens": None if usage is None else nan_to_none(calculate_context_tokens(usage)),
        "shouldCompact": {str(w): should_compact(tokens, w, enabled) for w in CONTEXT_WINDOWS},
        "shouldCompact_disabled_200000": should_compact(tokens, 200000, disabled),
    }


def _cut_json(path: list[Entry], cut: CutPointResult, with_id: bool) -> dict[str, Any]:
    out = cut.to_json()
    if with_id:
        index = cut.first_kept_entry_index
        out["firstKeptEntryId"] = path[index].get("id") if 0 <= index < len(path) else None
    return out


def _cut_at(
    path: list[Entry],
    start: int,
    end: int,
    keep: int,
    with_id: bool,
    profile: PiProfile,
    messages: Callable[[], list[list[Message]]],
) -> dict[str, Any]:
    """One cut; ``messages`` gives the path's entry messages (made once for all budgets, inside each
    guarded cut, so that an entry that throws fails each cut as it did)."""
    cut = find_cut_point(path, start, end, keep, profile, messages() if profile.cut_rules_1_6 else None)
    return _cut_json(path, cut, with_id)


def _file_ops_json(ops: FileOperations) -> dict[str, Any]:
    lists = compute_file_lists(ops)
    return {
        "fileOps": ops.to_json(sort=True),
        "fileLists": lists.to_json(),
        "formatFileOperations": format_file_operations(lists.read_files, lists.modified_files),
    }


def _prepare_json(path: list[Entry], keep: int, profile: PiProfile) -> dict[str, Any] | None:
    settings = CompactionSettings(enabled=True, reserve_tokens=RESERVE_TOKENS, keep_recent_tokens=keep)
    if path and kind_of(path[-1]) is not EntryKind.COMPACTION:
        check_edits_as_pi(path, profile)  # pi throws projecting the path; Arbor's projection does not
    prep = prepare_compaction(path, settings, profile)
    if prep is None:
        return None
    out: dict[str, Any] = {
        "firstKeptEntryId": prep.first_kept_entry_id,
        "tokensBefore": nan_to_none(prep.tokens_before),
        "isSplitTurn": prep.is_split_turn,
        "previousSummary": prep.previous_summary,
        "messagesToSummarize": MessageList(prep.messages_to_summarize),
        "turnPrefixMessages": MessageList(prep.turn_prefix_messages),
    }
    out.update(_file_ops_json(prep.file_ops))
    to_summarize, turn_prefix = prep.messages_to_summarize, prep.turn_prefix_messages
    out["summarize_text"] = _guarded(lambda: text_digest(_serialize_as_pi(convert_to_llm(to_summarize, profile), profile)))
    out["turn_prefix_text"] = _guarded(lambda: text_digest(_serialize_as_pi(convert_to_llm(turn_prefix, profile), profile)))
    out["settings"] = settings.to_json()
    return out


def compaction_target_report(index: SessionIndex, target: str, why: str, profile: PiProfile) -> dict[str, Any]:
    """Boundaries, turn starts, cut points at several budgets, and ``prepareCompaction`` for one path."""
    path = index.get_branch(target)
    bounds = compaction_boundaries(path)
    start, end = bounds.start, bounds.end
    turn_starts: list[int | None] = [
        None if i < start else find_turn_start_index(path, i, start, profile) for i in range(len(path))
    ]
    messages = functools.cache(functools.partial(entry_messages, path))  # ten cuts of one path
    report: dict[str, Any] = {
        "target": target,
        "why": why,
        "path": [entry.get("id") for entry in path],
        "prevCompactionIndex": bounds.prev_compaction_index,
        "boundaryStart": start,
        "boundaryEnd": end,
        "turnStartIndex": turn_starts,
        "cut": {
            str(k): _guarded(functools.partial(_cut_at, path, start, end, k, True, profile, messages)) for k in KEEP_BUDGETS
        },
        "prepare": {str(k): _guarded(functools.partial(_prepare_json, path, k, profile)) for k in KEEP_BUDGETS},
    }
    if start != 0:
        report["cut_from_0"] = {
            str(k): _guarded(functools.partial(_cut_at, path, 0, len(path), k, False, profile, messages))
            for k in KEEP_BUDGETS
        }
    return report


def branch_pair_report(index: SessionIndex, old_leaf_id: Any, target_id: Any, why: str, profile: PiProfile) -> dict[str, Any]:
    """Entries a navigation would summarize and what ``prepareBranchEntries`` keeps at three budgets."""
    collected = collect_entries_for_branch_summary(index, old_leaf_id, target_id)
    prepared: dict[str, Any] = {}
    def prepared_at(budget: int) -> dict[str, Any]:
        prep = prepare_branch_entries(collected.entries, budget, profile, pi_errors=True)
        return {
            "messages": MessageList(prep.messages),
            "fileOps": prep.file_ops.to_json(sort=True),
            "fileLists": compute_file_lists(prep.file_ops).to_json(),
            "totalTokens": nan_to_none(prep.total_tokens),
        }

    for budget in BRANCH_BUDGETS:
        prepared[str(budget)] = _guarded(functools.partial(prepared_at, budget))
    return {
        "oldLeafId": old_leaf_id,
        "targetId": target_id,
        "why": why,
        "entries": [entry.get("id") for entry in collected.entries],
        "commonAncestorId": collected.common_ancestor_id,
        "prepared": prepared,
    }


def serialize_report(messages: list[Message], with_text: bool, profile: PiProfile) -> dict[str, Any]:
    llm = convert_to_llm(messages, profile)
    text = _serialize_as_pi(llm, profile)
    out: dict[str, Any] = {"llm_messages": MessageList(llm)}
    out.update(text_digest(text))
    if with_text:
        out["text"] = text
    return out
