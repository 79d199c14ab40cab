"""A chat row's collapsible sections written for a web page (``<details>``) hold exactly their own
body: the text after a tool call stays outside it; the chat's own rows are unchanged."""

from __future__ import annotations

from collections.abc import Iterator

from desktop_app.present.chat_render import Sections, render_message, toggle_href
from desktop_app.present.chat_theme import LIGHT
from desktop_app.present.markdown_html import escape


def _plain(text: str, *, dark: bool = False) -> Iterator[str]:
    yield f"<p>{escape(text)}</p>"


MESSAGE = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "pondering"},
        {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"command": "ls\n" * 100}},
        {"type": "text", "text": "after the call"},
    ],
    "stopReason": "stop",
}


def test_sections_as_details_close_before_the_next_block_and_cut_long_bodies() -> None:
    page = render_message(MESSAGE, LIGHT, frozenset({0, 1}), markdown=_plain, sections=Sections(details=True, max_lines=10))
    assert page.count("<details") == page.count("</details>") == 2
    assert "arbor:toggle" not in page
    last = page.rindex("</details>")
    assert page.index("<p>after the call</p>") > last  # the text is not inside the tool call's section
    assert page.index("pondering") < page.index("</details>")  # the thinking is inside its own
    assert "not shown (Copy gets the whole text)" in page  # 100 lines cut to 10
    chat = render_message(MESSAGE, LIGHT, frozenset(), markdown=_plain)
    assert "<details" not in chat and toggle_href(1) in chat and "pondering</p>" not in chat
