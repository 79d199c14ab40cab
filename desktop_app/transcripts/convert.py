"""A Claude Code transcript as pi v3 entries (the mapping of ``claude-code-format.md`` §6).

The same entries serve the read-only view in the window and ``arbor import`` / "Continue in
Arbor", so what a person audits is exactly what pi will continue from:

- user and assistant lines → pi ``message`` entries, keeping the transcript's uuids as entry ids
  (unique, and a reader can find the source line); a merged assistant turn → one message with every
  block (``text``, ``thinking`` with its signature, ``tool_use`` → ``toolCall``), the model, usage
  and stop reason;
- each ``tool_result`` block → its own ``toolResult`` message (pi has one per call), the tool's name
  taken from the matching ``tool_use``; text or images left over on that line → a user message after;
- a compact boundary (with its summary) → a ``compaction`` entry whose ``firstKeptEntryId`` is the
  first message after it: Claude Code re-sends nothing from before the boundary except the summary,
  so pi's context at any later entry starts with the summary. ``fromHook: true`` (the summary was not
  written by pi) and ``details.source: "claude-code"`` with the boundary's metadata;
- a user line marked ``isMeta`` (a slash command's expanded prompt, a caveat: Claude Code sends it
  to the model without showing it) → a ``custom_message`` with ``display: false``, which pi sends and
  does not show, so a continued conversation reads what Claude Code's did;
- sidechain, meta (``system`` notes, attachments, progress) and unknown lines → ``custom`` entries
  (never sent to the model, kept whole);
- the active leaf is written last (pi's leaf is the last entry in the file), then the title as a
  ``session_info`` entry under it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from desktop_app.session.entries import (
    Entry,
    make_compaction_entry,
    make_custom_entry,
    make_custom_message_entry,
    make_header,
    make_message_entry,
    make_session_info_entry,
    parse_date_ms,
)
from desktop_app.session.kinds import BlockKind, EntryKind, block_kind, kind_of

from .model import Node, NodeKind, Transcript
from .wire import Block

__all__ = ["Conversion", "convert", "conversion_order", "CUSTOM_PREFIX"]

CUSTOM_PREFIX = "claude-code"
SIDECHAIN_TYPE = f"{CUSTOM_PREFIX}.sidechain"
HIDDEN_PROMPT_TYPE = f"{CUSTOM_PREFIX}.hidden-prompt"
_STOP_REASONS = {"tool_use": "toolUse", "end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                 "refusal": "stop", "pause_turn": "stop"}
_EPOCH = "1970-01-01T00:00:00.000Z"
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS = timedelta(milliseconds=1)


@dataclass
class Conversion:
    """The header and entries (file order, leaf last) of a transcript, and what was left out."""

    header: Entry
    entries: list[Entry]
    leaf_id: str | None
    dropped_blocks: int = 0
    """Content blocks of a kind pi has no place for (server tools, ...): counted, not sent."""


def _image(block: dict[str, Any]) -> dict[str, Any] | None:
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64" and isinstance(source.get("data"), str):
        return {"type": "image", "data": source["data"], "mimeType": str(source.get("media_type") or "image/png")}
    return None


class _Converter:
    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self.entries: list[Entry] = []
        self.tail: dict[str, str] = {}  # node uuid → the id of the last entry made for it
        self.tool_names: dict[str, str] = {}
        self.dropped = 0
        self.last_timestamp = transcript.first_timestamp or _EPOCH
        self.unchecked: list[str] = []  # the timestamps of nodes passed over (``only=``), oldest first

    def timestamp(self, obj: dict[str, Any]) -> tuple[str, int]:
        value = obj.get("timestamp")
        if isinstance(value, str) and (ms := _date_ms(value)) is not None:
            self.last_timestamp = value
            self.unchecked.clear()
            return value, ms
        self._check_passed_over()
        return self.last_timestamp, _date_ms(self.last_timestamp) or 0

    def _check_passed_over(self) -> None:
        """The newest valid timestamp of the nodes passed over since the last converted one (read
        only when needed: parsing 30,000 timestamps nobody reads was a third of a first picture's
        conversion)."""
        for value in reversed(self.unchecked):
            if _date_ms(value) is not None:
                self.last_timestamp = value
                break
        self.unchecked.clear()

    def parent_of(self, node: Node) -> str | None:
        return self.tail.get(node.parent) if node.parent is not None else None

    def run(self, order: list[Node] | None = None, only: Collection[str] | None = None) -> Conversion:
        order = self._order() if order is None else order
        if only is None:
            for node in order:  # parents first: a tool call is read before its result
                self._node(node)
        else:
            self._convert_only(order, only)
            self._check_passed_over()
        self._first_kept()
        leaf = self.tail.get(self.t.leaf) if self.t.leaf is not None else None
        self._leaf_last(leaf)
        if self.t.name and leaf is not None:
            name = " ".join(self.t.name.split())
            info_id = f"{leaf}-title"
            self.entries.append(make_session_info_entry(info_id, leaf, self.last_timestamp, name))
        header = make_header(self.t.session_id, self.t.cwd or "/", self.t.first_timestamp or _EPOCH)
        return Conversion(header, self.entries, leaf, self.dropped)

    def _convert_only(self, order: list[Node], only: Collection[str]) -> None:
        """Entries for the nodes in ``only``, each exactly as the whole conversion makes it: the nodes
        passed over still move on what later entries read (the last timestamp, the tool names), and
        a chosen node's parent is converted and dropped, for the id its entry hangs under."""
        wanted_parents = {node.parent for node in order if node.parent is not None and node.uuid in only}
        entries = self.entries
        for node in order:
            if node.uuid in only:
                self._node(node)
            elif node.uuid in wanted_parents:
                mark = len(entries)
                self._node(node)
                del entries[mark:]
            else:
                if isinstance(value := node.obj.get("timestamp"), str):  # every conversion reads it first
                    self.unchecked.append(value)
                if node.kind is NodeKind.ASSISTANT:
                    self._note_tool_names(node)

    def _note_tool_names(self, node: Node) -> None:
        for part in node.parts:
            message = part.get("message")
            blocks = message.get("content") if isinstance(message, dict) else None
            for block in blocks if isinstance(blocks, list) else ():
                if isinstance(block, dict) and block.get("type") == Block.TOOL_USE:
                    self.tool_names[str(block.get("id") or "")] = str(block.get("name") or "")

    def _order(self) -> list[Node]:
        """File order, except that a node waits for its parent (a boundary may hang under a later line)."""
        nodes = self.t.nodes
        order: list[Node] = []
        placed: set[str] = set()
        waiting: dict[str, list[Node]] = {}
        for node in nodes.values():  # file order (the model keeps it)
            parent = node.parent
            if parent is not None and parent not in placed and parent in nodes:
                waiting.setdefault(parent, []).append(node)
                continue
            placed.add(node.uuid)
            order.append(node)
            if waiting and node.uuid in waiting:
                self._place_waiting(node.uuid, order, placed, waiting)
        for group in list(waiting.values()):  # only under a cycle, which the model breaks
            for node in group:
                if node.uuid not in placed:
                    placed.add(node.uuid)
                    order.append(node)
                    self._place_waiting(node.uuid, order, placed, waiting)
        return order

    @staticmethod
    def _place_waiting(uuid: str, order: list[Node], placed: set[str], waiting: dict[str, list[Node]]) -> None:
        """Place the nodes that waited for ``uuid`` (and theirs), depth first, in file order."""
        todo = list(reversed(waiting.pop(uuid, [])))
        while todo:
            current = todo.pop()
            if current.uuid in placed:
                continue
            placed.add(current.uuid)
            order.append(current)
            todo.extend(reversed(waiting.pop(current.uuid, [])))

    def _node(self, node: Node) -> None:
        parent = self.parent_of(node)
        match node.kind:
            case NodeKind.USER:
                self._user(node, parent)
            case NodeKind.ASSISTANT:
                self._assistant(node, parent)
            case NodeKind.COMPACTION:
                self._compaction(node, parent)
            case NodeKind.HIDDEN_PROMPT:
                self._hidden_prompt(node, parent)
            case NodeKind.META | NodeKind.SIDECHAIN | NodeKind.UNKNOWN:
                ts, _ = self.timestamp(node.obj)
                kind = node.kind.value
                self._add(node, make_custom_entry(node.uuid, parent, ts, f"{CUSTOM_PREFIX}.{kind}", node.obj))

    def _add(self, node: Node, entry: Entry) -> None:
        self.entries.append(entry)
        self.tail[node.uuid] = entry["id"]

    def _user(self, node: Node, parent: str | None) -> None:
        ts, ms = self.timestamp(node.obj)
        message = node.obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            self._add(node, make_message_entry(node.uuid, parent, ts, {"role": "user", "content": content,
                                                                       "timestamp": ms}))
            return
        blocks = content if isinstance(content, list) else []
        made = 0
        rest: list[dict[str, Any]] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == Block.TOOL_RESULT:
                call_id = str(block.get("tool_use_id") or "")
                result = {"role": "toolResult", "toolCallId": call_id, "toolName": self.tool_names.get(call_id, ""),
                          "content": self._result_content(block.get("content")),
                          "isError": block.get("is_error") is True, "timestamp": ms}
                entry_id = node.uuid if made == 0 else f"{node.uuid}-{made}"
                self._add(node, make_message_entry(entry_id, parent, ts, result))
                parent = entry_id
                made += 1
            elif block.get("type") == Block.TEXT and isinstance(block.get("text"), str):
                rest.append({"type": "text", "text": block["text"]})
            elif block.get("type") == Block.IMAGE and (image := _image(block)) is not None:
                rest.append(image)
            else:
                self.dropped += 1
        if rest or made == 0:
            entry_id = node.uuid if made == 0 else f"{node.uuid}-{made}"
            self._add(node, make_message_entry(entry_id, parent, ts, {"role": "user", "content": rest,
                                                                      "timestamp": ms}))

    def _hidden_prompt(self, node: Node, parent: str | None) -> None:
        """An ``isMeta`` user line: a pi ``custom_message`` with ``display: false`` — sent to the model
        (as Claude Code sent it), not shown as a message of the person's."""
        ts, _ = self.timestamp(node.obj)
        message = node.obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        body: str | list[dict[str, Any]] = content if isinstance(content, str) else self._result_content(content)
        self._add(node, make_custom_message_entry(node.uuid, parent, ts, HIDDEN_PROMPT_TYPE, body, False))

    def _result_content(self, content: Any) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        out: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == Block.TEXT and isinstance(block.get("text"), str):
                out.append({"type": "text", "text": block["text"]})
            elif block.get("type") == Block.IMAGE and (image := _image(block)) is not None:
                out.append(image)
            else:
                self.dropped += 1
        return out

    def _assistant(self, node: Node, parent: str | None) -> None:
        ts, ms = self.timestamp(node.obj)
        content: list[dict[str, Any]] = []
        model = ""
        usage: dict[str, Any] = {}
        stop: Any = None
        error = False
        for part in node.parts:  # one line per block of the turn: the loop every open runs 10,000s of times
            message = part.get("message")
            if not isinstance(message, dict):
                continue
            if value := message.get("model"):
                model = str(value)
            if isinstance(value := message.get("usage"), dict):
                usage = value
            if value := message.get("stop_reason"):
                stop = value
            if part.get("isApiErrorMessage") is True:
                error = True
            blocks = message.get("content")
            if isinstance(blocks, str):
                content.append({"type": "text", "text": blocks})
                continue
            for block in blocks if isinstance(blocks, list) else ():
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == Block.TEXT and isinstance(text := block.get("text"), str):
                    content.append({"type": "text", "text": text})
                elif kind == Block.THINKING:
                    thinking: dict[str, Any] = {"type": "thinking", "thinking": str(block.get("thinking") or "")}
                    if isinstance(block.get("signature"), str):
                        thinking["thinkingSignature"] = block["signature"]
                    content.append(thinking)
                elif kind == Block.REDACTED_THINKING:
                    content.append({"type": "thinking", "thinking": "", "thinkingSignature": str(block.get("data") or ""),
                                    "redacted": True})
                elif kind == Block.TOOL_USE:
                    arguments = block.get("input")
                    call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
                    self.tool_names[call_id] = name
                    content.append({"type": "toolCall", "id": call_id, "name": name,
                                    "arguments": arguments if isinstance(arguments, dict) else {}})
                else:
                    self.dropped += 1
        message_out = _assistant_message(content, model, usage, stop, error, ms)
        self._add(node, make_message_entry(node.uuid, parent, ts, message_out))

    def _compaction(self, node: Node, parent: str | None) -> None:
        ts, _ = self.timestamp(node.obj)
        summary_line = node.summary
        summary = ""
        if summary_line is not None:
            message = summary_line.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            summary = content if isinstance(content, str) else "\n".join(
                b["text"] for b in (content if isinstance(content, list) else []) if isinstance(b, dict) and isinstance(b.get("text"), str))
        if not summary:
            summary = "(Claude Code compacted the conversation here; the transcript holds no summary text.)"
        meta = node.obj.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        tokens = meta.get("preTokens")
        details: dict[str, Any] = {"readFiles": [], "modifiedFiles": [], "source": "claude-code"}
        for key in ("trigger", "preTokens", "postTokens", "durationMs"):
            if key in meta:
                details[key] = meta[key]
        entry = make_compaction_entry(node.uuid, parent, ts, summary, node.uuid,
                                      tokens if isinstance(tokens, int) else 0, details, from_hook=True)
        self._add(node, entry)

    def _first_kept(self) -> None:
        """Each compaction keeps from the first message after it (its own id when none follows)."""
        by_parent: dict[str | None, list[Entry]] = {}
        for entry in self.entries:
            by_parent.setdefault(entry.get("parentId"), []).append(entry)
        for entry in self.entries:
            if kind_of(entry) is not EntryKind.COMPACTION:
                continue
            current = entry
            seen = {entry["id"]}
            while True:
                children = [c for c in by_parent.get(current["id"], []) if c.get("customType") != SIDECHAIN_TYPE]
                if not children or children[0]["id"] in seen:
                    break
                current = children[0]
                seen.add(current["id"])
                if kind_of(current) is EntryKind.MESSAGE:
                    entry["firstKeptEntryId"] = current["id"]
                    break

    def _leaf_last(self, leaf: str | None) -> None:
        if leaf is None or not self.entries or self.entries[-1]["id"] == leaf:
            return
        index = next((i for i, e in enumerate(self.entries) if e["id"] == leaf), None)
        if index is not None:
            self.entries.append(self.entries.pop(index))


def _date_ms(text: str) -> int | None:
    """Epoch ms of an ISO time; Claude Code's own form (``2026-11-03T09:00:07.259Z``) the fast way
    (``datetime.fromisoformat``, ~10× :func:`parse_date_ms`, which is exact for every other form)."""
    if len(text) == 24 and text[23] == "Z" and text[10] == "T":
        try:
            if text[19] == ".":
                return (datetime.fromisoformat(text[:23] + "+00:00") - _EPOCH_UTC) // _ONE_MS
        except ValueError:
            pass
    return parse_date_ms(text)


def _assistant_message(content: list[dict[str, Any]], model: str, usage: dict[str, Any], stop: Any, error: bool,
                       ms: int) -> dict[str, Any]:
    """pi's assistant message for a turn's blocks and the API's model, usage and stop reason."""
    numbers = {key: value if isinstance(value := usage.get(key), int) else 0
               for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")}
    pi_usage = {
        "input": numbers["input_tokens"], "output": numbers["output_tokens"],
        "cacheRead": numbers["cache_read_input_tokens"], "cacheWrite": numbers["cache_creation_input_tokens"],
        "totalTokens": sum(numbers.values()),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    if error:
        reason = "error"
    elif isinstance(stop, str) and stop in _STOP_REASONS:
        reason = _STOP_REASONS[stop]
    else:
        reason = "toolUse" if content and block_kind(content[-1]) is BlockKind.TOOL_CALL else "stop"
    message_out: dict[str, Any] = {"role": "assistant", "content": content, "api": "anthropic-messages",
                                   "provider": "anthropic", "model": model, "usage": pi_usage,
                                   "stopReason": reason}
    if error:
        message_out["errorMessage"] = " ".join(b["text"] for b in content if block_kind(b) is BlockKind.TEXT) or "API error"
    message_out["timestamp"] = ms
    return message_out


def convert(transcript: Transcript, *, only: Collection[str] | None = None,
            order: list[Node] | None = None) -> Conversion:
    """The pi v3 header and entries for ``transcript`` (see the module's mapping).

    ``only``: just the entries of those nodes (uuids), each exactly as the whole conversion makes it
    (the first picture's, :mod:`.first_picture`); ``dropped_blocks`` then counts theirs only.
    ``order``: :func:`conversion_order`'s, when the caller has it already."""
    return _Converter(transcript).run(order, only)


def conversion_order(transcript: Transcript) -> list[Node]:
    """The nodes in the order they are converted: file order, a node after its parent."""
    return _Converter(transcript)._order()
