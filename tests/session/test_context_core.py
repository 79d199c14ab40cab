"""The three context entry points share one core and agree (issue 8, item 5).

For random trees (every entry type that matters to the context, compactions whose kept range is or
is not on the path, cycles-free parent links in any order) and every leaf:

* ``build_session_context`` (walks leaf → root and stops early) equals
* ``context_from_path`` over the root → leaf path, equals
* ``extend_context`` applied entry by entry from the root (a full rebuild where it declines),
* ``LeafWalk.context_at`` (``arbor inspect``: each entry's context grown from its parent's), and
* ``SessionManager.build_session_context()`` after the same appends (its cache extends contexts);

and all say whether the path has a thinking-level change (``has_thinking_change``), with either pi
version's rules (pi 0.73.1 keeps system messages and ignores edits and checkpoints).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.session import SessionError, SessionManager
from desktop_app.session.context import (
    SessionContext,
    build_session_context,
    context_from_path,
    extend_context,
)
from desktop_app.session.leaf_walk import LeafWalk
from desktop_app.session.profile import PROFILES, PiProfile
from desktop_app.session.tree import SessionIndex

KINDS = (
    "user",
    "assistant",
    "assistant_bare",
    "bad_message",
    "thinking",
    "thinking_missing",
    "model",
    "compaction",
    "branch_summary",
    "branch_summary_empty",
    "custom_message",
    "custom",
    "label",
    # pi 1.6.0's additions
    "system",
    "edit_omit",
    "edit_text",
    "usage",
    "user_null",
    "compaction_checkpoint",
    # odd shapes pi 1.6.0 would not write
    "edit_odd",
    "compaction_odd_checkpoint",
)
ODD_REPLACEMENTS: tuple[Any, ...] = (5, "text", False, {})
ODD_CHECKPOINTS: tuple[Any, ...] = ("a forced prompt", True, [], "")
PROFILE = st.sampled_from([PROFILES[v] for v in sorted(PROFILES)])

SPECS = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(0, 1_000), st.integers(0, 1_000), st.integers(0, 3)),
    min_size=1,
    max_size=30,
)


def _entry(n: int, parent: str | None, kind: str, pick: int, ids: list[str], flavour: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": f"e{n}", "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    if kind == "user":
        entry.update(type="message", message={"role": "user", "content": f"u{n}", "timestamp": n})
    elif kind == "assistant":
        message = {"role": "assistant", "content": [], "timestamp": n, "provider": f"p{flavour}", "model": f"m{n}"}
        entry.update(type="message", message=message)
    elif kind == "assistant_bare":  # no provider / model keys
        entry.update(type="message", message={"role": "assistant", "content": [], "timestamp": n})
    elif kind == "bad_message":
        entry.update(type="message", message="not an object")
    elif kind == "thinking":
        entry.update(type="thinking_level_change", thinkingLevel=["low", "high", "off", "medium"][flavour])
    elif kind == "thinking_missing":
        entry.update(type="thinking_level_change")
    elif kind == "model":
        entry.update(type="model_change", provider=f"p{flavour}", modelId=f"m{n}")
    elif kind == "system":
        entry.update(type="message", message={"role": "system", "content": f"rule {n}", "timestamp": n})
    elif kind in ("edit_omit", "edit_text"):  # targets any earlier entry, on the path or not, editable or not
        replacement = None if kind == "edit_omit" else {"content": f"edited {n}"}
        entry.update(type="context_edit", targetId=ids[pick % len(ids)] if ids else "missing", replacement=replacement)
    elif kind == "edit_odd":  # a replacement of another shape, or none at all (flavour 3: no key)
        entry.update(type="context_edit", targetId=ids[pick % len(ids)] if ids else "missing")
        if flavour < 3:
            entry["replacement"] = ODD_REPLACEMENTS[pick % len(ODD_REPLACEMENTS)]
    elif kind == "compaction_odd_checkpoint":
        first_kept = ids[pick % len(ids)] if ids else "missing"
        checkpoint = ODD_CHECKPOINTS[flavour]
        entry.update(
            type="compaction", summary=f"s{n}", firstKeptEntryId=first_kept, tokensBefore=n, systemMessage=checkpoint
        )
    elif kind == "usage":
        entry.update(type="usage", kind="cache_warm", provider="p", model="m", usage={"input": n})
    elif kind == "user_null":
        entry.update(type="message", message={"role": "user", "content": None, "timestamp": n})
    elif kind == "compaction_checkpoint":
        first_kept = ids[pick % len(ids)] if ids else "missing"
        checkpoint = {"role": "system", "content": f"prompt {n}", "timestamp": n}
        entry.update(
            type="compaction", summary=f"s{n}", firstKeptEntryId=first_kept, tokensBefore=n, systemMessage=checkpoint
        )
    elif kind == "compaction":
        # the first kept entry: one of the existing ids (maybe off the path) or one that does not exist
        first_kept = ids[pick % len(ids)] if ids and flavour else "missing"
        entry.update(type="compaction", summary=f"s{n}", firstKeptEntryId=first_kept, tokensBefore=n)
    elif kind == "branch_summary":
        entry.update(type="branch_summary", fromId="root", summary=f"b{n}")
    elif kind == "branch_summary_empty":
        entry.update(type="branch_summary", fromId="root", summary="")
    elif kind == "custom_message":
        entry.update(type="custom_message", customType="x", content=f"c{n}", display=bool(flavour))
    elif kind == "custom":
        entry.update(type="custom", customType="x", data=n)
    else:
        entry.update(type="label", targetId=ids[pick % len(ids)] if ids else None, label="l")
    return entry


def _tree(specs: list[tuple[str, int, int, int]]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    ids: list[str] = []
    for n, (kind, parent_pick, pick, flavour) in enumerate(specs):
        # parent: the previous entry most of the time (long paths), else any earlier entry or none (a root)
        if not ids or parent_pick % 7 == 0:
            parent = None if parent_pick % 2 or not ids else ids[parent_pick % len(ids)]
        else:
            parent = ids[-1] if parent_pick % 3 else ids[parent_pick % len(ids)]
        entries.append(_entry(n, parent, kind, pick, ids, flavour))
        ids.append(f"e{n}")
    return entries


def _by_extension(path: list[dict[str, Any]], profile: PiProfile) -> SessionContext:
    context = SessionContext()
    for i, entry in enumerate(path):
        extended = extend_context(context, entry, profile=profile)
        context = extended if extended is not None else context_from_path(path[: i + 1], profile=profile)
    return context


@settings(max_examples=300, deadline=None)
@given(SPECS, PROFILE)
def test_the_three_entry_points_agree_at_every_leaf(specs: list[tuple[str, int, int, int]], profile: PiProfile) -> None:
    entries = _tree(specs)
    index = SessionIndex.build(entries)
    walk = LeafWalk(index, profile)  # every entry's context grown from its parent's, as `arbor inspect` asks
    for entry in entries:
        path = index.path_to(entry)
        from_path = context_from_path(path, profile=profile)
        expected = from_path.to_json()
        walking_up = build_session_context(entries, entry["id"], index, profile=profile)
        by_extension = _by_extension(path, profile)
        assert walking_up.to_json() == expected
        assert build_session_context(entries, entry["id"], profile=profile).to_json() == expected
        assert by_extension.to_json() == expected
        assert walk.context_at(entry["id"]).to_json() == expected
        has_change = any(e.get("type") == "thinking_level_change" for e in path)
        assert from_path.has_thinking_change is has_change
        assert walking_up.has_thinking_change is has_change
        assert by_extension.has_thinking_change is has_change


@settings(max_examples=150, deadline=None)
@given(SPECS, PROFILE)
def test_the_managers_cached_context_agrees_with_a_fresh_build(
    specs: list[tuple[str, int, int, int]], profile: PiProfile
) -> None:
    manager = SessionManager.in_memory("/p", profile=profile)
    ours: dict[str, str] = {}  # generated id -> the manager's id
    for entry in _tree(specs):
        manager.build_session_context()  # warm the cache, so that the next append may extend it
        parent = entry["parentId"]
        if parent is None:
            manager.reset_leaf()
        elif manager.leaf_id != ours[parent]:
            manager.branch(ours[parent])
        ours[entry["id"]] = _append_like(manager, entry, ours)
        fresh = build_session_context(manager.get_entries(), manager.leaf_id, profile=profile)
        cached = manager.build_session_context()
        assert cached.to_json() == fresh.to_json()
        assert cached.has_thinking_change is fresh.has_thinking_change


def _append_like(manager: SessionManager, entry: dict[str, Any], ours: dict[str, str]) -> str:
    """Append through the manager's public API an entry equivalent to the generated one."""
    kind = entry["type"]
    if kind == "message":
        return manager.append_message(entry["message"])
    if kind == "thinking_level_change":
        return manager.append_thinking_level_change(entry.get("thinkingLevel", "off"))
    if kind == "model_change":
        return manager.append_model_change(entry["provider"], entry["modelId"])
    if kind == "compaction":
        first_kept = ours.get(entry["firstKeptEntryId"], "missing")
        return manager.append_compaction(entry["summary"], first_kept, entry["tokensBefore"])
    if kind == "context_edit" and entry["targetId"] in ours:
        try:
            return manager.append_context_edit(ours[entry["targetId"]], entry.get("replacement", 0))
        except SessionError:  # pi refuses this target too (off the branch, not editable)
            pass
    if kind == "usage":
        return manager.append_usage("cache_warm", "p", "m", entry["usage"])
    if kind == "branch_summary":
        return manager.branch_with_summary(manager.leaf_id, entry["summary"])
    if kind == "custom_message":
        return manager.append_custom_message_entry("x", entry["content"], entry["display"])
    if kind == "label" and entry["targetId"] is not None:
        return manager.append_label_change(ours[entry["targetId"]], "l")
    return manager.append_custom_entry("x", entry.get("data"))
