"""The tree of a Claude Code transcript (format notes: ``claude-code-format.md``), odd files included.

A transcript is a forest over ``uuid``/``parentUuid`` written by a program that was never meant to
be read back by others, so every rule here is about not being fooled:

- **one assistant turn, many lines**: Claude Code writes each content block of one API response as
  its own line, each the child of the one before, all with the same ``message.id``. They are merged
  into one node (the model gave one answer); the children of any part hang under the merged node.
- **compact boundaries** start a new root (``parentUuid: null``) and name the logical parent in
  ``logicalParentUuid``. That name is followed only when it exists and is not a *descendant* of the
  boundary (real files name the preserved tail written after it: following that makes a cycle);
  otherwise the boundary hangs under the main-chain line written just before it. The boundary and
  its ``isCompactSummary`` child become one compaction node.
- **sidechains** (subagents, ``isSidechain``) interleaved in old files keep their own tree; a
  sidechain root hangs under the main-chain line written before it (the Task call that started it).
- **meta lines** (``system`` notes, attachments, progress) stay nodes, so the chain stays
  connected, but are never messages; a user line marked ``isMeta`` (a slash command's expanded
  prompt, a caveat) is text the model read but the person never saw: kept as such. Lines without a uuid (titles, ``last-prompt``, snapshots) are
  read for what they say and kept out of the tree; **unknown types** are kept and listed.
- **the leaf**: the last ``last-prompt``'s ``leafUuid`` when it names a main-chain line, else the
  last main-chain line in the file; from there down to its newest descendant (the reply to that
  prompt). A ``leafUuid`` that names nothing is noted, not trusted.
- any cycle left in ``parentUuid`` is broken at the repeated node, and noted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from .lines import TranscriptLines
from .wire import COMPACT_BOUNDARY, Block, Line

__all__ = ["NodeKind", "Node", "Transcript", "build_transcript", "MESSAGE_KINDS"]


class NodeKind(Enum):
    USER = "user"
    ASSISTANT = "assistant"
    COMPACTION = "compaction"
    META = "meta"
    HIDDEN_PROMPT = "hidden-prompt"
    """A user line marked ``isMeta``: text Claude Code sends the model but does not show (a slash
    command's expanded prompt, a caveat)."""
    SIDECHAIN = "sidechain"
    UNKNOWN = "unknown"


MESSAGE_KINDS = frozenset({NodeKind.USER, NodeKind.ASSISTANT})
_NOT_MESSAGES = frozenset({Line.SYSTEM, Line.ATTACHMENT, Line.PROGRESS})
_INFO_TYPES = frozenset({Line.SUMMARY, Line.LAST_PROMPT, Line.AI_TITLE, Line.CUSTOM_TITLE, Line.FILE_HISTORY_SNAPSHOT,
                         Line.QUEUE_OPERATION, "tag", "agent-name"})


@dataclass(slots=True, eq=False)
class Node:
    """One node of the transcript's tree: a line, or several lines merged (an assistant turn, a
    compact boundary with its summary)."""

    uuid: str
    kind: NodeKind
    line: int
    obj: dict[str, Any]
    parent: str | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    """Assistant: every line of the turn, in order (the first is :attr:`obj`)."""
    summary: dict[str, Any] | None = None
    """Compaction: the ``isCompactSummary`` line (``None`` when the file has none)."""


@dataclass
class Transcript:
    """A transcript read into a tree; nothing in it is ever written back to the source."""

    path: Path | None
    session_id: str
    cwd: str
    nodes: dict[str, Node]
    """Every node by uuid, in file order."""
    leaf: str | None
    name: str | None
    first_prompt: str
    lines: TranscriptLines
    unknown: list[tuple[int, str]] = field(default_factory=list)
    """``(line, type)`` of lines of a type this reader does not know (kept, never fatal)."""
    notes: list[str] = field(default_factory=list)
    """What was odd and how it was handled, in plain words (a cycle broken, a missing leaf...)."""
    first_timestamp: str | None = None

    @property
    def message_count(self) -> int:
        return sum(1 for node in self.nodes.values() if node.kind in MESSAGE_KINDS)

    def main_chain(self) -> list[Node]:
        """Root → leaf, the path the conversation took last."""
        path: list[Node] = []
        seen: set[str] = set()
        current = self.leaf
        while current is not None and current not in seen:
            seen.add(current)
            node = self.nodes.get(current)
            if node is None:
                break
            path.append(node)
            current = node.parent
        path.reverse()
        return path


def _kind(obj: dict[str, Any]) -> NodeKind | None:
    """The node kind of a chain line; ``None`` for a compact boundary's summary (merged later)."""
    kind = _type(obj)
    if obj.get("isSidechain") is True:
        return NodeKind.SIDECHAIN
    if kind == Line.SYSTEM and obj.get("subtype") == COMPACT_BOUNDARY:
        return NodeKind.COMPACTION
    if kind == Line.USER:
        if obj.get("isCompactSummary") is True:
            return None
        return NodeKind.HIDDEN_PROMPT if obj.get("isMeta") is True else NodeKind.USER
    if kind == Line.ASSISTANT:
        return NodeKind.ASSISTANT
    if kind in _NOT_MESSAGES:
        return NodeKind.META
    return NodeKind.UNKNOWN


def _type(obj: dict[str, Any]) -> str | None:
    """A line's ``type``, or ``None`` when it is not a string (a list there is unhashable: the
    set lookups below would raise on it)."""
    kind = obj.get("type")
    return kind if isinstance(kind, str) else None


def _content(obj: dict[str, Any]) -> Any:
    """A line's ``message.content``, or ``None`` when its message is not an object."""
    message = obj.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _message_id(obj: dict[str, Any]) -> str | None:
    message = obj.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) and value else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == Block.TEXT
                        and isinstance(b.get("text"), str))
    return ""


def _str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) and value else None


class _Builder:
    def __init__(self, lines: TranscriptLines, path: Path | None) -> None:
        self.lines = lines
        self.path = path
        self.nodes: dict[str, Node] = {}
        self.alias: dict[str, str] = {}
        self.unknown: list[tuple[int, str]] = []
        self.notes: list[str] = []
        self.last_prompt_leaf: tuple[int, str] | None = None
        self.titles: dict[str, str] = {}
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.first_timestamp: str | None = None
        self.orphan_summaries: list[tuple[int, dict[str, Any]]] = []

    def resolve(self, uuid: str | None) -> str | None:
        seen = 0
        while uuid is not None and uuid in self.alias and seen < 64:
            uuid = self.alias[uuid]
            seen += 1
        return uuid

    def build(self) -> Transcript:
        duplicates = 0
        for line, obj in self.lines.objects:
            uuid = obj.get("uuid")
            if self.session_id is None:
                self.session_id = _str(obj, "sessionId")
            if self.cwd is None:
                self.cwd = _str(obj, "cwd")
            if self.first_timestamp is None:
                self.first_timestamp = _str(obj, "timestamp")
            if not isinstance(uuid, str) or not uuid:
                self._info_line(line, obj)
                continue
            if uuid in self.nodes or uuid in self.alias:
                duplicates += 1
                continue
            self._chain_line(line, uuid, obj)
        if duplicates:
            self.notes.append(f"{duplicates} line(s) repeated a uuid already read: the first was kept")
        self._link()
        self._chain_bookkeeping()
        leaf = self._leaf()
        name = self.titles.get(Line.CUSTOM_TITLE) or self.titles.get(Line.AI_TITLE) or self.titles.get(Line.SUMMARY)
        first_prompt = next(
            (t for n in self.nodes.values() if n.kind is NodeKind.USER
             and (t := " ".join(_text(_content(n.obj)).split()))), ""
        )
        return Transcript(
            path=self.path, session_id=self.session_id or (self.path.stem if self.path else "claude-code"),
            cwd=self.cwd or "", nodes=self.nodes, leaf=leaf, name=name, first_prompt=first_prompt,
            lines=self.lines, unknown=self.unknown, notes=self.notes, first_timestamp=self.first_timestamp,
        )

    def _info_line(self, line: int, obj: dict[str, Any]) -> None:
        kind = _type(obj)
        if kind == Line.LAST_PROMPT:
            leaf = _str(obj, "leafUuid")
            if leaf is not None:
                self.last_prompt_leaf = (line, leaf)
        elif kind == Line.SUMMARY and isinstance(obj.get("summary"), str):
            self.titles[Line.SUMMARY] = obj["summary"]
        elif kind == Line.AI_TITLE and isinstance(obj.get("aiTitle"), str):
            self.titles[Line.AI_TITLE] = obj["aiTitle"]
        elif kind == Line.CUSTOM_TITLE and isinstance(obj.get("customTitle"), str):
            self.titles[Line.CUSTOM_TITLE] = obj["customTitle"]
        elif kind not in _INFO_TYPES:
            self.unknown.append((line, str(kind)))

    def _chain_line(self, line: int, uuid: str, obj: dict[str, Any]) -> None:
        kind = _kind(obj)
        parent = obj.get("parentUuid")
        parent = parent if isinstance(parent, str) and parent else None
        if kind is None:  # a compact summary: merged into its boundary when it follows one
            boundary = self.nodes.get(self.resolve(parent) or "")
            if boundary is not None and boundary.kind is NodeKind.COMPACTION and boundary.summary is None:
                boundary.summary = obj
                self.alias[uuid] = boundary.uuid
                return
            kind = NodeKind.COMPACTION  # a summary without a boundary (older versions): a compaction itself
            self.nodes[uuid] = Node(uuid, kind, line, obj, parent, summary=obj)  # parent: raw until _link
            return
        if kind is NodeKind.ASSISTANT:
            message_id = _message_id(obj)
            target = self.nodes.get(self.resolve(parent) or "")
            if (message_id is not None and target is not None and target.kind is NodeKind.ASSISTANT
                    and _message_id(target.obj) == message_id):
                target.parts.append(obj)
                self.alias[uuid] = target.uuid
                return
        if kind is NodeKind.UNKNOWN:
            self.unknown.append((line, str(obj.get("type"))))
        # ``parent`` holds the raw parentUuid until _link resolves it
        self.nodes[uuid] = Node(uuid, kind, line, obj, parent, parts=[obj] if kind is NodeKind.ASSISTANT else [])

    def _link(self) -> None:
        nodes = self.nodes
        previous_main: str | None = None
        boundaries: list[tuple[Node, str | None]] = []
        missing = 0
        alias = self.alias
        for node in nodes.values():
            raw = node.parent  # the line's parentUuid, as read
            parent = self.resolve(raw) if raw in alias else raw
            if parent is not None and parent not in nodes:
                missing += 1
                parent = None
            if node.kind is NodeKind.COMPACTION and node.obj.get("subtype") == COMPACT_BOUNDARY:
                boundaries.append((node, previous_main))
            elif node.kind is NodeKind.SIDECHAIN:
                if parent is None or nodes[parent].kind is not NodeKind.SIDECHAIN:
                    parent = previous_main  # under the Task call that started it
                node.parent = parent
            else:
                if parent is None and raw is None and node.kind is NodeKind.COMPACTION and previous_main:
                    parent = previous_main  # an old-style summary root continues the conversation
                node.parent = parent
            if node.kind is not NodeKind.SIDECHAIN:
                previous_main = node.uuid
        if missing:
            self.notes.append(f"{missing} line(s) name a parent that is not in the file: shown as roots")
        for boundary, before in boundaries:
            logical = self.resolve(_str(boundary.obj, "logicalParentUuid"))
            chosen: str | None = None
            if logical is not None and logical in nodes and not self._descends_from(logical, boundary.uuid):
                chosen = logical
            else:
                if logical is not None:
                    why = "a later entry that descends from it" if logical in nodes else "an entry not in the file"
                    self.notes.append(
                        f"line {boundary.line}: the compact boundary's logicalParentUuid names {why}; "
                        "it follows the line written before it instead"
                    )
                if before is not None and not self._descends_from(before, boundary.uuid):
                    chosen = before
            boundary.parent = chosen
        self._break_cycles()

    def _chain_bookkeeping(self) -> None:
        """A childless meta line (a hook's attachment, a turn's duration) written beside the lines
        that continue the conversation takes them as its children: Claude Code hangs such notes on
        the line before, and left as siblings they would read as rewinds (a false "‹ 1/2 ›" at every
        turn). Nothing moves across a real branch: siblings written *before* the note stay where they
        are, and a note is never made the parent of a subagent's lines. Custom entries weigh nothing in
        the context, so what the model reads is unchanged."""
        nodes = self.nodes
        children: dict[str, list[Node]] = {}
        for node in nodes.values():
            if node.parent is not None:
                children.setdefault(node.parent, []).append(node)
        for note in list(nodes.values()):
            if note.kind is not NodeKind.META or note.parent is None or note.uuid in children:
                continue
            siblings = children[note.parent]
            later = [c for c in siblings if c.line > note.line and c.kind is not NodeKind.SIDECHAIN]
            if not later:
                continue
            for child in later:
                child.parent = note.uuid
            children[note.parent] = [c for c in siblings if c.line <= note.line or c.kind is NodeKind.SIDECHAIN]
            children[note.uuid] = later

    def _descends_from(self, uuid: str, ancestor: str) -> bool:
        seen: set[str] = set()
        current: str | None = uuid
        while current is not None and current not in seen:
            if current == ancestor:
                return True
            seen.add(current)
            node = self.nodes.get(current)
            current = node.parent if node is not None else None
        return False

    def _break_cycles(self) -> None:
        done: set[str] = set()
        nodes = self.nodes
        for start, node in nodes.items():
            if node.parent is None or node.parent in done:  # the usual case: the parent came first
                done.add(start)
                continue
            path: list[str] = []
            on_path: set[str] = set()
            current: str | None = start
            while current is not None and current not in done:
                if current in on_path:
                    self.nodes[current].parent = None
                    self.notes.append(f"a cycle in parentUuid was broken at {current}")
                    break
                on_path.add(current)
                path.append(current)
                current = self.nodes[current].parent
            done.update(path)

    def _leaf(self) -> str | None:
        main = [n for n in self.nodes.values() if n.kind is not NodeKind.SIDECHAIN]
        if not main:
            return None
        start: str | None = None
        if self.last_prompt_leaf is not None:
            line, named = self.last_prompt_leaf
            resolved = self.resolve(named)
            node = self.nodes.get(resolved or "")
            if node is not None and node.kind is not NodeKind.SIDECHAIN:
                start = node.uuid
            else:
                self.notes.append(f"line {line}: last-prompt names {named}, which is not in the file; "
                                  "the last line of the conversation is the leaf")
        if start is None:
            start = main[-1].uuid
        children: dict[str, str] = {}
        for node in main:  # file order: the newest child wins
            if node.parent is not None:
                children[node.parent] = node.uuid
        seen = {start}
        while start in children and children[start] not in seen:
            start = children[start]
            seen.add(start)
        return start


def build_transcript(lines: TranscriptLines, path: str | Path | None = None) -> Transcript:
    """The tree of the parsed lines (see the module's rules)."""
    return _Builder(lines, Path(path) if path is not None else None).build()
