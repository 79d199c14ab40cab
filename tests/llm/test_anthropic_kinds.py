"""The Anthropic conversion steps split out of ``convert_messages``/``transform_messages`` (issue 24)."""

from __future__ import annotations

from typing import Any

from desktop_app.llm import anthropic as prov
from desktop_app.llm import catalog

SONNET = catalog.get_model("claude-sonnet-4-5")


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "content": [{"type": "text", "text": text}], "isError": False}


def test_a_run_of_tool_results_is_one_user_message_and_the_index_after_it() -> None:
    messages = [{"role": "user", "content": "hi"}, _result("a", "one"), _result("b", "two"), {"role": "user", "content": "x"}]
    converted, after = prov._convert_tool_results(messages, 1)
    assert after == 3
    assert converted["role"] == "user"
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in converted["content"]] == [
        ("tool_result", "a", "one"),
        ("tool_result", "b", "two"),
    ]


def test_close_tool_calls_answers_dangling_calls_and_keeps_other_roles() -> None:
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
    odd = {"role": "bashExecution", "command": "ls", "output": ""}
    messages = [{"role": "assistant", "content": [call], "stopReason": "toolUse"}, odd]
    closed = prov._close_tool_calls(messages)
    assert closed[:2] == messages
    assert [(m["role"], m["toolCallId"], m["isError"]) for m in closed[2:]] == [("toolResult", "c1", True)]


def test_tool_result_text_without_images_ignores_other_blocks() -> None:
    content = [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}, "odd", {"type": "text", "text": "b"}]
    assert prov._tool_result_content(content) == "a\nb"


def test_only_images_get_a_text_placeholder_first() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    out = prov._tool_result_content([image])
    assert isinstance(out, list)
    assert out[0] == {"type": "text", "text": prov.SEE_ATTACHED_IMAGE}
    assert out[1]["type"] == "image"
