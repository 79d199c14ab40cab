"""The ``arbor inspect`` document: the engine's answers for one session file, in pi's conformance schema.

The document has the shape of ``conformance/*.expected.json`` (DESIGN.md §5) so that a case passes
when Arbor's document equals pi's after resolving message refs. The file itself is never written:
``open`` runs on a private copy, which also tells honestly whether opening would rewrite it.

One key is Arbor's own: ``malformed_lines``, the line numbers opening the file leaves out as
unreadable (not JSON, not an object, nested deeper than Arbor reads), which pi drops without a word
and the window lists. Compared sections never include it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from desktop_app.compaction.report import MessageList, compaction_sections
from desktop_app.compaction.tokens import estimate_tokens
from desktop_app.llm.estimate import estimates_remembered
from desktop_app.session.context import (
    SessionContext,
    build_session_context,
    check_edits_as_pi,
    has_edit_without_replacement,
    message_from_entry,
)
from desktop_app.session.entries import Entry, is_header, parse_session_text, sequential_ids
from desktop_app.session.jsjson import js_same, js_string, js_stringify
from desktop_app.session.kinds import EntryKind, kind_of, message_of
from desktop_app.session.leaf_walk import LeafWalk
from desktop_app.session.manager import SessionError, SessionManager
from desktop_app.session.migrate import header_version, migrate_objects, needs_migration
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.session.store import SessionFileError
from desktop_app.session.tree import UNDEFINED, key_of

SCHEMA = "arbor-inspect/expected@1"
PI_NULL_LINE_ERROR = "TypeError: Cannot read properties of null (reading 'type')"


# ----------------------------------------------------------------------------------- refs


def _js_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def rle(indices: list[int]) -> list[Any]:
    """Run-length encode as the conformance files do: runs of 3+ become ``[first, last]``."""
    out: list[Any] = []
    i = 0
    while i < len(indices):
        j = i
        while j + 1 < len(indices) and indices[j + 1] == indices[j] + 1:
            j += 1
        if j - i >= 2:
            out.append([indices[i], indices[j]])
        else:
            out.extend(indices[i : j + 1])
        i = j + 1
    return out


def rle_append(encoded: list[Any], index: int) -> list[Any]:
    """``rle(indices + [index])`` from ``encoded == rle(indices)`` (a new list), without decoding:
    runs are maximal, so only the last one or two items can join the new index."""
    out = list(encoded)
    last = out[-1] if out else None
    if isinstance(last, list) and last[1] + 1 == index:
        out[-1] = [last[0], index]
    elif isinstance(last, int) and last + 1 == index and len(out) >= 2 and isinstance(out[-2], int) and out[-2] == last - 1:
        out[-2:] = [[last - 1, index]]
    else:
        out.append(index)
    return out


class MessageTable:
    """Distinct messages: entry messages by identity (``{"$entry": k}``), synthesized ones by value."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.items: list[Any] = []
        self.messages: list[Any] = []
        self._by_identity: dict[int, int] = {}
        self._by_value: dict[str, int] = {}
        self._seen: list[Any] = []
        for k, entry in enumerate(entries):
            if not isinstance(entry.get("id"), str):  # never visited by pi's harness, so never in its table
                continue
            message = message_of(entry)
            if message is not None and id(message) not in self._by_identity:
                self._by_identity[id(message)] = self._push({"$entry": k}, message)

    def _push(self, item: Any, message: Any) -> int:
        self.items.append(item)
        self.messages.append(message)
        return len(self.items) - 1

    def ref(self, message: Any) -> int:
        found = self._by_identity.get(id(message))
        if found is not None:
            return found
        key = js_stringify(message)
        found = self._by_value.get(key)
        if found is None:
            found = self._by_value[key] = self._push(message, message)
        # The contexts of a path share their synthesized messages (a summary, a custom message):
        # each object is written out once. Kept alive so that its id is never another object's.
        self._by_identity[id(message)] = found
        self._seen.append(message)
        return found

    def refs(self, messages: list[Any]) -> list[Any]:
        return rle([self.ref(m) for m in messages])


class EncodedRefs(list[Any]):
    """Messages already encoded as refs into the message table (left as they are)."""


def _encode_message_lists(value: Any, table: MessageTable) -> Any:
    if isinstance(value, MessageList):
        return table.refs(list(value))
    if isinstance(value, EncodedRefs):
        return list(value)
    # (only containers are visited: the compaction sections hold long lists of ids and indices)
    if isinstance(value, dict):
        return {k: _encode_message_lists(v, table) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_encode_message_lists(v, table) if isinstance(v, (dict, list)) else v for v in value]
    return value


# ----------------------------------------------------------------------------------- sections


def _digest(data: bytes) -> dict[str, Any]:
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _parse_section(text: str, sequential: bool) -> tuple[dict[str, Any], list[Any]]:
    objects = parse_session_text(text).objects
    version = header_version(objects)
    section: dict[str, Any] = {
        "count": len(objects),
        "header_found": any(is_header(o) for o in objects),
        "version_before": version,
        "migration_applied": needs_migration(objects),
    }
    if any(o is None for o in objects) and section["migration_applied"]:
        section["migrate_error"] = PI_NULL_LINE_ERROR
        return section, objects
    with sequential_ids() if sequential else nullcontext():
        migrate_objects(objects)
    return section, objects


def _open_section(manager: SessionManager, rewrote: bool, after: bytes | None) -> dict[str, Any]:
    section: dict[str, Any] = {"rewrote_file": rewrote}
    if rewrote and after is not None:
        section["file_after"] = _digest(after)
    section.update(
        header=manager.get_header(),
        header_regenerated=manager.report.header_regenerated,
        sessionId=manager.session_id,
        cwd=manager.cwd,
        leafId=manager.leaf_id,
        sessionName=manager.get_session_name(),
        entry_count=len(manager.index.entries),
    )
    return section


def _tree_section(manager: SessionManager) -> dict[str, Any]:
    roots = manager.get_tree()
    children: dict[str, list[Any]] = {}
    labels: dict[str, Any] = {}
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        node_id = _js_key(node.entry, "id")
        if node.children:
            children[node_id] = [c.entry.get("id") for c in node.children]
            stack.extend(node.children)
        if node.label is not None:
            label: dict[str, Any] = {"label": node.label}
            if node.label_timestamp is not None:
                label["labelTimestamp"] = node.label_timestamp
            labels[node_id] = label
    return {
        "roots": [r.entry.get("id") for r in roots],
        "children": children,
        "labels": labels,
        "node_count": len(seen),
    }


def _context_json(context: SessionContext) -> dict[str, Any]:
    return {**context.to_json(), "messages": MessageList(context.messages)}


def _edit_error(manager: SessionManager, leaf_id: Any, odd_edits: bool) -> dict[str, Any] | None:
    """``{"error"}`` where pi 1.6.0 throws building the context at ``leaf_id`` (an edit without
    ``replacement`` on an editable message), else ``None``. ``leaf_id`` as ``buildSessionContext``
    takes it: ``None`` is no leaf, an unknown id or ``UNDEFINED`` the last entry."""
    index = manager.index
    if not odd_edits or leaf_id is None or not index.entries:
        return None
    leaf = index.by_id.get(key_of(leaf_id)) if leaf_id is not UNDEFINED else None
    try:
        check_edits_as_pi(index.path_to(leaf if leaf is not None else index.entries[-1]), manager.profile)
    except TypeError as exc:
        return {"error": _js_error(exc)}
    return None


def _js_key(entry: dict[str, Any], key: str) -> str:
    """``String(entry[key])`` as a JS object key: ``"undefined"`` when the entry has no such key."""
    return js_string(entry[key]) if key in entry else "undefined"


def build_report(path: str | Path, sequential_ids_: bool = False, profile: PiProfile = PI_1_6_0) -> dict[str, Any]:
    """Every section for ``path`` as pi ``profile.version`` answers; raises ``OSError`` only when the
    file cannot be read at all."""
    source = Path(path)
    data = source.read_bytes()
    doc = _head(source, data, profile)
    parse, parsed_objects = _parse_section(data.decode("utf-8", errors="replace"), sequential_ids_)
    doc["parse"] = parse
    manager, after = _open_copy(source, sequential_ids_, profile)

    if not profile.null_lines_skipped and any(o is None for o in parsed_objects):
        # pi's open() throws on a `null` line (it reads `.type` of every entry); Arbor opens such a
        # file read-only, but the report gives pi's answer.
        parse["entries"] = parsed_objects
        doc["open"] = {"error": PI_NULL_LINE_ERROR, "rewrote_file": False}
        doc["malformed_lines"] = manager.report.malformed_lines
        return doc

    doc["open"] = _open_section(manager, after != data, after)
    doc["malformed_lines"] = manager.report.malformed_lines
    doc["nondeterministic"].extend(_nondeterministic(manager, parse, sequential_ids_))
    _compare_parse_with_open(parse, parsed_objects, manager)

    entries = manager.index.entries
    doc["entries"] = entries
    table = MessageTable(entries)
    with estimates_remembered():  # the compaction sections estimate the same messages many times
        # The order of the sections is the order messages enter the table (their refs' numbers).
        sections = _session_sections(manager, table, profile)
        sections.update(_guarded_compaction_sections(manager, sections["leaves"]))

        encoded = _encode_message_lists(sections, table)
        doc["message_table"] = table.items
        doc["message_tokens"] = [_message_tokens(m, profile) for m in table.messages]
    for key in _SECTION_KEYS:
        if key in encoded:
            doc[key] = encoded[key]
    return doc


_SECTION_KEYS = (
    "entry_message",
    "entry_file_ops",
    "tree",
    "labels",
    "contexts",
    "context_special",
    "branches",
    "leaves",
    "leaf_stats",
    "compaction",
    "branch_summary",
    "serialize",
)
"""The sections of the document, in pi's order (after ``message_table`` and ``message_tokens``)."""

_COMPACTION_SECTION_KEYS = ("entry_file_ops", "leaf_stats", "compaction", "branch_summary", "serialize")


def _head(source: Path, data: bytes, profile: PiProfile) -> dict[str, Any]:
    """The document's first keys: what it is, for which pi, of which bytes."""
    return {
        "schema": SCHEMA,
        "pi_version": profile.version,
        "case": source.name.removesuffix(".jsonl"),
        "source": {**_digest(data), "newlines": data.count(b"\n")},
        "nondeterministic": [],
    }


def _open_copy(source: Path, sequential: bool, profile: PiProfile) -> tuple[SessionManager, bytes]:
    """Open a private copy of the file (never the file itself) and the copy's bytes after opening,
    which tell whether opening would have rewritten it."""
    with tempfile.TemporaryDirectory(prefix="arbor-inspect-") as tmp:
        copy = Path(tmp) / source.name
        shutil.copyfile(source, copy)
        with sequential_ids() if sequential else nullcontext():
            manager = SessionManager.open(copy, fsync=False, profile=profile)
        return manager, copy.read_bytes()


def _nondeterministic(manager: SessionManager, parse: dict[str, Any], sequential: bool) -> list[dict[str, Any]]:
    """What differs between runs (and from pi) by design: a new header, ids made by migration."""
    notes: list[dict[str, Any]] = []
    if manager.report.header_regenerated:
        notes.append(
            {
                "what": "new session header",
                "where": ["open.header.id", "open.header.timestamp", "open.header.cwd", "open.sessionId", "open.cwd"],
                "why": "the file has no valid session header; Arbor presents a new header and never "
                "overwrites the file (pi does)",
            }
        )
    if parse["migration_applied"] and not sequential:
        notes.append({"what": "generated ids", "where": ["entries"], "why": "migration from v1 creates random ids"})
    return notes


def _compare_parse_with_open(parse: dict[str, Any], parsed_objects: list[Any], manager: SessionManager) -> None:
    """``parse.same_as_open``, and the parsed entries when they differ from what opening gave."""
    # pi keeps repeated header lines in its entry list; Arbor's index skips them, as getEntries does.
    first_header_and_entries = [o for k, o in enumerate(parsed_objects) if k == 0 or not is_header(o)]
    same = js_same(first_header_and_entries, [manager.get_header(), *manager.index.entries])
    parse["same_as_open"] = same
    if not same:
        parse["entries"] = parsed_objects


def _session_sections(manager: SessionManager, table: MessageTable, profile: PiProfile) -> dict[str, Any]:
    """The session engine's sections, from ``entry_message`` to ``leaves``, in the document's order."""
    entries = manager.index.entries
    with_ids = [e for e in entries if isinstance(e.get("id"), str)]  # pi's harness visits string ids only
    sections: dict[str, Any] = {"entry_message": _entry_message_section(with_ids, table)}
    sections["tree"] = _tree_section(manager)
    sections["labels"] = _labels_section(manager)
    sections.update(_context_sections(manager, with_ids, table, profile))
    sections["leaves"] = [leaf for leaf in manager.index.leaves() if isinstance(leaf, str)]  # as pi's harness
    return sections


def _entry_message_section(with_ids: list[Entry], table: MessageTable) -> dict[str, Any]:
    """Each entry's context message, as a ref into the message table."""
    entry_message: dict[str, Any] = {}
    for entry in with_ids:
        message = message_from_entry(entry)
        if message is not None:
            entry_message[js_string(entry.get("id"))] = table.ref(message)
    return entry_message


def _labels_section(manager: SessionManager) -> dict[str, Any]:
    """Each label entry's target and the label the index resolved for it."""
    labels = manager.index.labels
    return {
        _js_key(e, "targetId"): labels.get(key_of(e["targetId"]) if "targetId" in e else UNDEFINED)
        for e in manager.index.entries
        if kind_of(e) is EntryKind.LABEL
    }


def _context_sections(
    manager: SessionManager, with_ids: list[Entry], table: MessageTable, profile: PiProfile
) -> dict[str, Any]:
    """``contexts`` and ``branches`` at every entry, then ``context_special`` (the open leaf, no leaf,
    an undefined and an unknown one). Moves the manager's leaf and puts it back.

    Each entry's context and path grow from its parent's (:class:`LeafWalk`; a walk to the root per
    entry made a long session quadratic). They are what the manager answers with its leaf moved there:
    ``branch`` decides which ids can be a leaf, ``build_session_context`` and ``get_branch`` what it
    sees and which path it is on."""
    entries = manager.index.entries
    index = manager.index
    walk = LeafWalk(index, profile)
    open_leaf = manager.leaf_id
    contexts: dict[str, Any] = {}
    branches: dict[str, Any] = {}
    position = {id(e): k for k, e in enumerate(entries)}
    paths: dict[int, list[Any]] = {}  # id(entry) -> its path's positions, run-length encoded (plain paths)
    refs: dict[int, list[Any]] = {}  # id(context) -> its messages as table refs (the walk keeps the contexts)
    odd_edits = has_edit_without_replacement(entries)  # pi throws building some contexts (rare)
    for entry in with_ids:
        entry_id: Any = entry.get("id")  # pi takes any JSON value as an id
        name = js_string(entry_id)
        if name in contexts:
            continue
        try:
            manager.branch(entry_id)
        except (TypeError, SessionError) as exc:  # an id that is not a string cannot be a leaf
            contexts[name] = branches[name] = {"error": _js_error(exc)}
            continue
        contexts[name] = _edit_error(manager, entry_id, odd_edits) or _context_with_refs(walk, entry_id, table, refs)
        branches[name] = _branch_positions(manager, walk, entry_id, position, paths)
    if open_leaf is not None:
        manager.branch(open_leaf)
    else:
        manager.reset_leaf()
    special = {
        "open_leaf": _edit_error(manager, open_leaf, odd_edits) or _context_json(manager.build_session_context()),
        "null_leaf": _context_json(build_session_context(entries, None, manager.index, profile=profile)),
        "undefined_leaf": _edit_error(manager, UNDEFINED, odd_edits)
        or _context_json(build_session_context(entries, index=manager.index, profile=profile)),
        "unknown_leaf": _edit_error(manager, "no-such-id", odd_edits)
        or _context_json(build_session_context(entries, "no-such-id", manager.index, profile=profile)),
    }
    return {"contexts": contexts, "context_special": special, "branches": branches}


def _context_with_refs(walk: LeafWalk, entry_id: str, table: MessageTable, refs: dict[int, list[Any]]) -> dict[str, Any]:
    """The context at ``entry_id`` with its messages already as table refs, grown from the parent's
    refs where the walk grew the context (a context's refs were the other quadratic part).

    The refs are taken here, in the order of the ``contexts`` section, so the table numbers messages as
    encoding the document's sections in order would (no section before ``contexts`` has message lists)."""
    context = walk.context_at(entry_id)
    parent = walk.grown_from(entry_id)
    above = refs.get(id(parent)) if parent is not None else None
    if above is None or parent is None:
        encoded = table.refs(context.messages)
    elif context.messages is parent.messages:
        encoded = above
    else:
        encoded = rle_append(above, table.ref(context.messages[-1]))
    refs[id(context)] = encoded
    return {**context.to_json(), "messages": EncodedRefs(encoded)}


def _branch_positions(
    manager: SessionManager, walk: LeafWalk, entry_id: str, position: dict[int, int], paths: dict[int, list[Any]]
) -> list[Any]:
    """``get_branch(entry_id)`` as run-length encoded positions: the parent's and one more where the
    path is plain and the parent's is known, else the whole path."""
    leaf = manager.index.by_id.get(key_of(entry_id)) if entry_id else None
    if leaf is None:
        return rle([position[id(e)] for e in manager.get_branch(entry_id)])
    parent = walk.plain_parent(leaf)
    above = paths.get(id(parent)) if parent is not None else None
    if above is not None:
        encoded = rle_append(above, position[id(leaf)])
    else:
        encoded = rle([position[id(e)] for e in manager.get_branch(entry_id)])
    if walk.is_plain(leaf):
        paths[id(leaf)] = encoded
    return encoded


def _guarded_compaction_sections(manager: SessionManager, leaves: list[str]) -> dict[str, Any]:
    """The compaction engine's sections; each one the error where computing them all threw."""
    try:
        return compaction_sections(manager, leaves)
    except Exception as exc:  # noqa: BLE001 - pi's harness records a computation that threw, so do we
        failure = {"error": _js_error(exc)}
        return {name: failure for name in _COMPACTION_SECTION_KEYS}


def _message_tokens(message: Any, profile: PiProfile) -> Any:
    """``estimateTokens`` of one table message, or the error pi's harness records where it throws."""
    try:
        return estimate_tokens(message, profile)
    except Exception as exc:  # noqa: BLE001 - pi's harness records a throwing estimate in its place
        return {"error": _js_error(exc)}


def render(doc: dict[str, Any]) -> str:
    """The document as text: one item per line for the big arrays and maps, like pi's oracle."""
    lines = ["{"]
    keys = list(doc)
    for n, key in enumerate(keys):
        value = doc[key]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(value, list) and value and key in ("entries", "message_table"):
            inner = ",\n".join("  " + js_stringify(v) for v in value)
            lines.append(f" {js_stringify(key)}: [\n{inner}\n ]{comma}")
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"  {js_stringify(js_string(k))}: {js_stringify(v)}" for k, v in value.items())
            lines.append(f" {js_stringify(key)}: {{\n{inner}\n }}{comma}")
        else:
            lines.append(f" {js_stringify(key)}: {js_stringify(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(path: str, sequential: bool, profile: PiProfile = PI_1_6_0) -> int:
    """CLI entry: print the document; a file that cannot be read gives one line on stderr, exit 2."""

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SessionFileError("not a regular file")
        doc = build_report(path, sequential, profile)
    except (OSError, SessionFileError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"arbor inspect: cannot read {path}: {reason}", file=sys.stderr)
        return 2
    sys.stdout.write(render(doc))
    return 0
