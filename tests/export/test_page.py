"""The exported page and Markdown of a hand-made session (no Qt, no browser): everything the page
must hold is there, session text is escaped, and nothing in it could load a resource."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from desktop_app.export import export_file
from desktop_app.export.markdown_doc import fenced
from desktop_app.export.tree_svg import anchor_id
from tests.present.builders import msg, other, tool_call_assistant

HOSTILE = 'look <script>alert("x")</script> <img src="http://tracker.example/p.gif"> ![pixel](https://tracker.example/q.png)'
SUMMARY = "## Goal\nShip the parser.\n\n<read-files>\nsrc/a.py\n</read-files>\n<modified-files>\nsrc/b.py\n</modified-files>"
LAST_WORDS = "now write the release notes please"


def _session(tmp: Path) -> Path:
    entries: list[dict[str, Any]] = [
        msg("u1", None, "user", "first question about the parser"),
        tool_call_assistant("a1", "u1", call="c1", name="read"),
        msg("t1", "a1", "toolResult", "def parse():\n    return 1\n" * 200, call="c1"),
        msg("a2", "t1", "assistant", "The parser **works**. " + HOSTILE),
        msg("u2", "a2", "user", "try another way"),  # abandoned branch
        msg("a3", "u2", "assistant", "another way"),
        other("branch_summary", "b1", "a2", fromId="a3", summary="We tried another way; it failed."),
        other("compaction", "c1", "b1", summary=SUMMARY, firstKeptEntryId="a2", tokensBefore=12345),
        msg("u3", "c1", "user", LAST_WORDS),
        msg("a4", "u3", "assistant", "Here are the notes with ``` fences ``` inside"),
        other("label", "l1", "a4", targetId="u1", label="start here"),
    ]
    header = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"}
    path = tmp / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]))
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    tmp = tmp_path_factory.mktemp("export")
    report = export_file(str(_session(tmp)), str(tmp / "p.html"), str(tmp / "p.md"))
    assert report.facts is not None and report.facts.compactions == 1 and report.facts.labels == 1
    return (tmp / "p.html").read_text(), (tmp / "p.md").read_text()


#: Elements that load something, and CSS that does.
_LOADING_TAGS = {"script", "link", "iframe", "frame", "object", "embed", "img", "image", "video", "audio", "source", "base", "use"}
_CSS_LOAD = re.compile(r"url\(|@import", re.I)


class _Loads(HTMLParser):
    """Every place in the markup (not the text) that would make a browser fetch something."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _LOADING_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name in ("src", "srcset", "background", "poster", "data", "xlink:href") or (
                name == "style" and value and _CSS_LOAD.search(value)
            ):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name == "href" and tag != "a":
                self.found.append(f"<{tag} href={value!r}>")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style and _CSS_LOAD.search(data):
            self.found.append("a stylesheet loading a url")


def loads(page: str) -> list[str]:
    parser = _Loads()
    parser.feed(page)
    return parser.found


def test_the_page_loads_nothing_and_escapes_the_session_text(exported: tuple[str, str]) -> None:
    page, _ = exported
    assert loads(page) == []
    assert loads('<p style="background:url(http://x/y.png)">t</p><img src="x">') == ["<p style='background:url(http://x/y.png)'>", "<img>", "<img src='x'>"]
    assert "default-src 'none'" in page  # the browser itself refuses any load
    assert "&lt;script&gt;alert" in page and "&lt;img src=" in page  # shown as the text it is
    assert "[image: pixel]" in page  # a markdown image becomes words
    assert "arbor:toggle" not in page  # the chat's click links are <details> here
    assert page.count("<details") == page.count("</details>") > 0


def test_the_page_holds_tree_chat_audit_summary_and_labels(exported: tuple[str, str]) -> None:
    page, _ = exported
    svg = page[page.index("<svg") : page.index("</svg>")]
    assert 'stroke="#d6336c"' in svg  # the leaf's ring
    assert f'href="#{anchor_id("c1")}"' in svg and "12k tokens before" in svg  # the compaction, linked to its audit
    assert "⚑ start here" in svg  # the label, in its node's words
    chat = page[page.index('id="chat"') : page.index('id="compactions"')]
    assert LAST_WORDS in chat and "first question about the parser" in chat
    assert "another way" not in chat.replace("tried another way", "")  # the abandoned branch is not on the path
    audit = page[page.index(f'id="{anchor_id("c1")}"', page.index('id="compactions"')) :]
    assert "12,345 tokens before" in audit and "<h2>Goal</h2>" in audit and "Ship the parser." in audit
    assert "<code>src/a.py</code>" in audit and "<code>src/b.py</code>" in audit  # files, listed apart
    assert "summarized: 3 entries" in audit and "kept word for word: 2 entries" in audit
    compaction_ids = re.findall(r'<section class="audit" id="e-(\w+)"', page)
    assert compaction_ids == ["c1"]
    assert "We tried another way; it failed." in page[page.index('id="branch-summaries"') :]
    assert "⚑ start here" in page[page.index('id="labels"') :]
    long_output = chat[chat.index("read result") :]
    assert "not shown (the session file has the whole text)" in long_output  # 400 lines cut to 60


def test_markdown_of_the_active_path(exported: tuple[str, str]) -> None:
    _, markdown = exported
    assert markdown.startswith("# first question about the parser\n")
    assert markdown.index("first question") < markdown.index("## ◆ Compaction · 12,345 tokens before") < markdown.index(LAST_WORDS)
    assert "> ## Goal" in markdown and "**⚑ start here**" in markdown and "**→ read** `a.py`" in markdown
    assert "try another way" not in markdown
    assert fenced("a ``` b\n````") == "`````\na ``` b\n````\n`````"  # no line inside closes the fence


def test_a_long_path_is_cut_at_a_turn_and_the_path_s_compactions_come_first() -> None:
    from desktop_app.export.sections import chat_html, compactions_html
    from desktop_app.session.profile import PI_0_73_1
    from desktop_app.session.tree import SessionIndex

    entries = [
        msg("u1", None, "user", "one"),
        msg("a1", "u1", "assistant", "reply one"),
        other("compaction", "c1", "a1", summary="on the path", firstKeptEntryId="a1", tokensBefore=10),
        msg("u2", "c1", "user", "two"),
        msg("a2", "u2", "assistant", "reply two"),
        msg("a3", "a2", "assistant", "more"),
        other("compaction", "c2", "u1", summary="elsewhere", firstKeptEntryId="u1", tokensBefore=20),  # newer, off the path
    ]
    path = entries[:6]
    chat, shown = chat_html(path, {}, limit=4)
    assert shown == {"u2", "a2", "a3"}  # the newest 4 start inside a turn (c1): cut at the next user message
    assert "The path holds 6 entries; the oldest 3 are left out" in chat
    audits = compactions_html(SessionIndex.build(entries), ["c1", "c2"], {e["id"] for e in path}, PI_0_73_1)
    assert audits.index("on the path") < audits.index("elsewhere")


def test_values_of_the_wrong_type_export_without_a_crash_and_escaped(tmp_path: Path) -> None:
    """A hand-edited or foreign file: a list as a label, a name that is an object, a tool result
    whose toolCallId is a list (the tree's words crashed on it, the canvas's too), header fields of
    other types. The page is written, the values shown as text, nothing interpreted."""
    x = "<script>alert(1)</script>"
    entries: list[dict[str, Any]] = [
        msg("u1", None, "user", "hi"),
        msg("a1", "u1", "assistant", "x"),
        other("label", "l1", "a1", targetId="u1", label=[x]),
        other("session_info", "s1", "l1", name={"a": x}),
        other("compaction", "c1", "s1", summary=[x], firstKeptEntryId=["u1"], tokensBefore=x,
              details={"readFiles": [x, 1, None], "modifiedFiles": x}),
        other("branch_summary", "b1", "c1", fromId=[x], summary=5),
        {"type": "model_change", "id": "m1", "parentId": "b1", "timestamp": "2025", "provider": [x], "modelId": {"x": x}},
        {"type": "message", "id": "t1", "parentId": "m1", "timestamp": "2025",
         "message": {"role": "toolResult", "toolName": [x], "content": [{"type": "text", "text": x}], "toolCallId": [1]}},
        {"type": "message", "id": "a2", "parentId": "t1", "timestamp": "2025",
         "message": {"role": "assistant", "model": [x], "content": [{"type": "toolCall", "name": [x], "arguments": {"path": [x]}}]}},
    ]
    header = {"type": "session", "version": 3, "id": x, "timestamp": [x], "cwd": [x]}
    session = tmp_path / "odd.jsonl"
    session.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]))
    report = export_file(str(session), str(tmp_path / "odd.html"), str(tmp_path / "odd.md"))
    assert report.facts is not None and report.facts.labels == 1 and report.facts.chat_entries > 0
    page = (tmp_path / "odd.html").read_text()
    assert loads(page) == [] and "<script>" not in page
    assert '⚑ [&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;]' in page  # the list label, as text


def test_names_and_labels_stay_on_their_line_in_the_markdown() -> None:
    """A label, session name or tool name with line breaks ends its bold words or heading no more:
    nothing of it becomes a heading or a list of the document (the messages themselves are Markdown
    already and go in as they are)."""
    from desktop_app.export.markdown_doc import path_markdown

    odd = "x\n\n# Injected heading\n- injected item"
    path = [
        msg("u1", None, "user", "hello"),
        tool_call_assistant("a1", "u1", call="c1", name=odd),
        msg("t1", "a1", "toolResult", "out", call="c1"),
    ]
    path[2]["message"]["toolName"] = odd
    markdown = path_markdown(path, odd, "from " + odd, {"u1": odd})
    lines = markdown.split("\n")
    assert "# Injected heading" not in lines and "- injected item" not in lines
    assert not any(line.startswith(("# Injected", "- injected")) for line in lines)
    assert lines[0] == "# x # Injected heading - injected item"
    assert "**⚑ x # Injected heading - injected item**" in lines
