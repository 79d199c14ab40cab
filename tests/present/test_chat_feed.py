"""The chat feed (no Qt): session and agent events in, what the chat shows out.

Event sequences are fed as the agent and the session produce them: the user entry is appended, the
turn starts, stream events carry the partial message (accumulated by ``llm.accumulate``, as the
agent does), the reply is appended, the turn finishes.
"""

from __future__ import annotations

from typing import Any

from desktop_app.agent.events import (
    AgentError,
    CompactionFinished,
    CompactionStarted,
    MessageAppended,
    RetryScheduled,
    StreamUpdated,
    TurnFinished,
    TurnStarted,
    WaitingForServer,
)
from desktop_app.llm.accumulate import accumulate, new_partial
from desktop_app.llm.events import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallEnd, ToolCallStart
from desktop_app.llm.offline import OFFLINE_MODEL
from desktop_app.present.chat_feed import (
    AppendRows,
    ChatFeed,
    ChatUpdate,
    SetBusy,
    ShowContext,
    ShowError,
    StreamChanged,
    StreamDropped,
    StreamEnded,
    StreamStarted,
    agent_status,
)
from desktop_app.session import EntryAppended, ExternalAppend, LeafMoved, SessionEvent, SessionManager


class _Recorder:
    """A session with a feed subscribed to it, collecting the updates both streams produce."""

    def __init__(self) -> None:
        self.session = SessionManager.in_memory("/tmp/project")
        self.session.append_message({"role": "user", "content": "first question", "timestamp": 1})
        self.session.append_message(_assistant("first answer"))
        self.feed = ChatFeed(self.session)
        self.updates: list[ChatUpdate] = list(self.feed.bind(self.session))
        self.session.subscribe(self._session_event)

    def _session_event(self, event: SessionEvent) -> None:
        self.updates += self.feed.on_session_event(event)

    def agent(self, event: Any) -> list[ChatUpdate]:
        produced = self.feed.on_agent_event(event)
        self.updates += produced
        return produced

    def take(self) -> list[ChatUpdate]:
        out, self.updates = self.updates, []
        return out


def _assistant(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "offline",
        "provider": "offline",
        "model": "offline",
        "stopReason": "stop",
        "timestamp": 2,
        **extra,
    }


def _texts(messages: Any) -> list[Any]:
    return [m.get("content") for m in messages]


def test_binding_shows_the_leaf_context() -> None:
    chat = _Recorder()
    (shown,) = chat.take()
    assert isinstance(shown, ShowContext)
    assert shown.leaf_id == chat.session.leaf_id
    assert [m["role"] for m in shown.messages] == ["user", "assistant"]


def test_a_turn_with_thinking_text_and_a_tool_call_streams_into_one_live_row() -> None:
    chat = _Recorder()
    chat.take()
    chat.session.append_message({"role": "user", "content": "read it", "timestamp": 3})
    (appended,) = chat.take()
    assert isinstance(appended, AppendRows) and _texts(appended.messages) == ["read it"]

    assert chat.agent(TurnStarted()) == [StreamStarted(), SetBusy(True)]
    partial = new_partial(OFFLINE_MODEL)
    events = [
        ThinkingDelta("let me think"),
        TextDelta("Reading "),
        TextDelta("the file."),
        ToolCallStart(index=2, id="call-1", name="read"),
        ToolCallDelta(index=2, arguments_json='{"path": '),
        ToolCallDelta(index=2, arguments_json='"a.py"}'),
        ToolCallEnd(index=2, tool_call={"type": "toolCall", "id": "call-1", "name": "read", "arguments": {"path": "a.py"}}),
    ]
    shown: list[dict[str, Any]] = []
    for event in events:
        partial = accumulate(event, partial)
        for update in chat.agent(StreamUpdated(event, partial)):
            assert isinstance(update, StreamChanged)
            shown.append(update.partial)
    assert len(shown) == len(events)  # every stream event reaches the live row
    kinds = [b["type"] for b in shown[-1]["content"]]
    assert kinds == ["thinking", "text", "toolCall"]  # tool calls included, as the agent accumulated
    assert shown[-1]["content"][1]["text"] == "Reading the file."
    assert shown[-1]["content"][2]["name"] == "read"
    assert chat.feed.streaming and chat.feed.partial is shown[-1]

    final = {**partial, "stopReason": "toolUse"}
    chat.take()
    entry_id = chat.session.append_message(final)  # session event first: ignored while streaming
    assert chat.take() == []
    assert chat.agent(MessageAppended(entry_id, final)) == [StreamEnded(final, aborted=False)]
    assert not chat.feed.streaming and chat.feed.leaf_id == entry_id
    assert chat.agent(TurnFinished()) == [SetBusy(False)]  # the rows already match: no rebind


def test_an_aborted_reply_ends_the_live_row_as_aborted() -> None:
    chat = _Recorder()
    chat.agent(TurnStarted())
    partial = accumulate(TextDelta("half a"), new_partial(OFFLINE_MODEL))
    chat.agent(StreamUpdated(TextDelta("half a"), partial))
    aborted = {**partial, "stopReason": "aborted", "errorMessage": "Request was aborted"}
    entry_id = chat.session.append_message(aborted)
    chat.take()
    assert chat.agent(MessageAppended(entry_id, aborted)) == [StreamEnded(aborted, aborted=True)]
    assert chat.agent(TurnFinished()) == [SetBusy(False)]


def test_an_error_reply_is_shown_and_said() -> None:
    chat = _Recorder()
    chat.agent(TurnStarted())
    failed = _assistant("", stopReason="error", errorMessage="overloaded")
    entry_id = chat.session.append_message(failed)
    assert chat.agent(MessageAppended(entry_id, failed)) == [
        StreamEnded(failed, aborted=False),
        ShowError("overloaded"),
    ]


def test_a_retry_restarts_the_live_row() -> None:
    chat = _Recorder()
    chat.agent(TurnStarted())
    partial = accumulate(TextDelta("first try"), new_partial(OFFLINE_MODEL))
    chat.agent(StreamUpdated(TextDelta("first try"), partial))
    retry = RetryScheduled(attempt=1, delay_ms=2000, error="overloaded")
    assert chat.agent(retry) == [StreamStarted()]
    assert chat.feed.streaming and chat.feed.partial is None
    assert agent_status(retry) == ("Retrying in 2.0 s (attempt 1): overloaded", 8000)


def test_a_turn_that_saved_nothing_drops_the_live_row_and_catches_up() -> None:
    chat = _Recorder()
    chat.agent(TurnStarted())
    chat.take()
    chat.session.append_message({"role": "user", "content": "from pi meanwhile", "timestamp": 5})
    assert chat.take() == []  # not while streaming
    updates = chat.agent(TurnFinished())
    assert updates[:2] == [SetBusy(False), StreamDropped()]
    assert isinstance(updates[2], ShowContext) and _texts(updates[2].messages)[-1] == "from pi meanwhile"


def test_an_external_append_at_the_leaf_adds_rows_elsewhere_rebinds() -> None:
    chat = _Recorder()
    chat.take()
    leaf = chat.session.leaf_id
    entry = {"type": "message", "id": "ext1", "parentId": leaf, "timestamp": "2026-01-01T00:00:00.000Z",
             "message": {"role": "user", "content": "pi wrote this", "timestamp": 9}}
    assert chat.feed.on_session_event(ExternalAppend((entry,), "ext1")) == [
        AppendRows([{"role": "user", "content": "pi wrote this", "timestamp": 9}])
    ]
    assert chat.feed.leaf_id == "ext1"
    elsewhere = {**entry, "id": "ext2", "parentId": "somewhere-else"}
    (rebound,) = chat.feed.on_session_event(ExternalAppend((elsewhere,), "ext2"))
    assert isinstance(rebound, ShowContext)
    # an entry whose leaf is not the entry (appended on another branch) rebinds too
    (again,) = chat.feed.on_session_event(EntryAppended(elsewhere, leaf))
    assert isinstance(again, ShowContext)


def test_a_leaf_move_rebinds_to_the_new_leaf() -> None:
    chat = _Recorder()
    first_user = chat.session.get_branch()[0]["id"]
    chat.take()
    chat.session.branch(first_user)
    (moved,) = chat.take()
    assert isinstance(moved, ShowContext) and moved.leaf_id == first_user
    assert _texts(moved.messages) == ["first question"]
    (again,) = chat.feed.on_session_event(LeafMoved(first_user, None))
    assert isinstance(again, ShowContext) and _texts(again.messages) == ["first question"]


def test_a_compaction_rebinds_with_the_summary_first() -> None:
    chat = _Recorder()
    kept = chat.session.get_branch()[-1]["id"]
    chat.take()
    assert chat.agent(CompactionStarted("manual")) == []
    chat.session.append_compaction("what happened so far", kept, 1234)
    (appended,) = chat.take()
    assert isinstance(appended, ShowContext)  # a compaction changes the context above it
    assert appended.messages[0]["role"] == "compactionSummary"
    (finished,) = chat.agent(CompactionFinished("manual", "c", False, 1234))
    assert isinstance(finished, ShowContext) and finished.messages[0]["role"] == "compactionSummary"


def test_errors_and_waiting() -> None:
    chat = _Recorder()
    assert chat.agent(AgentError("no key")) == [ShowError("no key")]
    assert chat.agent(WaitingForServer(5.0)) == []
    assert agent_status(WaitingForServer(5.0)) == ("Waiting for the server… 5 s (Esc to stop)", 1500)


def test_a_running_tool_shows_its_last_output_line_in_the_status_bar() -> None:
    from desktop_app.agent.events import ToolCallsFinished, ToolUpdated
    from desktop_app.tools import ToolUpdate

    assert agent_status(ToolUpdated(ToolUpdate("c1", "bash", "one\ntwo\n\n"))) == ("bash running… two (Esc to stop)", 0)
    assert agent_status(ToolUpdated(ToolUpdate("c1", "bash", ""))) == ("bash running… (Esc to stop)", 0)
    assert agent_status(ToolCallsFinished(aborted=False)) == ("", 0)


def test_rows_and_entries_are_told_apart_for_card_actions() -> None:
    chat = _Recorder()
    (shown,) = chat.take()
    assert isinstance(shown, ShowContext)
    user_id, answer_id = [e["id"] for e in chat.session.get_branch() if e.get("type") == "message"]
    user_row, answer_row = shown.messages
    assert chat.feed.entry_id_of(user_row) == user_id and chat.feed.entry_id_of(answer_row) == answer_id
    assert chat.feed.message_of(answer_id) is answer_row
    assert chat.feed.entry_id_of(dict(answer_row)) == answer_id  # an equal copy (a reply shown as it streamed)
    assert chat.feed.entry_id_of(_assistant("never saved")) is None
    assert chat.feed.message_of("no-such-entry") is None
