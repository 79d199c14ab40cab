"""The Qt-free half of the chat's markdown: the code highlighter, fences, and the nesting cap (issue 13
item 4: no message can nest lists or quotes deeper than ``MAX_NESTING``). What Qt makes of the
result is tested in ``tests/ui/chat/test_markdown.py`` and ``test_markdown_nesting.py``."""

from __future__ import annotations

import pytest

from desktop_app.present.markdown_html import (
    MAX_NESTING,
    canonical_language,
    cap_nesting,
    highlight_code,
    split_fences,
)


def test_unknown_language_is_escaped_monospace() -> None:
    assert highlight_code("<b>&</b>", "brainfudge") == "&lt;b&gt;&amp;&lt;/b&gt;"
    assert canonical_language("TS") == "javascript"
    assert canonical_language("sh") == "bash"
    assert canonical_language(None) is None


@pytest.mark.parametrize(
    ("language", "code", "token"),
    [
        ("json", '{"a": 1}', '<span style="color:#0550ae;">"a"</span>'),
        ("bash", "echo $HOME", '<span style="color:#953800;">$HOME</span>'),
        ("diff", "+added\n-removed", '<span style="color:#116329;">+added</span>'),
        ("rust", "fn main() {}", '<span style="color:#cf222e;">fn</span>'),
        ("go", "func main() {}", '<span style="color:#cf222e;">func</span>'),
        ("sql", "SELECT 1", '<span style="color:#cf222e;">SELECT</span>'),
    ],
)
def test_highlighter_languages(language: str, code: str, token: str) -> None:
    assert token in highlight_code(code, language)


def test_split_fences_follows_commonmark_basics() -> None:
    text = "a\n```js\nx = 1\n```\nb\n~~~~\nunclosed ``` inside\n"
    assert split_fences(text) == [
        ("markdown", None, "a"),
        ("code", "js", "x = 1"),
        ("markdown", None, "b"),
        ("code", None, "unclosed ``` inside\n"),
    ]


def test_one_line_cap_escapes_the_first_marker_past_the_limit() -> None:
    capped = cap_nesting("- " * 20 + "x", limit=3)
    assert capped == "- - - \\- " + "- " * 16 + "x"
    assert cap_nesting("1. " * 5, limit=2) == "1. 1. 1\\. 1. 1. "
    assert cap_nesting(">" * 6 + "q", limit=4) == ">>>>\\>>q"


def test_text_within_the_cap_is_unchanged() -> None:
    ordinary = "# Title\n\n- a\n  - b\n    - c\n\n> quote\n> > inner\n\n1. one\n2. two\n\n    code\n"
    assert cap_nesting(ordinary) is ordinary
    assert cap_nesting("- " * MAX_NESTING + "x") == "- " * MAX_NESTING + "x"


def test_indentation_is_cut_to_what_the_cap_needs() -> None:
    assert cap_nesting(" " * 500 + "deep", limit=4) == " " * 8 + "deep"
    assert cap_nesting(" " * 500 + "- deep", limit=4) == " " * 8 + "\\- deep"  # 4 levels by indent
    assert cap_nesting("    " + "- " * 10 + "x", limit=4) == "    - - \\- " + "- " * 7 + "x"
