"""What kind of entry, message and content block a value is: the one place that reads ``"type"`` and
``"role"`` strings (DESIGN.md §2; pi's ``SessionEntry`` union narrowed by ``entry.type``).

Entries stay plain dicts shaped exactly as in the file (byte-exact writes, unknown fields kept), so the
shapes below are :class:`~typing.TypedDict` views, one per kind, each with a :data:`~typing.Literal`
``type`` (or ``role``), and three enums name the kinds. Code outside ``session/`` asks
``kind_of(entry)`` / ``role_of(message)`` / ``block_kind(block)`` and compares enum members, or
``match``es on them ending in ``assert_never``: a new kind added to an enum is then a mypy error in
every exhaustive consumer, and a misspelt kind is an attribute error instead of a silent ``False``.

The shapes say what pi writes; they are not checks: a field of an odd file may hold any JSON value
(pi keeps such entries as they are, and so does Arbor), so values that feed arithmetic or string work
are still checked where they are used.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args, get_type_hints

__all__ = [
    "BlockKind", "EntryKind", "Role", "block_kind", "kind_of", "role_of", "message_of", "entry_role",
    "TypedEntry", "TypedMessage", "ContentBlock",
]


class EntryKind(StrEnum):
    """``entry.type`` of pi's v3 format (0.73.1 and 1.6.0); :attr:`UNKNOWN` for anything else,
    which is kept, written back and shown, but never joins the context."""

    HEADER = "session"
    MESSAGE = "message"
    THINKING_LEVEL_CHANGE = "thinking_level_change"
    MODEL_CHANGE = "model_change"
    COMPACTION = "compaction"
    BRANCH_SUMMARY = "branch_summary"
    CUSTOM = "custom"
    CUSTOM_MESSAGE = "custom_message"
    LABEL = "label"
    SESSION_INFO = "session_info"
    USAGE = "usage"
    CONTEXT_EDIT = "context_edit"
    UNKNOWN = "?"


class Role(StrEnum):
    """``message.role``: the three of the model's API, pi's own, and 1.6.0's ``system``."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL_RESULT = "toolResult"
    BASH_EXECUTION = "bashExecution"
    CUSTOM = "custom"
    HOOK_MESSAGE = "hookMessage"
    BRANCH_SUMMARY = "branchSummary"
    COMPACTION_SUMMARY = "compactionSummary"
    SYSTEM = "system"
    UNKNOWN = "?"


class BlockKind(StrEnum):
    """``block.type`` of a message's content list."""

    TEXT = "text"
    THINKING = "thinking"
    TOOL_CALL = "toolCall"
    IMAGE = "image"
    UNKNOWN = "?"


# ----------------------------------------------------------------------------------------- shapes


class _Base(TypedDict, total=False):
    id: Required[str]
    parentId: Required[str | None]
    timestamp: Required[str]


class HeaderEntry(TypedDict, total=False):
    type: Required[Literal["session"]]
    version: int
    id: Required[str]
    timestamp: str
    cwd: str
    parentSession: str


class MessageEntry(_Base):
    type: Literal["message"]
    message: TypedMessage


class ThinkingLevelEntry(_Base):
    type: Literal["thinking_level_change"]
    thinkingLevel: str


class ModelChangeEntry(_Base):
    type: Literal["model_change"]
    provider: str
    modelId: str


class CompactionEntry(_Base):
    type: Literal["compaction"]
    summary: str
    firstKeptEntryId: NotRequired[str]
    tokensBefore: int | float
    details: NotRequired[Any]
    usage: NotRequired[Any]
    fromHook: NotRequired[bool]
    systemMessage: NotRequired[SystemMessage]


class BranchSummaryEntry(_Base):
    type: Literal["branch_summary"]
    fromId: str
    summary: str
    details: NotRequired[Any]
    usage: NotRequired[Any]
    fromHook: NotRequired[bool]


class CustomEntry(_Base):
    type: Literal["custom"]
    customType: str
    data: NotRequired[Any]


class CustomMessageEntry(_Base):
    type: Literal["custom_message"]
    customType: str
    content: str | list[ContentBlock]
    display: bool
    details: NotRequired[Any]


class LabelEntry(_Base):
    type: Literal["label"]
    targetId: str
    label: NotRequired[str]


class SessionInfoEntry(_Base):
    type: Literal["session_info"]
    name: str


class UsageEntry(_Base):
    type: Literal["usage"]
    kind: str
    provider: str
    model: str
    usage: Any
    note: NotRequired[str]


class ContextEditEntry(_Base):
    type: Literal["context_edit"]
    targetId: str
    replacement: dict[str, Any] | None


TypedEntry = (
    HeaderEntry | MessageEntry | ThinkingLevelEntry | ModelChangeEntry | CompactionEntry | BranchSummaryEntry
    | CustomEntry | CustomMessageEntry | LabelEntry | SessionInfoEntry | UsageEntry | ContextEditEntry
)
"""Every entry kind pi writes; an entry of another ``type`` stays a plain dict (:attr:`EntryKind.UNKNOWN`)."""


class TextBlock(TypedDict, total=False):
    type: Required[Literal["text"]]
    text: Required[str]
    textSignature: str


class ThinkingBlock(TypedDict, total=False):
    type: Required[Literal["thinking"]]
    thinking: Required[str]
    thinkingSignature: str
    redacted: bool


class ToolCallBlock(TypedDict, total=False):
    type: Required[Literal["toolCall"]]
    id: Required[str]
    name: Required[str]
    arguments: Required[dict[str, Any]]


class ImageBlock(TypedDict, total=False):
    type: Required[Literal["image"]]
    data: Required[str]
    mimeType: Required[str]


ContentBlock = TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock


class UserMessage(TypedDict, total=False):
    role: Required[Literal["user"]]
    content: Required[str | list[ContentBlock]]
    timestamp: int


class AssistantMessage(TypedDict, total=False):
    role: Required[Literal["assistant"]]
    content: Required[list[ContentBlock]]
    api: str
    provider: str
    model: str
    usage: dict[str, Any]
    stopReason: str
    errorMessage: str
    timestamp: int


class ToolResultMessage(TypedDict, total=False):
    role: Required[Literal["toolResult"]]
    toolCallId: Required[str]
    toolName: Required[str]
    content: Required[list[ContentBlock]]
    details: Any
    isError: Required[bool]
    timestamp: int


class BashExecutionMessage(TypedDict, total=False):
    role: Required[Literal["bashExecution"]]
    command: Required[str]
    output: Required[str]
    exitCode: int | None
    cancelled: bool
    truncated: bool
    fullOutputPath: str
    excludeFromContext: bool
    timestamp: int


class SystemMessage(TypedDict, total=False):
    role: Required[Literal["system"]]
    content: Required[str]
    timestamp: int


TypedMessage = UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage | SystemMessage
"""The messages entries store by role (custom and summary messages are made from their entries)."""


# --------------------------------------------------------------------------------------- classify

_ENTRY_KINDS: dict[str, EntryKind] = {k.value: k for k in EntryKind if k is not EntryKind.UNKNOWN}
_ROLES: dict[str, Role] = {r.value: r for r in Role if r is not Role.UNKNOWN}
_BLOCK_KINDS: dict[str, BlockKind] = {b.value: b for b in BlockKind if b is not BlockKind.UNKNOWN}
# Read once: in Python 3.11 reading a member off its enum costs as much as the dict lookup.
_NO_KIND, _NO_ROLE, _NO_BLOCK = EntryKind.UNKNOWN, Role.UNKNOWN, BlockKind.UNKNOWN


def kind_of(entry: Any, _find: Any = _ENTRY_KINDS.get) -> EntryKind:
    """The kind of ``entry``; :attr:`EntryKind.UNKNOWN` for a non-dict or an unknown ``type``.

    Runs several times per entry on 100k-entry walks, so it is one lookup: a value that is not a
    string is simply not a key (an unhashable one, a list from an odd file, raises ``TypeError``), and
    a value without ``.get`` (not a mapping) raises ``AttributeError``."""
    try:
        kind: EntryKind = _find(entry.get("type"), _NO_KIND)
    except (AttributeError, TypeError):
        return _NO_KIND
    return kind


def role_of(message: Any, _find: Any = _ROLES.get) -> Role:
    """The role of ``message``; :attr:`Role.UNKNOWN` for a non-dict or an unknown ``role``."""
    try:
        role: Role = _find(message.get("role"), _NO_ROLE)
    except (AttributeError, TypeError):
        return _NO_ROLE
    return role


def block_kind(block: Any, _find: Any = _BLOCK_KINDS.get) -> BlockKind:
    """The kind of a content block; :attr:`BlockKind.UNKNOWN` for a non-dict or an unknown ``type``."""
    try:
        kind: BlockKind = _find(block.get("type"), _NO_BLOCK)
    except (AttributeError, TypeError):
        return _NO_BLOCK
    return kind


def message_of(entry: Any) -> dict[str, Any] | None:
    """The message a ``message`` entry holds, when it is an object; ``None`` otherwise."""
    if kind_of(entry) is not EntryKind.MESSAGE:
        return None
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def entry_role(entry: Any) -> Role | None:
    """The role of the message a ``message`` entry holds; ``None`` for other entries."""
    message = message_of(entry)
    return None if message is None else role_of(message)


def literal_type(shape: type) -> str:
    """The one ``type`` (or ``role``) value a shape's ``Literal`` allows (tests tie enums to shapes)."""
    hints = get_type_hints(shape)
    field = hints.get("type", hints.get("role"))
    values = get_args(field)
    if len(values) != 1 or not isinstance(values[0], str):
        raise TypeError(f"{shape.__name__} has no single Literal type")
    return values[0]
