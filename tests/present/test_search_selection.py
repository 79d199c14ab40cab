"""Find and selection (no Qt): pi's every-word rule, match order and wrap; the audit's own folds."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.navigation import visible_order
from desktop_app.present.preview import preview_html
from desktop_app.present.search import GraphSearch
from desktop_app.present.selection import Selection
from desktop_app.present.viewgraph import SegmentKey
from tests.present.builders import index_of, msg, other


def _chain(count: int) -> list[dict[str, object]]:
    entries = [msg("e0", None, "user", "start here")]
    for i in range(1, count):
        role = "assistant" if i % 2 else "user"
        entries.append(msg(f"e{i}", f"e{i - 1}", role, f"word{i} common"))
    return entries


def test_search_matches_every_word_in_visible_order_and_wraps() -> None:
    entries = _chain(8)
    index = index_of(entries)
    model = ViewGraphModel(index, "e7", "default", folding=False)
    search = GraphSearch()
    order = visible_order(model.graph)
    assert search.set_query("COMMON word3", model.graph, order, index) == 1
    assert search.set_query("common", model.graph, order, index) == 7
    assert search.matches == [f"e{i}" for i in range(1, 8)]
    assert search.step(1) == "e1" and search.step(-1) == "e7"  # wraps backwards
    assert search.current_node == "e7"
    assert search.set_query("nothing such", model.graph, order, index) == 0 and search.step(1) is None


def test_a_folded_segment_matches_once_for_any_of_its_entries() -> None:
    entries = _chain(12)
    index = index_of(entries)
    model = ViewGraphModel(index, "e11", "default", folding=True)
    search = GraphSearch()
    count = search.set_query("word5", model.graph, visible_order(model.graph), index)
    assert count == 1 and isinstance(search.matches[0], SegmentKey)


def test_a_label_becomes_searchable_after_the_texts_are_forgotten() -> None:
    entries = _chain(4)
    index = index_of(entries)
    model = ViewGraphModel(index, "e3", "default", folding=False)
    search = GraphSearch()
    order = visible_order(model.graph)
    assert search.set_query("milestone", model.graph, order, index) == 0
    label = other("label", "l1", "e3", targetId="e1", label="milestone")
    index.add(label)
    delta = model.add_entries([label], "e3")
    assert delta.texts_changed
    search.forget_texts()
    assert search.rematch(model.graph, visible_order(model.graph), index) == ["e1"]


@dataclass(frozen=True)
class _Audit:
    summarized_ids: tuple[str, ...]
    kept_ids: tuple[str, ...]


def _compacted() -> tuple[ViewGraphModel, list[dict[str, object]]]:
    entries = _chain(10)
    entries.append(other("compaction", "c1", "e9", summary="s", firstKeptEntryId="e6", tokensBefore=10))
    entries.append(msg("after", "c1", "user", "after"))
    return ViewGraphModel(index_of(entries), "after", "default", folding=True), entries


def test_selecting_a_compaction_unfolds_straddling_runs_and_folds_them_back() -> None:
    model, _ = _compacted()
    audit = _Audit(tuple(f"e{i}" for i in range(6)), ("e6", "e7", "e8", "e9"))
    selection: Selection[_Audit] = Selection(lambda _cid: audit)
    folded = set(model.graph)
    assert any(isinstance(n, SegmentKey) for n in folded)

    change = selection.select(model, "c1")
    assert change.audit is audit and change.audit_changed and change.nodes_changed
    assert all(model.graph.node_of[i] == i for i in ("e5", "e6"))  # the cut is between two own nodes
    assert selection.auto_expanded

    change = selection.select(model, None)
    assert change.audit is None and change.audit_changed and change.nodes_changed
    assert set(model.graph) == folded and not selection.auto_expanded


def test_an_unfolded_run_the_user_goes_into_stays_open() -> None:
    model, _ = _compacted()
    audit = _Audit(tuple(f"e{i}" for i in range(6)), ("e6", "e7", "e8", "e9"))
    selection: Selection[_Audit] = Selection(lambda _cid: audit)
    selection.select(model, "c1")
    opened = set(model.graph)
    change = selection.select(model, "e5")  # inside a run opened only for the audit
    assert change.audit is None and not change.nodes_changed
    assert set(model.graph) == opened and selection.node == "e5"


def test_plain_selection_touches_no_folds() -> None:
    model, _ = _compacted()
    selection: Selection[_Audit] = Selection(lambda _cid: _Audit((), ()))
    before = model.graph
    change = selection.select(model, "after")
    assert change.entry_id == "after" and change.kind == "user"
    assert not (change.audit_changed or change.nodes_changed or change.graph_changed)
    assert model.graph is before
    assert selection.select(model, "missing").node is None


def test_preview_names_kind_label_leaf_and_folds() -> None:
    model, entries = _compacted()
    index = index_of(entries)
    graph = model.graph
    html = preview_html(graph, "after", index)
    assert "<code>after</code>" in html and "current leaf" in html
    segment = next(n for n in graph if isinstance(n, SegmentKey))
    html = preview_html(graph, segment, index)
    assert f"{graph.nodes[segment].count} entries folded" in html and "unfold" in html
    assert preview_html(graph, "not-there", index) == ""
