"""What the model sees: ``build_session_context`` and ``convert_to_llm`` (pi-spec §4.1, §4.2).

The prefixes and suffixes around summaries are data: they end up in the model's context and in
token estimates, so they are pi's strings to the character.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from .entries import Entry, Message, entry_time_ms
from .jsjson import js_string, js_truthy
from .profile import PI_1_6_0, PiProfile
from .tree import SessionIndex, key_of

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

_UNSET: Any = object()
_TRUE_KEY, _FALSE_KEY = object(), object()


class _Missing(str):
    """An absent key read in JavaScript: concatenates as ``"undefined"``."""


_MISSING = _Missing("undefined")


@dataclass
class SessionContext:
    """``{messages, thinkingLevel, model}`` of pi's ``buildSessionContext``."""

    messages: list[Message] = field(default_factory=list)
    thinking_level: str = "off"
    model: dict[str, Any] | None = None
    has_thinking_change: bool = field(default=False, compare=False, repr=False)
    """Whether the path has a ``thinking_level_change`` at all (its level may say ``off`` too): pi
    records the default level before the first prompt of a branch without one. Not pi's field."""

    def to_json(self) -> dict[str, Any]:
        """pi's object; a level left ``undefined`` (a change without ``thinkingLevel``) is absent."""
        out: dict[str, Any] = {"messages": self.messages, "thinkingLevel": self.thinking_level, "model": self.model}
        if self.thinking_level is _MISSING:
            del out["thinkingLevel"]
        return out


# ------------------------------------------------------------------------------ entry → message


def _copy_keys(out: dict[str, Any], entry: Entry, keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        if key in entry:
            out[key] = entry[key]
    return out


def custom_message_from_entry(entry: Entry) -> Message:
    """``createCustomMessage``: a ``custom_message`` entry as an in-memory ``custom`` message."""
    message: Message = {"role": "custom"}
    _copy_keys(message, entry, ("customType", "content", "display", "details"))
    message["timestamp"] = entry_time_ms(entry)
    return message


def branch_summary_message(entry: Entry) -> Message:
    """``createBranchSummaryMessage``."""
    message: Message = {"role": "branchSummary"}
    _copy_keys(message, entry, ("summary", "fromId"))
    message["timestamp"] = entry_time_ms(entry)
    return message


def compaction_summary_message(entry: Entry) -> Message:
    """``createCompactionSummaryMessage``."""
    message: Message = {"role": "compactionSummary"}
    _copy_keys(message, entry, ("summary", "tokensBefore"))
    message["timestamp"] = entry_time_ms(entry)
    return message


def _message_payload(entry: Entry) -> Message | None:
    """``entry.message`` when it is an object. pi would carry a string or a number along (and trip
    over it later); Arbor leaves such a broken payload out of the context instead."""
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def context_message(entry: Entry) -> Message | None:
    """The message an entry contributes to ``buildSessionContext`` (``None`` for most bookkeeping)."""
    entry_type = entry.get("type")
    if entry_type == "message":
        return _message_payload(entry)
    if entry_type == "custom_message":
        return custom_message_from_entry(entry)
    if entry_type == "branch_summary" and js_truthy(entry.get("summary")):  # `{}` and `[]` count
        return branch_summary_message(entry)
    return None


def message_from_entry(entry: Entry) -> Message | None:
    """pi's ``getMessageFromEntry`` (compaction utils): every summary kind becomes a message.

    Unlike :func:`context_message`, an empty branch summary still yields a message and a
    compaction yields its ``compactionSummary``; what a caller then skips is its own rule.
    """
    entry_type = entry.get("type")
    if entry_type == "message":
        return _message_payload(entry)
    if entry_type == "custom_message":
        return custom_message_from_entry(entry)
    if entry_type == "branch_summary":
        return branch_summary_message(entry)
    if entry_type == "compaction":
        return compaction_summary_message(entry)
    return None


# ------------------------------------------------------------------------------ build
#
# One core, three entry points. pi's ``buildSessionContext`` (1.6.0: ``buildSessionProjection``) walks
# the root → leaf path; the rules it applies per entry and the way it assembles the result live here
# once:
#
# * :func:`_contribution`: what one entry adds (its message, or none) and whether it is the model source;
# * :func:`compaction_messages`: what the newest compaction adds (its replayed system prompt, if it
#   stored one, and its summary);
# * :func:`edited_messages`: the latest ``context_edit`` of an entry applied to what it adds;
# * :class:`_Parts` / :meth:`_Parts.context`: newest compaction + kept range + tail + edits + thinking
#   level + model source → ``SessionContext``.
#
# The entry points differ only in which entries they visit: :func:`context_from_path` walks a path
# root → leaf (through :func:`project_path`, which also tells which entry gave which message),
# :func:`build_session_context` walks leaf → root and stops once nothing further up can matter,
# :func:`extend_context` adds one entry to an existing context. A Hypothesis property
# (tests/session/test_context_core.py) checks that the three agree.
#
# Every entry point takes the profile. With ``context_projection`` (1.6.0) the context is pi 1.6.0's
# projection (pi16-delta.md §4.1); without it (0.73.1) edits and a compaction's ``systemMessage`` add
# nothing and ``system`` messages are ordinary messages, kept range included (pi-spec §4.1). A 0.73.1
# file has none of these, so both give the same context there except for one rule: a message whose
# content is null gets ``[]`` (``empty_content_for_null``).

EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})
"""Roles whose ``content`` a ``context_edit`` replacement replaces."""
_BLOCK_ROLES = frozenset({"assistant", "toolResult"})
_EMPTY_CONTENT_ROLES = frozenset({"user", "assistant", "toolResult"})


def _with_content(message: Message, content: Any) -> Message:
    """``{...message, content}``: a new object, the key keeping its place (appended when absent);
    ``content`` :data:`_UNSET` is JavaScript's ``undefined``, which leaves the message without it."""
    out = dict(message)
    if content is _UNSET:
        out.pop("content", None)
    else:
        out["content"] = content
    return out


def _projected_payload(entry: Entry, empty_for_null: bool) -> Message | None:
    message = _message_payload(entry)
    if message is None or not empty_for_null or message.get("content") is not None:
        return message
    role = message.get("role")
    if role == "system":
        return _with_content(message, "")
    if role in _EMPTY_CONTENT_ROLES:
        return _with_content(message, [])
    return message


def _contribution(entry: Entry, empty_for_null: bool = True) -> tuple[Message | None, bool]:
    """(the message ``entry`` adds to the context or ``None``, whether it is a model source).

    A model source is a ``model_change`` or an assistant message; thinking levels and compactions
    are not messages and are recognised by their type where they matter. ``empty_for_null`` is the
    profile's ``empty_content_for_null`` (a plain flag: this runs once per entry on long walks).
    """
    entry_type = entry.get("type")
    if entry_type == "message":
        message = _projected_payload(entry, empty_for_null)
        return message, message is not None and message.get("role") == "assistant"
    if entry_type == "model_change":
        return None, True
    if entry_type == "custom_message" and empty_for_null and entry.get("content") is None:
        return custom_message_from_entry({**entry, "content": []}), False
    return context_message(entry), False


def _model_from(source: Entry) -> dict[str, Any]:
    """The ``model`` of a context whose latest model source is ``source`` (pi's two shapes)."""
    if source.get("type") == "model_change":
        return _copy_keys({}, source, ("provider", "modelId"))
    message = source["message"]
    model: dict[str, Any] = {}
    if "provider" in message:
        model["provider"] = message["provider"]
    if "model" in message:
        model["modelId"] = message["model"]
    return model


def is_system_entry(entry: Entry) -> bool:
    """A ``message`` entry holding a ``system`` message (the prompt or a change to it)."""
    message = entry.get("message")
    return entry.get("type") == "message" and isinstance(message, dict) and message.get("role") == "system"


def compaction_messages(compaction: Entry, profile: PiProfile = PI_1_6_0) -> list[Message]:
    """What the newest compaction adds: ``[systemMessage?, compactionSummary]`` (1.6.0's checkpoint;
    pi 0.73.1 knows no checkpoint and adds the summary only)."""
    checkpoint: Any = compaction.get("systemMessage")  # typed as a message, but may be any JSON value
    summary = compaction_summary_message(compaction)
    # pi adds any truthy value as it is (a string, ``true``, an array); the app copes with such a message.
    return [checkpoint, summary] if profile.context_projection and js_truthy(checkpoint) else [summary]


def same_id(a: Any, b: Any) -> bool:
    """JavaScript's ``a === b`` on two ids read from JSON that can be on one path (strings, numbers,
    booleans): Python's ``==`` would take ``true`` for ``1`` and ``false`` for ``0``."""
    return bool(a == b) and (a.__class__ is bool) is (b.__class__ is bool)


def edit_key(value: Any) -> Any:
    """A ``targetId`` or entry id as a dict key (a fresh object for an unhashable id: it matches nothing).

    ``true`` and ``1`` are one key in Python but two in pi's ``Map`` (so are ``false`` and ``0``)."""
    if value.__class__ is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    try:
        hash(value)
    except TypeError:
        return object()
    return value


def edited_messages(messages: list[Message], edit: Entry) -> list[Message]:
    """The messages of an entry after its latest ``context_edit`` (pi16-delta.md §4.1c).

    ``replacement: null`` omits the entry; ``{content}`` replaces the content of its user, assistant,
    tool-result and custom messages, a string becoming one text block for assistant and tool results.
    Every other field (usage, stop reason) stays. pi reads ``replacement.content`` whatever the
    replacement is, so one of another shape (``false``, ``5``, ``"text"``, ``{}``) leaves those messages
    without ``content``, and ``{content: 5}`` gives them ``5``. (A replacement that is absent makes pi
    throw; :func:`check_edits_as_pi` finds where.)
    """
    replacement = edit.get("replacement", _UNSET)
    if replacement is None:
        return []
    content = replacement.get("content", _UNSET) if isinstance(replacement, dict) else _UNSET
    out: list[Message] = []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role in EDITABLE_ROLES:
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) and role in _BLOCK_ROLES else content
            message = _with_content(message, blocks)
        out.append(message)
    return out


@dataclass
class _Parts:
    """What a context is made of, before assembly (root → leaf order; ``*_sources`` give each
    message's entry, so that edits can find their targets)."""

    profile: PiProfile = PI_1_6_0
    compaction: Entry | None = None
    kept: list[Message] = field(default_factory=list)  # the compaction's kept range
    kept_sources: list[Entry] = field(default_factory=list)
    tail: list[Message] = field(default_factory=list)  # everything after the compaction (or all)
    tail_sources: list[Entry] = field(default_factory=list)
    edits: dict[Any, Entry] = field(default_factory=dict)  # targetId -> latest edit
    thinking_entry: Entry | None = None
    model_entry: Entry | None = None

    def messages(self) -> list[Message]:
        head = compaction_messages(self.compaction, self.profile) if self.compaction is not None else []
        if self.edits and self.compaction is not None:
            edit = self.edits.get(edit_key(self.compaction.get("id")))
            if edit is not None:
                head = edited_messages(head, edit)
        if not self.edits:
            return [*head, *self.kept, *self.tail]
        out = head
        for messages, sources in ((self.kept, self.kept_sources), (self.tail, self.tail_sources)):
            for message, source in zip(messages, sources, strict=True):
                edit = self.edits.get(edit_key(source.get("id")))
                out.extend([message] if edit is None else edited_messages([message], edit))
        return out

    def context(self) -> SessionContext:
        thinking_level: Any = self.thinking_entry.get("thinkingLevel", _MISSING) if self.thinking_entry is not None else "off"
        model = _model_from(self.model_entry) if self.model_entry is not None else None
        return SessionContext(self.messages(), thinking_level, model, self.thinking_entry is not None)


def build_session_context(
    entries: list[Entry],
    leaf_id: str | None = _UNSET,
    index: SessionIndex | None = None,
    *,
    profile: PiProfile = PI_1_6_0,
) -> SessionContext:
    """Context of the path ending at ``leaf_id`` (pi-spec §4.1, pi16-delta.md §4.1), as ``profile``'s
    pi builds it.

    ``leaf_id=None`` means "no leaf" (empty context); omitted or unknown means the last entry.
    ``index`` may be passed to reuse an existing id map (pi's ``byId``).
    """
    if leaf_id is None or not entries:
        return SessionContext()
    if index is None:
        index = SessionIndex.build(entries)
    leaf = index.by_id.get(key_of(leaf_id)) if leaf_id is not _UNSET and leaf_id else None  # JS: `leafId ? ...`
    if leaf is None:
        leaf = entries[-1]
    parts = _parts_walking_up(index, leaf, profile)
    if parts is not None:
        return parts.context()
    return context_from_path(index.path_to(leaf), profile=profile)


class _CarefulWalk(Exception):
    """A walk up met a cycle or a ``parentId`` of ``true`` (the index keys it apart from 1, see
    :func:`~.tree.key_of`): only the careful walk of :meth:`SessionIndex.path_to` reads such a path."""


def _walk_up(index: SessionIndex, entry: Entry) -> Iterator[Entry]:
    """``entry`` and its ancestors, nearest first, following ``parentId`` as pi does (it stops at a
    falsy one, ``""`` included). Raises :class:`_CarefulWalk` on a cycle (more steps than entries) or
    a ``parentId`` of ``true``, and ``TypeError`` on an unhashable one."""
    by_id = index.by_id.get
    current = entry
    for _ in range(len(index.entries)):
        yield current
        parent = current.get("parentId")
        if not parent:
            return
        if parent is True:
            raise _CarefulWalk
        found = by_id(parent)
        if found is None:
            return
        current = found
    raise _CarefulWalk


def kept_range(compaction: Entry, above: Iterable[Entry], profile: PiProfile = PI_1_6_0) -> list[Entry] | None:
    """The entries ``compaction`` keeps, nearest first, or ``None`` when it keeps nothing: the one rule
    of a compaction's kept range (pi-spec §4.1, pi16-delta.md §4.1a), for a path and for a walk up.

    ``above`` is what precedes the compaction on its path, nearest first; the range runs up to the first
    entry whose id is ``firstKeptEntryId`` (JavaScript's ``===``) and is empty when none has it. pi 1.6.0
    leaves the range's system messages out (the compaction's checkpoint holds them); pi 0.73.1 keeps
    them. Only as much of ``above`` is read as the range needs.
    """
    first_kept = compaction.get("firstKeptEntryId")
    projection = profile.context_projection
    kept: list[Entry] = []
    for entry in above:
        if not (projection and is_system_entry(entry)):
            kept.append(entry)
        entry_id = entry.get("id")
        if entry_id == first_kept and same_id(entry_id, first_kept):  # `==` first: the cheap test
            return kept
    return None


def _parts_walking_up(index: SessionIndex, leaf: Entry, profile: PiProfile) -> _Parts | None:
    """The parts of the context at ``leaf`` without building the path: walk towards the root and stop
    as soon as nothing further up can matter.

    Only the newest compaction counts, so below it every message is collected; above it only its
    :func:`kept_range` and the nearest thinking level and model source are needed. Walking up, the
    first edit seen for a target is the latest. On a long session that has been compacted this reads a
    few hundred entries instead of the whole path. ``None`` (the caller walks the careful way) where
    :func:`_walk_up` gives up.
    """
    parts = _Parts(profile)
    walk = _walk_up(index, leaf)
    try:
        compaction = _collect(parts, walk, parts.tail, parts.tail_sources)
        if compaction is not None:
            parts.compaction = compaction
            kept = kept_range(compaction, walk, profile)
            if kept is None:  # it keeps nothing: read its ancestors again for the sources
                walk = _walk_up(index, compaction)
                next(walk)
            else:
                _collect(parts, kept, parts.kept, parts.kept_sources)
            _find_sources(parts, walk)
    except (_CarefulWalk, TypeError):  # TypeError: an unhashable parentId
        return None
    for nearest_first in (parts.tail, parts.tail_sources, parts.kept, parts.kept_sources):
        nearest_first.reverse()  # root → leaf
    return parts


def _collect(parts: _Parts, entries: Iterable[Entry], messages: list[Message], sources: list[Entry]) -> Entry | None:
    """Add what ``entries`` (nearest first) give to ``messages`` and ``sources`` (nearest first) and
    their edits to ``parts.edits`` (the first seen per target, the latest, wins), noting the nearest
    thinking level and model source; stop at the newest compaction, when ``parts`` has none yet, and
    return it. An older compaction (in a kept range) adds nothing.

    This is the loop of a long walk (every entry of a path without a compaction): ``parts``'s fields
    are read into locals once."""
    empty_for_null, projection = parts.profile.empty_content_for_null, parts.profile.context_projection
    edits, stop_at_compaction = parts.edits, parts.compaction is None
    thinking, model = parts.thinking_entry, parts.model_entry
    add_message, add_source = messages.append, sources.append
    compaction: Entry | None = None
    for entry in entries:
        entry_type = entry.get("type")
        if entry_type == "compaction" and stop_at_compaction:
            compaction = entry
            break
        if thinking is None and entry_type == "thinking_level_change":
            thinking = entry
        message, is_model_source = _contribution(entry, empty_for_null)
        if is_model_source and model is None:
            model = entry
        if message is not None:
            add_message(message)
            add_source(entry)
        elif projection and entry_type == "context_edit":
            edits.setdefault(edit_key(entry.get("targetId")), entry)
    parts.thinking_entry, parts.model_entry = thinking, model
    return compaction


def _find_sources(parts: _Parts, walk: Iterator[Entry]) -> None:
    """The nearest thinking level and model source above the kept range, as far as the tail and the
    range left them unset (the walk stops once both are known)."""
    while parts.thinking_entry is None or parts.model_entry is None:
        entry = next(walk, None)
        if entry is None:
            return
        if parts.thinking_entry is None and entry.get("type") == "thinking_level_change":
            parts.thinking_entry = entry
        if parts.model_entry is None and _contribution(entry)[1]:
            parts.model_entry = entry


@dataclass(frozen=True)
class ProjectedEntry:
    """One entry of pi 1.6.0's projection: the entry and the messages it gives after edits."""

    source: Entry
    messages: list[Message]


def context_entries(path: list[Entry], profile: PiProfile = PI_1_6_0) -> list[Entry]:
    """pi 1.6.0's ``buildContextEntries`` (§4.1a): ``[C, kept range without system messages, after C]``
    for the newest compaction ``C``, or the whole path when there is none. pi 0.73.1 keeps the system
    messages of the kept range (it has no checkpoint that holds them)."""
    for compaction_at in range(len(path) - 1, -1, -1):
        if path[compaction_at].get("type") == "compaction":
            break
    else:
        return path
    compaction = path[compaction_at]
    above = islice(reversed(path), len(path) - compaction_at, None)  # path[compaction_at - 1], ..., path[0]
    kept = kept_range(compaction, above, profile) or []
    kept.reverse()
    return [compaction, *kept, *path[compaction_at + 1 :]]


def active_edits(path: list[Entry], profile: PiProfile = PI_1_6_0) -> dict[Any, Entry]:
    """The edits ``profile``'s pi applies at the end of the root → leaf ``path``: the last one per target
    among the context entries (none for pi 0.73.1, which ignores ``context_edit`` entries)."""
    return latest_edits(context_entries(path, profile)) if profile.context_projection else {}


def latest_edits(entries: list[Entry]) -> dict[Any, Entry]:
    """The last ``context_edit`` per target among ``entries`` (later wins)."""
    edits: dict[Any, Entry] = {}
    for entry in entries:
        if entry.get("type") == "context_edit":
            edits[edit_key(entry.get("targetId"))] = entry
    return edits


def entry_context_messages(entry: Entry, *, profile: PiProfile = PI_1_6_0) -> list[Message]:
    """pi 1.6.0's ``sessionEntryToContextMessages`` (§4.1b): what one entry gives before edits."""
    if entry.get("type") == "compaction":
        return compaction_messages(entry, profile)
    message = _contribution(entry, profile.empty_content_for_null)[0]
    return [] if message is None else [message]


def project_path(path: list[Entry], *, profile: PiProfile = PI_1_6_0) -> list[ProjectedEntry]:
    """pi 1.6.0's ``buildSessionProjection(...).entries`` for a root → leaf path (§4.1); with 0.73.1's
    rules the same shape without edits and checkpoints (what ``buildSessionContext`` emits per entry)."""
    entries = context_entries(path, profile)
    edits = latest_edits(entries) if profile.context_projection else {}
    out: list[ProjectedEntry] = []
    for i, entry in enumerate(entries):
        if i > 0 and entry.get("type") == "compaction":
            messages: list[Message] = []  # an older compaction inside the kept range
        else:
            messages = entry_context_messages(entry, profile=profile)
        edit = edits.get(edit_key(entry.get("id"))) if edits else None
        if edit is not None:
            messages = edited_messages(messages, edit)
        out.append(ProjectedEntry(entry, messages))
    return out


def has_edit_without_replacement(entries: list[Entry]) -> bool:
    """Whether any ``context_edit`` lacks its ``replacement`` key (pi 1.6.0 never writes one)."""
    return any(e.get("type") == "context_edit" and "replacement" not in e for e in entries)


def check_edits_as_pi(path: list[Entry], profile: PiProfile = PI_1_6_0) -> None:
    """Raise the ``TypeError`` pi 1.6.0 throws building the context at the end of ``path`` when an
    edit without ``replacement`` applies to a message whose content it replaces (pi reads
    ``replacement.content`` of ``undefined``).

    Arbor's own context stays lenient there (the message shows without content); ``arbor inspect``
    calls this to report what pi reports. pi 0.73.1 ignores edits and never throws.
    """
    if not profile.context_projection:
        return
    entries = context_entries(path, profile)
    edits = latest_edits(entries)
    if all("replacement" in edit for edit in edits.values()):
        return
    for i, entry in enumerate(entries):
        edit = edits.get(edit_key(entry.get("id")))
        if edit is not None and not (i > 0 and entry.get("type") == "compaction"):
            check_edit_as_pi(entry_context_messages(entry, profile=profile), edit)


def check_edit_as_pi(messages: list[Message], edit: Entry) -> None:
    """Raise pi 1.6.0's ``TypeError`` if applying ``edit`` to ``messages`` reads the ``content`` of a
    replacement that is absent (see :func:`check_edits_as_pi`)."""
    if "replacement" not in edit and any(isinstance(m, dict) and m.get("role") in EDITABLE_ROLES for m in messages):
        raise TypeError("Cannot read properties of undefined (reading 'content')")


def context_from_path(path: list[Entry], *, profile: PiProfile = PI_1_6_0) -> SessionContext:
    """The context for a root → leaf path (steps 3–6 of pi-spec §4.1; pi16-delta.md §4.1)."""
    parts = _Parts()
    for entry in path:
        entry_type = entry.get("type")
        if entry_type == "thinking_level_change":
            parts.thinking_entry = entry
        elif entry_type == "model_change" or (entry_type == "message" and _contribution(entry)[1]):
            parts.model_entry = entry
    thinking_level: Any = parts.thinking_entry.get("thinkingLevel", _MISSING) if parts.thinking_entry is not None else "off"
    model = _model_from(parts.model_entry) if parts.model_entry is not None else None
    messages = [m for projected in project_path(path, profile=profile) for m in projected.messages]
    return SessionContext(messages, thinking_level, model, parts.thinking_entry is not None)


def extend_context(context: SessionContext, entry: Entry, *, profile: PiProfile = PI_1_6_0) -> SessionContext | None:
    """The context one entry further down the path, or ``None`` when only a full rebuild can tell.

    Compactions, branch summaries and context edits reshape the context (pi 0.73.1 ignores edits);
    everything else adds at most one message and may change the model or thinking level, exactly as
    one step of :func:`context_from_path`.
    """
    entry_type = entry.get("type")
    if entry_type in ("compaction", "branch_summary") or (entry_type == "context_edit" and profile.context_projection):
        return None
    thinking_level: Any = (
        entry.get("thinkingLevel", _MISSING) if entry_type == "thinking_level_change" else context.thinking_level
    )
    message, is_model_source = _contribution(entry, profile.empty_content_for_null)
    model = _model_from(entry) if is_model_source else context.model
    messages = context.messages if message is None else [*context.messages, message]
    changed = context.has_thinking_change or entry_type == "thinking_level_change"
    return SessionContext(messages, thinking_level, model, changed)


# ------------------------------------------------------------------------------ convert_to_llm


def _bash_text(message: Message) -> str:
    """pi's ``bashExecutionToText``, its tests read as JavaScript reads them: any truthy value (``{}``,
    ``[]``, ``"no"``) counts, and any exit code but ``0``, ``null`` and an absent one is printed."""
    text = "Ran `" + js_string(message.get("command", _MISSING)) + "`\n"
    output = message.get("output")
    text += "```\n" + js_string(output) + "\n```" if js_truthy(output) else "(no output)"
    exit_code = message.get("exitCode")
    if js_truthy(message.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and (exit_code.__class__ is bool or exit_code != 0):  # `!== 0`: false is not 0
        text += "\n\nCommand exited with code " + js_string(exit_code)
    if js_truthy(message.get("truncated")) and js_truthy(message.get("fullOutputPath")):
        text += "\n\n[Output truncated. Full output: " + js_string(message["fullOutputPath"]) + "]"
    return text


def _user(text: str, timestamp: Any) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def convert_message_to_llm(message: Message, profile: PiProfile = PI_1_6_0) -> Message | None:
    """One agent message in the LLM's vocabulary (system/user/assistant/toolResult), or ``None`` if dropped.

    ``system`` messages pass through as pi 1.6.0's ``convertToLlm`` passes them; a provider decides
    how to send them and a summary's transcript leaves them out. pi 0.73.1 drops them, as every role
    it does not know.
    """
    if not isinstance(message, dict):
        return None  # a compaction's odd ``systemMessage`` (a string, ``true``): no role, so pi drops it
    role = message.get("role")
    if role in ("user", "assistant", "toolResult") or (role == "system" and profile.llm_keeps_system):
        return message
    if role == "bashExecution":
        if js_truthy(message.get("excludeFromContext")):
            return None
        return _user(_bash_text(message), message.get("timestamp"))
    if role == "custom":
        content = message.get("content", _UNSET)
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        return _with_content({"role": "user"}, blocks) | {"timestamp": message.get("timestamp")}
    if role == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + js_string(message.get("summary", _MISSING)) + BRANCH_SUMMARY_SUFFIX
        return _user(text, message.get("timestamp"))
    if role == "compactionSummary":
        text = COMPACTION_SUMMARY_PREFIX + js_string(message.get("summary", _MISSING)) + COMPACTION_SUMMARY_SUFFIX
        return _user(text, message.get("timestamp"))
    return None


def convert_to_llm(messages: list[Message], profile: PiProfile = PI_1_6_0) -> list[Message]:
    """pi's ``convertToLlm``: summaries, custom and bash messages become user messages."""
    out: list[Message] = []
    for message in messages:
        converted = convert_message_to_llm(message, profile)
        if converted is not None:
            out.append(converted)
    return out
