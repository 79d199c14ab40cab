"""The find bar's rules without Qt: all text searched, hits per entry in list order (inside folds
too), "2 of 4", wrap both ways, the current hit kept when its fold opens."""

from __future__ import annotations

from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.navigation import visible_order
from desktop_app.present.search import GraphSearch, find_text
from desktop_app.present.viewgraph import SegmentKey

from .builders import index_of, msg, other


def _session() -> list[dict[str, object]]:
    long_result = "x" * 500 + " needle in a long tool result"
    entries = [
        msg("u1", None, "user", "start the work"),
        msg("a1", "u1", "assistant", "reading"),
        msg("t1", "a1", "toolResult", long_result, call="c1"),
        msg("a2", "t1", "assistant", "more needle here"),
        msg("u2", "a2", "user", "go on"),
        msg("a3", "u2", "assistant", "fine"),
        other(
            "compaction", "c1", "a3", summary="## Goal\nthe needle was found", firstKeptEntryId="u2",
            tokensBefore=1000, details={"readFiles": ["src/needle.py"], "modifiedFiles": []},
        ),
        msg("u3", "c1", "user", "thanks"),
        msg("a4", "u3", "assistant", "welcome"),
        other("label", "l1", "a4", targetId="u3", label="needle label"),
    ]
    thinking = msg("a5", "a4", "assistant", "")
    thinking["message"]["content"] = [{"type": "thinking", "thinking": "a needle of thought"}]  # type: ignore[index]
    return [*entries, thinking]


def test_find_text_holds_all_of_an_entrys_text() -> None:
    entries = {e["id"]: e for e in _session()}
    assert "needle in a long tool result" in find_text(entries["t1"])  # beyond pi's 200 characters
    assert "the needle was found" in find_text(entries["c1"])  # the compaction summary
    assert "src/needle.py" in find_text(entries["c1"])  # and its file lists
    assert "needle label" in find_text(entries["u3"], "needle label")
    assert "needle of thought" in find_text(entries["a5"])


def test_hits_are_entries_in_list_order_inside_folds_too() -> None:
    index = index_of(_session())
    model = ViewGraphModel(index, "a5", "default", folding=True)
    order = visible_order(model.graph)
    search = GraphSearch()
    assert search.set_query("NEEDLE", model.graph, order, index) == 5  # the label entry is filtered out
    assert [entry for _, entry in search.hits] == ["t1", "a2", "c1", "u3", "a5"]
    folded = [node for node, entry in search.hits if entry in ("t1", "a2")]
    assert folded and all(isinstance(node, SegmentKey) for node in folded)
    assert search.matches.count(folded[0]) == 1  # a fold with two hits is highlighted once
    assert search.status() == "5 matches"
    assert search.step(1) == folded[0] and search.current_entry == "t1" and search.status() == "1 of 5"
    search.step(1)
    assert search.current_entry == "a2" and search.status() == "2 of 5"
    search.step(-1)
    search.step(-1)
    assert search.status() == "5 of 5"  # wrapped backwards


def test_the_current_hit_follows_its_entry_when_its_fold_opens() -> None:
    index = index_of(_session())
    model = ViewGraphModel(index, "a5", "default", folding=True)
    search = GraphSearch()
    search.set_query("needle", model.graph, visible_order(model.graph), index)
    search.step(1)
    search.step(1)
    node = search.current_node
    assert isinstance(node, SegmentKey) and search.current_entry == "a2"
    model.expand(node)
    search.rematch(model.graph, visible_order(model.graph), index)
    assert search.current_entry == "a2" and search.current_node == "a2" and search.status() == "2 of 5"


def test_status_words() -> None:
    index = index_of(_session())
    model = ViewGraphModel(index, "a5", "default", folding=False)
    search = GraphSearch()
    assert search.status() == ""
    search.set_query("zzz nothing", model.graph, visible_order(model.graph), index)
    assert search.status() == "No matches" and search.step(1) is None
    search.set_query("welcome", model.graph, visible_order(model.graph), index)
    assert search.status() == "1 match"
