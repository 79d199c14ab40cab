"""``AgentSession``: the one object the window drives (DESIGN.md §6), with pi's turn semantics.

Order of persistence is the contract (pi-spec §3.8, §5.4): the user's entry is on disk before the
request leaves; the finished (or aborted, or failed) assistant is appended when the stream ends; a
failed attempt stays in the file and its retry becomes its child; compactions are appended only
after their summary is complete, so cancelling one writes nothing.

A reply's parent is the entry its request was built from, fixed before the request leaves: other
programs may append to the same file meanwhile (their entries are read in, the reply still goes under
its own request). If that entry is gone when the reply ends (another program truncated or rewrote
the file) or the file cannot take the reply (disk full, read-only), the reply is written to a
recovery file under ``ARBOR_HOME/state/recovered/`` and :class:`ReplyRecovered` says where: a reply is
never made a root and never attached under an entry it does not answer.

Everything else is an event for the views (:mod:`.events`). The model is whatever :class:`~desktop_app.llm.protocol.Provider` is given: Anthropic
with a key, the offline model without one.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from desktop_app.compaction.branch_entries import collect_entries_for_branch_summary
from desktop_app.compaction.branch_summary import generate_branch_summary
from desktop_app.compaction.session_ops import NothingToCompactError, compact_session, summarize_session
from desktop_app.compaction.tokens import (
    calculate_context_tokens,
    estimate_context_tokens,
    get_assistant_usage,
    is_context_overflow,
    should_compact,
)
from desktop_app.llm.protocol import (
    ABORTED_MESSAGE,
    STREAM_ENDED_MESSAGE,
    Done,
    ErrorEvent,
    LLMRequest,
    Provider,
    accumulate,
    finalize,
    new_partial,
)
from desktop_app.session import SessionView
from desktop_app.session.context import convert_to_llm
from desktop_app.session.entries import THINKING_LEVELS, Message, message_text, now_ms, parse_date_ms
from desktop_app.session.kinds import (
    BlockKind,
    EntryKind,
    Role,
    block_kind,
    entry_role,
    kind_of,
    message_of,
    role_of,
)
from desktop_app.session.manager import SessionError, SessionManager
from desktop_app.session.paths import default_session_dir
from desktop_app.session.store import SessionFileError
from desktop_app.session.system_prompt import current_system_message, system_prompt_update
from desktop_app.settings import Settings
from desktop_app.tools import (
    APPROVAL_TOOLS,
    AbortSignal,
    Approver,
    MutationQueue,
    PathPolicy,
    SessionApprovals,
    ToolContext,
    ToolResult,
    aborted_result,
    run_tool_calls,
    tool_definitions,
)
from desktop_app.tools.prompt import environment_prompt, tools_prompt
from desktop_app.transcripts import TranscriptError, continue_in_arbor, open_session_or_transcript
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase
from desktop_app.workspace.queries import checkpoint_at
from desktop_app.workspace.recorder import (
    CHECKPOINT_NOTE_KEY,
    MUTATING_TOOLS,
    CheckpointFailed,
    CheckpointTaken,
    missing_checkpoint_text,
    take_checkpoint,
)

from . import context_hand
from .events import (
    AgentError,
    AgentEvent,
    BranchSummaryFinished,
    BranchSummaryStarted,
    CompactionFailed,
    CompactionFinished,
    CompactionProgress,
    CompactionStarted,
    MessageAppended,
    ReplyRecovered,
    RetryScheduled,
    SessionChanged,
    StreamUpdated,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    ToolUpdated,
    TurnFinished,
    TurnStarted,
    WorkingFolderMissing,
)
from .recovery import write_recovery_file
from .silence import SilenceWatch

__all__ = [
    "AgentSession",
    "AgentBusyError",
    "ContextUsage",
    "ForkPosition",
    "ForkResult",
    "NavigateResult",
    "SessionOpenError",
]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant in Arbor, a desktop app where the user explores a conversation as a "
    "tree: they branch, come back, and compact old history into summaries. Answer clearly and concisely."
)
OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)

# pi's retryable error texts (pi-spec §3.8), matched case-insensitively.
_RETRYABLE = re.compile(
    r"overloaded|provider returned error|rate limit|too many requests|429|500|502|503|504|"
    r"service unavailable|server error|internal error|network error|connection error|"
    r"connection refused|connection lost|websocket closed|websocket error|other side closed|"
    r"fetch failed|upstream connect|reset before headers|socket hang up|ended without|"
    r"http2 request did not get a response|timed out|time out|timeout|terminated|retry delay",
    re.IGNORECASE,
)

T = TypeVar("T")

#: How long a turn steps aside so the window can paint what it just appended. Not ``sleep(0)``: under
#: qasync that continuation is a zero timer, which Qt may run before timers already due (the window's
#: own), so the step aside would not be one. A millisecond puts it after them.
YIELD_S = 0.001


class AgentBusyError(RuntimeError):
    """A turn, compaction or branch summary is already running."""


class _ParentGone(Exception):
    """The entry a reply answers is not in the session any more."""


class SessionOpenError(RuntimeError):
    """A session file could not be opened; the message says why, in words for the user."""


ForkPosition = Literal["before", "at"]
"""``before``: pi's ``/fork`` (a user message; the new session ends at its parent, its text goes back
to the editor). ``at``: pi's ``/clone`` (any entry; the new session ends at that entry)."""


@dataclass
class ContextUsage:
    """The context meter: ``tokens`` is ``None`` right after a compaction (pi shows ``?``)."""

    tokens: int | None
    context_window: int
    reserve_tokens: int

    @property
    def percent(self) -> float | None:
        return None if self.tokens is None else self.tokens / self.context_window * 100

    @property
    def threshold(self) -> int:
        return self.context_window - self.reserve_tokens


@dataclass
class NavigateResult:
    editor_text: str | None = None
    cancelled: bool = False
    aborted: bool = False
    summary_entry_id: str | None = None


@dataclass
class ForkResult:
    session_file: str | None
    editor_text: str | None


def is_retryable(message: Message, context_window: int) -> bool:
    """pi's rule: an error stop, not a context overflow, whose text names a transient failure."""
    if message.get("stopReason") != "error" or is_context_overflow(message, context_window):
        return False
    return bool(_RETRYABLE.search(str(message.get("errorMessage") or "")))


def _with_missing_checkpoints(result: ToolResult, missing: list[CheckpointFailed]) -> ToolResult:
    """The result with ``details.arborCheckpoint`` saying which checkpoint is missing and why (its
    card shows it; pi keeps ``details`` and never sends them to the model)."""
    if not missing:
        return result
    note = " ".join(missing_checkpoint_text(failure) for failure in missing)
    return replace(result, details={**(result.details or {}), CHECKPOINT_NOTE_KEY: note})


def _user_message(text: str, images: Sequence[dict[str, Any]]) -> Message:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}, *images]
    return {"role": "user", "content": content, "timestamp": now_ms()}


class AgentSession:
    """A session plus a model: prompts, aborts, compaction, tree navigation, forks."""

    def __init__(
        self,
        session_manager: SessionManager,
        provider: Provider,
        settings: Settings | None = None,
        *,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        approve_all: bool = False,
    ) -> None:
        self.session = session_manager
        self.provider = provider
        self.settings = settings or Settings()
        self.system_prompt = system_prompt
        self._sleep = sleep
        self._subscribers: list[Callable[[AgentEvent], None]] = []
        self._task: asyncio.Task[Any] | None = None
        self._abort_requested = False
        self._overflow_attempted = False
        self.last_prompt_unsent: str | None = None
        """The text of a prompt stopped before it was sent (the window puts it back in the composer)."""
        self.thinking_level = self._restore_thinking_level()
        self.approver: Approver | None = None
        """The window's approval card, awaited for each ``write``/``edit``/``bash`` call not yet allowed
        for this session. ``None`` denies those calls, telling the model why (``arbor ask``)."""
        self.approve_all = approve_all
        """Every call is allowed without asking (``arbor ask --yes``)."""
        self.approvals = self._new_approvals()
        self._mutation_queue = MutationQueue()
        self._tool_signal: AbortSignal | None = None
        self._cwd_override: str | None = None

    @property
    def checkpoints(self) -> bool:
        """Snapshot the working folder before and after ``write``/``edit``/``bash`` calls (DESIGN.md
        §13): the ``checkpoints.enabled`` setting, read at each batch of calls. Off, no snapshot is
        taken and no checkpoint entry written, and the window offers no restore."""
        return self.settings.checkpoints.enabled

    # ------------------------------------------------------------------------------- events

    def subscribe(self, callback: Callable[[AgentEvent], None]) -> Callable[[], None]:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _emit(self, event: AgentEvent) -> None:
        for callback in list(self._subscribers):
            callback(event)

    # ------------------------------------------------------------------------------- state

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def model(self) -> Any:
        return self.provider.model

    def _branch_has_thinking_change(self, session: SessionManager | None = None) -> bool:
        # the current leaf's context is kept by the session: no walk of a 72,000-entry branch per prompt
        return (session or self.session).build_session_context().has_thinking_change

    def _restore_thinking_level(self) -> str:
        context = self.session.build_session_context()
        if self._branch_has_thinking_change():
            return self._clamp(context.thinking_level)
        return self._clamp(self.settings.default_thinking_level)

    def _clamp(self, level: str) -> str:
        if not self.provider.model.reasoning:
            return "off"
        return level if level in THINKING_LEVELS else "medium"

    def _ensure_session_setup(self, session: SessionManager) -> None:
        """pi's creation path, deferred to the first prompt so that merely opening a file never writes.

        A new session gets ``model_change`` then ``thinking_level_change``; a session whose branch has no
        thinking level gets the (clamped) default level.
        """
        if not session.has_entries():
            model = self.provider.model
            session.append_model_change(model.provider, model.id)
        if not self._branch_has_thinking_change(session):
            session.append_thinking_level_change(self.thinking_level)

    # ------------------------------------------------------------------------------- running

    async def _run_exclusive(self, work: Coroutine[Any, Any, T]) -> T:
        if self.busy:
            work.close()  # never started: close it so Python does not warn it was never awaited
            raise AgentBusyError("Arbor is busy with another request")
        self._abort_requested = False
        task: asyncio.Task[T] = asyncio.ensure_future(work)
        self._task = task
        try:
            return await task
        finally:
            if self._task is task:
                self._task = None

    def abort(self) -> None:
        """Stop what is running (a turn, a compaction, a branch summary). Partial replies are kept.

        While tools run, the tools are stopped instead of the task (bash's process group is killed),
        so their aborted results are still appended, as pi does.
        """
        if self.busy and self._task is not None:
            self._abort_requested = True
            if self._tool_signal is not None:
                self._tool_signal.abort()
            else:
                self._task.cancel()

    async def wait_idle(self) -> None:
        task = self._task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    # ------------------------------------------------------------------------------- prompt

    async def prompt(self, text: str, images: Sequence[dict[str, Any]] = ()) -> Message | None:
        """Send a user message and stream the reply; returns the last assistant message."""
        return await self._run_exclusive(self._prompt(text, images))

    async def _prompt(self, text: str, images: Sequence[dict[str, Any]]) -> Message | None:
        # Everything this turn writes goes to the session it started in, even if the window switches
        # to another session meanwhile (the switch aborts the turn; its partial reply stays here).
        session = self.session
        self._overflow_attempted = False  # resets on every user message (pi)
        self.last_prompt_unsent = text
        try:
            await self._check_compaction(session, self._last_assistant(session), skip_aborted=False)
        except asyncio.CancelledError:
            if not self._abort_requested:
                raise
            return None  # stopped before sending: the text was not used (last_prompt_unsent)
        # pi 1.6.0 records the prompt before the user message. Each append is ~3 ms of the event loop
        # at 100,000 entries (the window follows it) and the window's repaint after it ~10 ms more:
        # the setup, the recorded prompt and the user's message each get an event-loop turn of their own.
        for step in (self._ensure_session_setup, self._record_system_prompt):
            leaf = session.leaf_id
            with session.deferred_sync():
                step(session)
            if session.leaf_id != leaf and not await self._yield_unless_stopped():
                return None  # stopped before sending: the text was not used (last_prompt_unsent)
        user_message = _user_message(text, images)
        with session.deferred_sync():
            user_id = session.append_message(user_message)
        await asyncio.to_thread(session.sync)  # durable before the request goes out, off the UI thread
        self.last_prompt_unsent = None
        self._emit(MessageAppended(user_id, user_message))
        self._emit(TurnStarted())
        cwd = self._tool_cwd(session)
        if self.active_tools and not os.path.isdir(cwd):
            self._emit(WorkingFolderMissing(cwd))
        try:
            return await self._run_turn(session, user_id)
        finally:
            self._emit(TurnFinished())

    async def _yield_unless_stopped(self) -> bool:
        """Let the event loop run (the window paints what was just appended); ``False`` when the user
        stopped the turn meanwhile."""
        try:
            await asyncio.sleep(YIELD_S)
        except asyncio.CancelledError:
            if not self._abort_requested:
                raise
            return False
        return True

    async def regenerate(self, entry_id: str) -> Message | None:
        """Ask again for the reply ``entry_id`` (an assistant message): the leaf moves to its parent
        and a new reply is streamed there, a sibling of the old one (which stays in the file)."""
        return await self._run_exclusive(self._regenerate(entry_id))

    async def _regenerate(self, entry_id: str) -> Message | None:
        session = self.session
        entry = session.get_entry(entry_id)
        if entry is None or entry_role(entry) is not Role.ASSISTANT:
            raise ValueError("Only an assistant reply can be regenerated")
        parent = entry.get("parentId")
        if not isinstance(parent, str):
            raise ValueError("This reply has no parent to answer again")
        self._overflow_attempted = False
        session.branch(parent)
        # No system message is recorded here, even under pi 1.6.0's profile: one would have to sit
        # between the request and the new reply, which would then not be the old one's sibling. pi
        # records the prompt before a user message; the next prompt does (``_record_system_prompt``).
        self._emit(TurnStarted())
        try:
            return await self._run_turn(session, parent)
        finally:
            self._emit(TurnFinished())

    async def retry(self, user_entry_id: str) -> Message | None:
        """Answer the user message ``user_entry_id`` again (a turn stopped before its first token, or
        one whose reply failed): the leaf moves to it and a reply is streamed under it. No second user
        entry is written; an earlier reply under it stays in the file as a sibling."""
        return await self._run_exclusive(self._retry(user_entry_id))

    async def _retry(self, user_entry_id: str) -> Message | None:
        session = self.session
        entry = session.get_entry(user_entry_id)
        if entry is None or entry_role(entry) is not Role.USER:
            raise ValueError("Only a user message can be answered again")
        self._overflow_attempted = False  # a user message's turn (pi resets it per user message)
        self.last_prompt_unsent = None
        if session.leaf_id != user_entry_id:
            session.branch(user_entry_id)
        self._emit(TurnStarted())
        try:
            return await self._run_turn(session, user_entry_id)
        finally:
            self._emit(TurnFinished())

    @staticmethod
    def _last_assistant(session: SessionManager) -> Message | None:
        for message in reversed(session.build_session_context().messages):
            if role_of(message) is Role.ASSISTANT:
                return message
        return None

    def _request(self, session: SessionManager, parent_id: str) -> LLMRequest:
        """The request for a reply under ``parent_id``: the context the model sees at that entry."""
        # The request carries the system prompt itself; recorded system messages (pi 1.6.0) are history.
        context = session.build_session_context(parent_id).messages
        messages = [m for m in convert_to_llm(context) if role_of(m) is not Role.SYSTEM]
        model = self.provider.model
        reasoning = self.thinking_level if model.reasoning and self.thinking_level != "off" else None
        active = self.active_tools
        return LLMRequest(
            self._system_prompt(self._tool_cwd(session)),
            messages,
            max_tokens=model.max_tokens,
            reasoning=reasoning,
            tools=tool_definitions(active) if active else None,
        )

    def _system_prompt(self, cwd: str) -> str:
        """The prompt the request carries: its sections joined by blank lines."""
        return "\n\n".join(self._system_sections(cwd).values())

    def _system_sections(self, cwd: str) -> dict[str, str]:
        """The prompt as named parts, in order: the base prompt (``preamble``), and when tools are on,
        pi's tools section (``tools``) and its date and folder lines (``environment``).

        These are what a pi 1.6.0 session records (pi16-delta.md §2.5), so a prompt change is recorded
        as the parts that changed. Joined with blank lines they are exactly the prompt sent.
        """
        sections = {"preamble": self.system_prompt}
        active = self.active_tools
        if active:
            sections["tools"] = tools_prompt(active)
            sections["environment"] = environment_prompt(cwd).removeprefix("\n")
        return sections

    def _record_system_prompt(self, session: SessionManager) -> str | None:
        """pi 1.6.0's record of the prompt and tools a request is about to use, as a ``system`` message
        under the leaf: the whole prompt the first time on a path, then only what changed (sections,
        tools added or removed); nothing when the path's replayed prompt already says it.

        The replay is of the leaf's context, so after a compaction its ``systemMessage`` checkpoint is the
        prompt recorded before it. A ``content`` text pi recorded (a forced prompt) cannot be taken back
        in pi's format; it stays in the replay and is not compared, as only sections and tools are
        Arbor's. Returns the new entry's id, or ``None`` when nothing was appended (always with pi
        0.73.1's profile, which has no ``system`` messages).
        """
        if not session.profile.record_system_prompt:
            return None
        current = current_system_message(session.build_session_context().messages)
        active = self.active_tools
        tools = tool_definitions(active) if active else []
        update = system_prompt_update(current, self._system_sections(self._tool_cwd(session)), tools, now_ms())
        if update is None:
            return None
        return session.append_message(update)

    # ------------------------------------------------------------------------------- tools

    @property
    def active_tools(self) -> tuple[str, ...]:
        """The tools the model is given, in prompt order (``settings.tools.enabled``)."""
        return self.settings.tools.enabled

    @property
    def working_folder(self) -> str:
        """Where tools run: the session header's ``cwd``, or the folder chosen instead of a missing one."""
        return self._tool_cwd(self.session)

    @property
    def working_folder_missing(self) -> bool:
        """The folder tools would run in is gone: the window asks for another (``use_working_folder``)."""
        return not os.path.isdir(self.working_folder)

    def _tool_cwd(self, session: SessionManager) -> str:
        if session is self.session and self._cwd_override is not None:
            return self._cwd_override
        return session.cwd

    def use_working_folder(self, folder: str) -> None:
        """Run tools in ``folder`` instead of the session's missing one (pi's "continue in the current
        folder"); the header is not rewritten, and opening another session forgets the choice."""
        if not os.path.isdir(folder):
            raise ValueError(f"Not a folder: {folder}")
        self._cwd_override = os.path.abspath(folder)

    def _new_approvals(self) -> SessionApprovals:
        """This session's approvals: nothing allowed yet, except what settings always allow."""
        always = APPROVAL_TOOLS if self.approve_all else frozenset(self.settings.tools.always_allow)
        return SessionApprovals(always)

    def _tool_context(self, session: SessionManager, signal: AbortSignal) -> ToolContext:
        tools = self.settings.tools
        return ToolContext(
            cwd=self._tool_cwd(session),
            enabled=frozenset(self.active_tools),
            policy=PathPolicy(allow_outside=tools.allow_outside_folder, allowed_roots=tools.allowed_roots),
            signal=signal,
            mutation_queue=self._mutation_queue,
            shell_path=tools.shell_path,
            shell_command_prefix=tools.shell_command_prefix,
            model_supports_images="image" in self.provider.model.input,
            on_update=lambda update: self._emit(ToolUpdated(update)),
        )

    async def _run_tools(self, session: SessionManager, assistant_id: str, message: Message) -> tuple[str | None, bool]:
        """Run the reply's tool calls and append one ``toolResult`` per call under it, in call order.

        Returns the last appended entry (``None`` if a result had to go to a recovery file) and
        whether Esc stopped the batch. Each result goes exactly under the previous entry of this turn,
        whatever another writer appended meanwhile.
        """
        calls = [b for b in message.get("content") or [] if block_kind(b) is BlockKind.TOOL_CALL]
        self._emit(ToolCallsStarted(assistant_id, tuple(calls)))
        signal = AbortSignal()
        if self._abort_requested:
            signal.abort()
        approvals = self.approvals
        allowed_before = approvals.always
        mutating = tuple(str(c.get("id", "")) for c in calls if c.get("name") in MUTATING_TOOLS)
        checkpointing = self.checkpoints and bool(mutating)
        anchor = assistant_id  # the before checkpoint, when one is written
        missing: list[CheckpointFailed] = []
        if checkpointing:
            anchor = await self._checkpoint(session, Phase.BEFORE, mutating, assistant_id, missing)
        self._tool_signal = signal
        try:
            results = await run_tool_calls(calls, self._tool_context(session, signal), approvals, self.approver)
        except asyncio.CancelledError:
            if not self._abort_requested:
                raise
            # Stopped in the instant before the tools' own abort signal was armed: bash's group is
            # already killed by the cancellation; every call reports pi's aborted result.
            results = [aborted_result(call) for call in calls]
        finally:
            self._tool_signal = None
        self._remember_approvals(approvals, allowed_before)
        aborted = signal.aborted or self._abort_requested
        after: CheckpointTaken | CheckpointFailed | None = None
        if checkpointing:
            after = await self._snapshot(session, Phase.AFTER, mutating, anchor)
            if isinstance(after, CheckpointFailed):
                missing.append(after)
        results = [_with_missing_checkpoints(r, missing) if r.tool_call_id in mutating else r for r in results]
        parent: str | None = anchor
        with session.background_sync():
            for result in results:
                if parent is None:
                    self._recover(session, result.to_message(), assistant_id, "An earlier tool result could not be saved")
                    continue
                parent = self._save_result(session, result, parent)
            if parent is not None and isinstance(after, CheckpointTaken) and after.data is not None:
                parent = self._append_checkpoint(session, after.data, parent)
        self._emit(ToolCallsFinished(aborted))
        return parent, aborted

    async def _snapshot(self, session: SessionManager, phase: Phase, call_ids: tuple[str, ...],
                        path_end: str) -> CheckpointTaken | CheckpointFailed:
        """Snapshot the working folder on a worker thread (it reads the folder and writes the store)."""
        folder = self._tool_cwd(session)
        index = session.index
        size_limit = self.settings.checkpoints.size_limit

        def work() -> CheckpointTaken | CheckpointFailed:
            return take_checkpoint(folder, phase, call_ids, checkpoint_at(index, path_end), size_limit)

        return await asyncio.to_thread(work)

    async def _checkpoint(self, session: SessionManager, phase: Phase, call_ids: tuple[str, ...], parent: str,
                          missing: list[CheckpointFailed]) -> str:
        """Take a checkpoint and append it under ``parent`` if the folder changed; the new parent."""
        taken = await self._snapshot(session, phase, call_ids, parent)
        if isinstance(taken, CheckpointFailed):
            missing.append(taken)
            return parent
        if taken.data is None:
            return parent
        with session.background_sync():
            return self._append_checkpoint(session, taken.data, parent)

    def _append_checkpoint(self, session: SessionManager, data: dict[str, Any], parent: str) -> str:
        """Append an ``arbor.checkpoint`` entry exactly under ``parent``; if the file cannot take it,
        the turn goes on without it (the snapshot stays in the store)."""
        try:
            session.poll_external_changes()
            if session.get_entry(parent) is None:
                return parent
            return session.append_custom_entry(CHECKPOINT_TYPE, data, parent_id=parent)
        except (OSError, SessionError, SessionFileError):
            return parent

    def _save_result(self, session: SessionManager, result: ToolResult, parent: str) -> str | None:
        message = result.to_message()
        entry_id = self._append_under(session, message, parent)
        if entry_id is not None:
            self._emit(ToolResultAppended(entry_id, message))
        return entry_id

    def _remember_approvals(self, approvals: SessionApprovals, before: frozenset[str]) -> None:
        """With ``tools.rememberApprovals`` on, "Allow always" is written to settings (else it is not)."""
        tools = self.settings.tools
        added = approvals.always - before - set(tools.always_allow)
        if not added or not tools.remember_approvals or self.approve_all:
            return
        tools.always_allow = tuple(dict.fromkeys((*tools.always_allow, *sorted(added))))
        self.settings.save_value(("tools", "alwaysAllow"), list(tools.always_allow))

    def _append_aborted_reply(self, session: SessionManager, parent: str) -> Message:
        """pi's end of a turn stopped during tools: an empty ``aborted`` assistant after the results."""
        message = finalize(new_partial(self.provider.model), "aborted", ABORTED_MESSAGE)
        with session.background_sync():
            self._save_reply(session, message, parent)
        return message

    async def _run_turn(self, session: SessionManager, parent: str) -> Message | None:
        """Stream replies under ``parent`` (the user's entry, then each failed attempt) until done.

        The parent is fixed when the request is built and the reply is appended exactly under it,
        whatever another writer appended meanwhile (issue 13 item 2).
        """
        attempt = 0
        while True:
            message = await self._stream_reply(self._request(session, parent))
            with session.background_sync():  # no fsync on the UI thread as the reply lands
                entry_id = self._save_reply(session, message, parent)
            if entry_id is None:
                return message  # kept in a recovery file; nothing more can be built on it here
            parent = entry_id
            stop = message.get("stopReason")
            if stop == "aborted":
                return message
            if stop == "error":
                window = self.provider.model.context_window
                retry = self.settings.retry
                if retry.enabled and is_retryable(message, window) and attempt < retry.max_retries:
                    attempt += 1
                    delay_ms = retry.base_delay_ms * 2 ** (attempt - 1)
                    last_error = self._last_error_event
                    if last_error is not None and last_error.retry_after is not None:
                        delay_ms = min(max(delay_ms, int(last_error.retry_after * 1000)), retry.max_retry_delay_ms)
                    self._emit(RetryScheduled(attempt, delay_ms, str(message.get("errorMessage") or "")))
                    if not await self._pause(delay_ms / 1000):
                        return message
                    continue
                if await self._check_compaction(session, message, skip_aborted=True):
                    if not await self._pause(0.1):
                        return message
                    if session.leaf_id is not None:
                        parent = session.leaf_id  # the compaction entry
                    continue  # compacted after an overflow: retry the request once
                if not is_context_overflow(message, window):
                    self._emit(AgentError(str(message.get("errorMessage") or "The request failed")))
                return message
            self._overflow_attempted = False
            if any(block_kind(b) is BlockKind.TOOL_CALL for b in message.get("content") or []):
                last, aborted = await self._run_tools(session, entry_id, message)
                if last is None:
                    return message  # a result went to a recovery file; nothing more can follow it
                if aborted:
                    return self._append_aborted_reply(session, last)
                parent = last
                attempt = 0  # pi resets the retry count after a successful reply
                continue
            await self._check_compaction(session, message, skip_aborted=True)
            return message

    def _save_reply(self, session: SessionManager, message: Message, parent: str) -> str | None:
        """Append the reply under ``parent``; if it cannot go there, keep it in a recovery file.

        It cannot go there when the file can't be written (disk full, read-only) or when the entry it
        answers is gone (another program rewrote or truncated the file): a reply is never attached to
        a parent it does not answer, nor made a root. Returns the entry id, or ``None`` if recovered.
        """
        entry_id = self._append_under(session, message, parent)
        if entry_id is not None:
            self._emit(MessageAppended(entry_id, message))
        return entry_id

    def _append_under(self, session: SessionManager, message: Message, parent: str) -> str | None:
        """Append ``message`` exactly under ``parent``, or keep it in a recovery file (``None``)."""
        try:
            session.poll_external_changes()  # see a rewrite or truncation before choosing to append
            if session.get_entry(parent) is None:
                raise _ParentGone(
                    "The message this reply answers is no longer in the session file "
                    "(another program rewrote or truncated it)"
                )
            return session.append_message(message, parent_id=parent)
        except (_ParentGone, OSError, SessionError, SessionFileError) as exc:
            reason = str(exc) if isinstance(exc, _ParentGone) else f"The reply could not be saved: {exc}"
            self._recover(session, message, parent, reason)
            return None

    def _recover(self, session: SessionManager, message: Message, parent: str, reason: str) -> None:
        try:
            path = write_recovery_file(
                message, session_file=session.session_file, parent_id=parent, reason=reason
            )
        except OSError as exc:
            text = message_text(message.get("content"))
            self._emit(AgentError(f"{reason}; it could not be kept either ({exc}). The reply was:\n{text}"))
            return
        self._emit(ReplyRecovered(str(path), reason))

    async def _pause(self, seconds: float) -> bool:
        """Sleep between attempts; False when the user pressed Stop meanwhile."""
        try:
            await self._sleep(seconds)
        except asyncio.CancelledError:
            if self._abort_requested:
                return False
            raise
        return True

    _last_error_event: ErrorEvent | None = None

    async def _stream_reply(self, request: LLMRequest) -> Message:
        """Stream one reply, publishing every event with the partial message; an abort returns the
        partial reply as ``aborted`` (the provider's final aborted message, or ours if it had none)."""
        partial = new_partial(self.provider.model)
        self._last_error_event = None
        stream = self.provider.stream(request)
        watch = SilenceWatch(self.settings.network.waiting_notice_ms / 1000, self._emit)
        try:
            # The window shows the turn starting (a new chat row, ~10 ms with its repaint at 100,000
            # entries) in an event-loop turn of its own, before the request is converted and sent.
            await asyncio.sleep(YIELD_S)
            async for event in stream:
                watch.heard()
                partial = accumulate(event, partial)
                self._emit(StreamUpdated(event, partial))
                if isinstance(event, (Done, ErrorEvent)):
                    if isinstance(event, ErrorEvent):
                        self._last_error_event = event
                    return dict(partial)
        except asyncio.CancelledError:
            if not self._abort_requested:
                raise
            return finalize(partial, "aborted", ABORTED_MESSAGE)
        finally:
            watch.stop()
            try:
                await asyncio.shield(stream.aclose())
            except Exception:  # noqa: BLE001 - closing a broken stream must not mask the reply
                pass
        return finalize(partial, "error", STREAM_ENDED_MESSAGE)

    # ------------------------------------------------------------------------------- compaction

    @staticmethod
    def _latest_compaction_ms(session: SessionManager) -> int | None:
        for entry in reversed(session.get_branch()):
            if kind_of(entry) is EntryKind.COMPACTION:
                return parse_date_ms(entry.get("timestamp"))
        return None

    async def _check_compaction(self, session: SessionManager, message: Message | None, *, skip_aborted: bool) -> bool:
        """pi's ``_checkCompaction`` (pi-spec §5.4); True when an overflow was compacted (retry)."""
        settings = self.settings.compaction
        if message is None or not settings.enabled:
            return False
        if skip_aborted and message.get("stopReason") == "aborted":
            return False
        model = self.provider.model
        same_model = message.get("provider") == model.provider and message.get("model") == model.id
        compacted_at = self._latest_compaction_ms(session)

        def stale(msg: Any) -> bool:  # usage from before the latest compaction never counts again
            stamp = msg.get("timestamp") if isinstance(msg, dict) else None
            return compacted_at is not None and isinstance(stamp, (int, float)) and stamp <= compacted_at

        if stale(message):
            return False
        if same_model and is_context_overflow(message, model.context_window):
            if self._overflow_attempted:
                self._emit(AgentError(OVERFLOW_RECOVERY_FAILED))
                return False
            self._overflow_attempted = True
            retry = message.get("stopReason") == "error"  # a silent overflow already has its reply
            return await self._auto_compact(session, "overflow", will_retry=retry) and retry
        tokens: Any
        try:
            if message.get("stopReason") == "error":
                messages = session.build_session_context().messages
                estimate = estimate_context_tokens(messages, session.profile)
                if estimate.last_usage_index is None or stale(messages[estimate.last_usage_index]):
                    return False
                tokens = estimate.tokens
            else:
                usage = message.get("usage")
                if not isinstance(usage, dict):
                    return False
                tokens = calculate_context_tokens(usage)
        except TypeError:  # a malformed message in the file (pi would throw): no automatic compaction
            return False
        if should_compact(tokens, model.context_window, settings):
            await self._auto_compact(session, "threshold", will_retry=False)
        return False

    async def _auto_compact(self, session: SessionManager, reason: str, *, will_retry: bool) -> bool:
        try:
            await self._compact(session, reason, None, will_retry=will_retry)
        except NothingToCompactError:
            return False
        except asyncio.CancelledError:
            if self._abort_requested:
                return False
            raise
        except Exception:  # noqa: BLE001 - reported through compaction_failed; the turn goes on
            return False
        return True

    async def compact(
        self,
        custom_instructions: str | None = None,
        *,
        summary: str | None = None,
        first_kept_entry_id: str | None = None,
    ) -> str:
        """Manual compaction (pi's ``/compact``): aborts a running turn first; returns the new entry id.

        ``summary`` is the user's own summary, stored verbatim (no model call); ``first_kept_entry_id``
        is the user's cut, a ``ValueError`` (:class:`~desktop_app.compaction.manual_cut.InvalidCutError`)
        saying why and naming the nearest valid cuts when it is none. Everything else is pi's.
        """
        if self.busy:
            self.abort()
            await self.wait_idle()
        return await self._run_exclusive(
            self._compact(
                self.session, "manual", custom_instructions, will_retry=False, summary=summary, first_kept=first_kept_entry_id
            )
        )

    async def generate_summary(
        self, custom_instructions: str | None = None, *, first_kept_entry_id: str | None = None
    ) -> str:
        """The summary a manual compaction would store (file lists included), nothing written: the
        "generate" of generate → edit → :meth:`compact` ``(summary=…)``."""
        if self.busy:
            raise AgentBusyError("Arbor is busy with another request")
        level = self.thinking_level if self.thinking_level != "off" else None
        result = await self._run_exclusive(
            summarize_session(
                self.session,
                self.provider,
                settings=self.settings.compaction,
                custom_instructions=custom_instructions,
                thinking_level=level,
                first_kept_entry_id=first_kept_entry_id,
            )
        )
        return result.summary

    async def _compact(
        self,
        session: SessionManager,
        reason: str,
        custom_instructions: str | None,
        *,
        will_retry: bool,
        summary: str | None = None,
        first_kept: str | None = None,
    ) -> str:
        self._emit(CompactionStarted(reason))

        def progress(chars: int) -> None:
            self._emit(CompactionProgress(reason, chars))

        level = self.thinking_level if self.thinking_level != "off" else None
        try:
            outcome = await compact_session(
                session,
                self.provider,
                settings=self.settings.compaction,
                custom_instructions=custom_instructions,
                thinking_level=level,
                on_progress=progress,
                summary=summary,
                first_kept_entry_id=first_kept,
            )
        except asyncio.CancelledError:
            self._emit(CompactionFailed(reason, True, "Compaction cancelled"))
            raise
        except Exception as exc:
            self._emit(CompactionFailed(reason, False, str(exc)))
            raise
        self._emit(CompactionFinished(reason, outcome.entry_id, will_retry, int(outcome.result.tokens_before)))
        return outcome.entry_id

    # ------------------------------------------------------------------------------- context by hand

    def edit_context(self, entry_id: str, replacement: str | list[Any] | None) -> str:
        """Hide an entry from the model's context from now on (``None``) or replace its text: a pi 1.6.0
        ``context_edit`` (:mod:`.context_hand`); returns its id, the new leaf. :class:`ContextEditError`
        says why when pi's rules (or piVersion 0.73.1) do not allow it."""
        self._refuse_while_busy()
        return context_hand.edit_context(self.session, entry_id, replacement)

    def show_in_context(self, entry_id: str) -> str:
        """Show a hidden entry again, or restore an edited one's own text (one more edit)."""
        self._refuse_while_busy()
        return context_hand.show_in_context(self.session, entry_id)

    def expand_compaction(self, compaction_id: str) -> str | None:
        """Continue without a compaction: a new branch under its parent with copies of what followed it
        on the active path (:func:`.context_hand.expand_compaction`); returns the new leaf."""
        self._refuse_while_busy()
        return context_hand.expand_compaction(self.session, compaction_id)

    def _refuse_while_busy(self) -> None:
        if self.busy:
            raise AgentBusyError("Stop the running reply first")

    # ------------------------------------------------------------------------------- tree

    async def navigate_tree(
        self,
        target_id: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigateResult:
        """Move to another node (pi-spec §4.6), optionally summarizing the branch being left."""
        return await self._run_exclusive(
            self._navigate(target_id, summarize, custom_instructions, replace_instructions, label)
        )

    async def _navigate(
        self, target_id: str, summarize: bool, custom: str | None, replace: bool, label: str | None
    ) -> NavigateResult:
        session = self.session
        old_leaf = session.leaf_id
        if target_id == old_leaf:
            return NavigateResult()
        target = session.get_entry(target_id)
        if target is None:
            raise KeyError(f"Entry {target_id} not found")
        summary_text: str | None = None
        summary_usage: dict[str, Any] | None = None
        details: dict[str, Any] | None = None
        if summarize:
            collected = collect_entries_for_branch_summary(session, old_leaf, target_id)
            if collected.entries:
                self._emit(BranchSummaryStarted())
                try:
                    result = await generate_branch_summary(
                        collected.entries,
                        self.provider,
                        custom_instructions=custom,
                        replace_instructions=replace,
                        reserve_tokens=self.settings.branch_summary.reserve_tokens,
                        profile=session.profile,
                        thinking_level=self.thinking_level,
                    )
                except asyncio.CancelledError:
                    self._emit(BranchSummaryFinished(aborted=True))
                    if self._abort_requested:
                        return NavigateResult(cancelled=True, aborted=True)
                    raise
                if result.aborted:
                    self._emit(BranchSummaryFinished(aborted=True))
                    return NavigateResult(cancelled=True, aborted=True)
                if result.error:
                    self._emit(BranchSummaryFinished(aborted=False, error=result.error))
                    raise RuntimeError(result.error)
                summary_text, summary_usage = result.summary, result.usage
                details = result.details()
        new_leaf, editor_text = self._navigation_leaf(target, target_id)
        summary_id: str | None = None
        if summary_text is not None:
            summary_id = session.branch_with_summary(new_leaf, summary_text, details, False, summary_usage)
            self._emit(BranchSummaryFinished(aborted=False, entry_id=summary_id))
            if label:
                session.append_label_change(summary_id, label)
        else:
            if new_leaf is None:
                session.reset_leaf()
            else:
                session.branch(new_leaf)
            if label:
                session.append_label_change(target_id, label)
        return NavigateResult(editor_text=editor_text, summary_entry_id=summary_id)

    @staticmethod
    def _navigation_leaf(target: dict[str, Any], target_id: str) -> tuple[str | None, str | None]:
        """Where navigating to ``target`` puts the leaf, and the text it gives back to the editor: a
        user message or a custom message is re-asked (leaf on its parent, its text in the editor);
        any other entry becomes the leaf."""
        match kind_of(target):
            case EntryKind.MESSAGE if entry_role(target) is Role.USER:
                return target.get("parentId"), message_text(target["message"].get("content"))
            case EntryKind.CUSTOM_MESSAGE:
                return target.get("parentId"), message_text(target.get("content"))
            case _:
                return target_id, None

    def fork(self, entry_id: str, position: ForkPosition = "before") -> ForkResult:
        """A new session from this one (pi 0.73.1's ``fork``), which becomes the current session.

        ``before`` is pi's ``/fork``: ``entry_id`` must be a user message; the new session holds the
        path up to its parent and the message's text is returned for the editor. ``at`` is pi's
        ``/clone``: any entry; the new session holds the path up to and including it.
        """
        entry = self.session.get_entry(entry_id)
        if entry is None:
            raise ValueError(f"Entry {entry_id} not found")
        editor_text: str | None = None
        new_leaf: str | None
        if position == "at":
            new_leaf = entry_id
        else:
            message = message_of(entry)
            if message is None or role_of(message) is not Role.USER:
                raise ValueError("Invalid entry ID for forking: only a user message can be forked; clone other entries")
            editor_text = message_text(message.get("content"))
            parent = entry.get("parentId")
            new_leaf = parent if isinstance(parent, str) else None
        current_file = self.session.session_file
        # the sessions folder of the working folder (pi's layout), wherever the source file lives:
        # where the sessions list looks, not next to a file opened from Downloads (issue 22 item 4)
        root = self.settings.sessions_root
        directory = default_session_dir(self.session.cwd, Path(root) if root else None)
        if new_leaf is None:
            manager = (
                SessionManager.create(
                    self.session.cwd, directory, fsync=self.settings.fsync, profile=self.session.profile
                )
                if self.session.persist
                else SessionManager.in_memory(self.session.cwd, profile=self.session.profile)
            )
            manager.new_session(parent_session=current_file)
            self._switch(manager)
            return ForkResult(manager.session_file, editor_text)
        if self.session.persist and current_file:
            manager = SessionManager.open(
                current_file, directory, fsync=self.settings.fsync, profile=self.session.profile
            )
        else:
            manager = self.session
        path = manager.create_branched_session(new_leaf)
        self._switch(manager)
        return ForkResult(path, editor_text)

    def set_label(self, entry_id: str, label: str | None) -> str:
        """Label an entry (``None`` or blank clears it); returns the label entry's id."""
        if self.session.get_entry(entry_id) is None:
            raise ValueError(f"Entry {entry_id} not found")
        text = label.strip() if label is not None else ""
        return self.session.append_label_change(entry_id, text or None)

    def restore_leaf(self, entry_id: str) -> bool:
        """Put the leaf back where the user left this session (no summary, nothing written).

        False when the entry no longer exists or is already the leaf, or while a turn is running.
        """
        if self.busy or entry_id == self.session.leaf_id or self.session.get_entry(entry_id) is None:
            return False
        self.session.branch(entry_id)
        return True

    def follow_file(self) -> list[dict[str, Any]]:
        """Read what other programs appended to the session file since the last look (the window's timer).

        Raises :class:`~desktop_app.session.SessionError` or ``OSError`` when the file cannot be read.
        """
        return self.session.poll_external_changes()

    def close(self) -> None:
        """Stop what is running and release the session (pending entries are flushed if possible)."""
        self.abort()
        self.session.close()

    def open_session_file(self, path: str | Path) -> None:
        """Open a session file (with the settings' fsync) and make it the current session.

        Raises :class:`SessionOpenError` with a message for the user; the current session is kept.
        """
        if self.busy:
            raise SessionOpenError("Stop the running reply before opening another session")
        try:
            # a Claude Code transcript opens read-only, converted (DESIGN.md §14); pi's files as pi's
            manager = open_session_or_transcript(path, fsync=self.settings.fsync, profile=self.settings.profile)
        except (OSError, SessionError, SessionFileError, TranscriptError, ValueError) as exc:
            raise SessionOpenError(f"Cannot open {path}: {exc}") from exc
        self._switch(manager)

    def continue_in_arbor(self) -> str:
        """"Continue in Arbor" for a session shown read-only from another program (a Claude Code
        transcript): write it as a new pi session in the sessions folder of its working folder (the
        source is only read), open that, and return its path.

        Raises :class:`SessionOpenError` with a message for the user; the current session is kept.
        """
        view = self.session
        if view.report.foreign is None or view.session_file is None:
            raise SessionOpenError("Only a session from another program (a Claude Code transcript) is continued this way")
        if self.busy:
            raise SessionOpenError("Stop the running reply first")
        root = self.settings.sessions_root
        directory = default_session_dir(view.cwd, Path(root) if root else None)
        try:
            path = continue_in_arbor(view.session_file, directory)
            manager = SessionManager.open(path, fsync=self.settings.fsync, profile=self.settings.profile)
        except (OSError, SessionError, SessionFileError, TranscriptError, ValueError) as exc:
            raise SessionOpenError(f"Cannot continue {view.session_file}: {exc}") from exc
        self._switch(manager)
        return str(path)

    @property
    def view(self) -> SessionView:
        """The current session, read-only: views hold this, and change the session only through the
        agent's commands."""
        return self.session

    @property
    def is_offline(self) -> bool:
        """The model never leaves the process (the window shows the offline banner)."""
        return self.provider.is_offline

    def new_session(self, cwd: str | None = None) -> str | None:
        """pi's ``/new``: an empty session in the current session directory, or, for another working
        folder, in that folder's directory under the sessions root (pi's layout)."""
        directory = self.session.session_dir
        if cwd is not None and cwd != self.session.cwd:
            root = self.settings.sessions_root
            directory = default_session_dir(cwd, Path(root) if root else None)
        manager = (
            SessionManager.create(
                cwd or self.session.cwd, directory, fsync=self.settings.fsync, profile=self.session.profile
            )
            if self.session.persist
            else SessionManager.in_memory(cwd or self.session.cwd, profile=self.session.profile)
        )
        self._switch(manager)
        return manager.session_file

    def rename_session(self, name: str, path: str | Path | None = None) -> str:
        """Name a session (pi's ``/name``): one ``session_info`` entry appended to it; returns its id.

        ``path`` names another session file (the Sessions panel renames any of them); it is opened,
        appended to and closed. A blank name clears the name, as in pi.
        """
        current = self.session.session_file
        if path is None or (current is not None and Path(path).resolve() == Path(current).resolve()):
            return self.session.append_session_info(name)
        try:
            other = SessionManager.open(path, fsync=self.settings.fsync)
        except (OSError, SessionError, SessionFileError, ValueError) as exc:
            raise SessionOpenError(f"Cannot open {path}: {exc}") from exc
        try:
            return other.append_session_info(name)
        finally:
            other.close()

    def _switch(self, manager: SessionManager) -> None:
        if self.busy:
            self.abort()
        if manager is not self.session:
            self.session.close()
        self.session = manager
        self._overflow_attempted = False
        self.approvals = self._new_approvals()  # "Allow always" lasts for one session
        self._mutation_queue = MutationQueue()
        self._cwd_override = None
        self.thinking_level = self._restore_thinking_level()
        self._emit(SessionChanged(manager.session_file))

    # ------------------------------------------------------------------------------- model

    def set_model(self, provider: Provider) -> bool:
        """Use another model; appends ``model_change`` only when the model actually changes."""
        old, new = self.provider.model, provider.model
        self.provider = provider
        if (old.provider, old.id) == (new.provider, new.id):
            return False
        self.session.append_model_change(new.provider, new.id)
        self.set_thinking_level(self.thinking_level)
        return True

    def set_thinking_level(self, level: str) -> bool:
        """Clamp to the model and append ``thinking_level_change`` only when the level changes."""
        clamped = self._clamp(level)
        if clamped == self.thinking_level and self._branch_has_thinking_change():
            return False
        self.thinking_level = clamped
        self.session.append_thinking_level_change(clamped)
        return True

    def context_usage(self, messages: list[Message] | None = None) -> ContextUsage:
        """The meter (pi-spec §5.3): unknown right after a compaction until a reply reports usage.

        ``messages`` may pass the current context when the caller has just built it.
        """
        model = self.provider.model
        reserve = self.settings.compaction.reserve_tokens
        branch = self.session.get_context_branch()  # from the newest compaction's kept range: short
        last_compaction = next(
            (i for i in range(len(branch) - 1, -1, -1) if kind_of(branch[i]) is EntryKind.COMPACTION), -1
        )
        try:
            if last_compaction >= 0:
                profile = self.session.profile
                usages = (get_assistant_usage(e.get("message"), profile) for e in branch[last_compaction + 1 :])
                if not any(u is not None and calculate_context_tokens(u) > 0 for u in usages):
                    return ContextUsage(None, model.context_window, reserve)
            if messages is None:
                messages = self.session.build_session_context().messages
            tokens = estimate_context_tokens(messages, self.session.profile).tokens
        except TypeError:  # a malformed message (pi would throw): show "?" rather than fail
            return ContextUsage(None, model.context_window, reserve)
        return ContextUsage(int(tokens) if tokens == tokens else None, model.context_window, reserve)
