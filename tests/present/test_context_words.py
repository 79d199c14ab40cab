"""present/context_words.py without Qt: the editor's starting text, the token-change line, the lens's
before/after of an edit and the cut slider's words, on a copy of a session pi 1.6.0 wrote."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from desktop_app.agent import AgentSession
from desktop_app.agent.context_hand import original_content
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.offline import OfflineProvider
from desktop_app.present.context_actions import TokenChange, cut_choices_of, edit_token_change
from desktop_app.present.context_meter import format_tokens
from desktop_app.present.context_words import (
    cut_index_of,
    cut_words,
    edit_effect,
    entry_text,
    text_in_context,
    token_change_words,
)
from desktop_app.session import SessionManager
from desktop_app.settings import Settings
from tests.agent.context_flow import CHOSEN_CUT, HIDDEN_TOOL_RESULT, REPLACED_USER, REPLACEMENT, SOURCE


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    """The copy with a tool result hidden and a user message's text replaced (through the agent)."""
    path = tmp_path_factory.mktemp("words") / "pi16-1606.jsonl"
    shutil.copyfile(SOURCE, path)
    agent = AgentSession(SessionManager.open(path, fsync=False), OfflineProvider(), Settings(compaction=CompactionSettings(enabled=False)))
    agent.edit_context(HIDDEN_TOOL_RESULT, None)
    agent.edit_context(REPLACED_USER, REPLACEMENT)
    yield agent
    agent.close()


def _own_text(agent: AgentSession, entry_id: str) -> str:
    entry = agent.session.get_entry(entry_id)
    assert entry is not None
    return entry_text(original_content(entry))


def test_the_editor_starts_from_the_text_the_model_gets(edited: AgentSession) -> None:
    view, profile = edited.session, edited.session.profile
    assert text_in_context(view, REPLACED_USER, profile) == REPLACEMENT != _own_text(edited, REPLACED_USER)
    assert text_in_context(view, CHOSEN_CUT, profile) == _own_text(edited, CHOSEN_CUT)  # not edited: its own
    assert text_in_context(view, "no-such-id", profile) == ""


def test_the_lens_says_what_the_model_got_before_and_gets_now(edited: AgentSession) -> None:
    view, profile = edited.session, edited.session.profile
    hidden = edit_effect(view, HIDDEN_TOOL_RESULT, profile)
    assert hidden is not None and hidden.hidden and hidden.after == "" and hidden.after_tokens == 0
    assert hidden.before == _own_text(edited, HIDDEN_TOOL_RESULT) and hidden.before_tokens > 0
    assert "Now: nothing" in hidden.describe() and format_tokens(hidden.before_tokens) in hidden.describe()

    replaced = edit_effect(view, REPLACED_USER, profile)
    assert replaced is not None and not replaced.hidden and replaced.after == REPLACEMENT
    own = _own_text(edited, REPLACED_USER)
    back = edit_token_change(view, REPLACED_USER, own, profile)  # now (replaced) → its own text again
    assert (replaced.before_tokens, replaced.after_tokens) == (back.after, back.before)
    assert replaced.before_tokens != replaced.after_tokens
    assert REPLACEMENT in replaced.describe() and "Text replaced in the context" in replaced.describe()
    change = replaced.after_tokens - replaced.before_tokens
    assert f"{'+' if change > 0 else '−'}{format_tokens(abs(change))} tokens." in replaced.describe()

    assert edit_effect(view, CHOSEN_CUT, profile) is None  # an entry no edit touches


def test_the_token_change_line_and_the_cut_words() -> None:
    line = token_change_words(TokenChange(1234, 40))
    assert f"about {format_tokens(1234)} tokens now" in line and "about 40 after saving" in line
    assert f"(−{format_tokens(1194)})" in line
    assert "(+5)" in token_change_words(TokenChange(10, 15))
    assert "(no change)" in token_change_words(TokenChange(7, 7))


def test_cut_words_and_positions(edited: AgentSession) -> None:
    choices = cut_choices_of(edited.session, edited.session.profile)
    assert len(choices) > 2
    at = cut_index_of(choices, CHOSEN_CUT)
    assert choices[at].entry_id == CHOSEN_CUT
    assert cut_index_of(choices, "not-a-cut") == len(choices) - 1
    words = cut_words(choices[at], at, len(choices))
    assert words.startswith(f"Cut {at + 1} of {len(choices)}: keep from {CHOSEN_CUT}")
    assert f"about {format_tokens(choices[at].tokens_kept)} tokens kept" in words
    assert ("inside a turn" in words) == choices[at].split_turn
