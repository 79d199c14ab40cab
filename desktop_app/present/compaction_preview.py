"""A dry run of manual compaction: what ``/compact`` would summarize and keep, before anything is sent.

Computed by :func:`~desktop_app.compaction.prepare.prepare_compaction` itself, with the session's
pi-version profile — the very plan ``compact_session`` hands to the model — so the bands drawn on the graph are exactly the ranges the
compaction will use: the summarized band ``[boundary_start, first_kept)``, the kept band
``[first_kept, end)``, the cut line between them, whether a turn is split, the tokens before. When
nothing would be summarized it says so plainly, and there is nothing to run (issue 9, Found item 9).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.compaction.audit import CompactionAudit
from desktop_app.compaction.manual_cut import InvalidCutError
from desktop_app.compaction.prepare import CompactionPreparation, prepare_compaction
from desktop_app.compaction.tokens import CompactionSettings, estimate_tokens
from desktop_app.session import SessionView
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .context_meter import format_tokens

__all__ = ["PREVIEW_ID", "CompactionPreview", "bands_audit", "planned_ids", "preview_compaction"]

PREVIEW_ID = "(compaction preview)"  #: the ``compaction_id`` of the preview drawn as an audit


@dataclass(frozen=True)
class CompactionPreview:
    """The plan of a manual compaction of the active path (no entry written)."""

    nothing_reason: str | None  #: why nothing would be summarized (``None``: something would)
    summarized_ids: tuple[str, ...]
    kept_ids: tuple[str, ...]
    first_kept_entry_id: str | None
    cut_after_id: str | None
    is_split_turn: bool
    tokens_before: int
    summarized_tokens: int  #: estimate of the messages the model would summarize
    previous_compaction_id: str | None

    @property
    def runnable(self) -> bool:
        return self.nothing_reason is None

    def describe(self) -> str:
        """The facts in plain words, for the dialog."""
        if self.nothing_reason is not None:
            return f"Nothing would be summarized: {self.nothing_reason}."
        lines = [
            f"{len(self.summarized_ids)} entries (about {format_tokens(self.summarized_tokens)} tokens) "
            "would be replaced by a summary.",
            f"{len(self.kept_ids)} recent entries are kept verbatim, from the cut line down to the leaf.",
            f"Context now: about {format_tokens(self.tokens_before)} tokens.",
        ]
        if self.is_split_turn:
            lines.append("The cut falls inside a turn: its beginning is summarized separately (split turn).")
        if self.previous_compaction_id is not None:
            lines.append("The previous compaction's summary is carried into the new one.")
        return "\n".join(lines)

    def as_audit(self) -> CompactionAudit:
        """The preview in the shape the graph draws a compaction's audit (bands and cut line)."""
        return bands_audit(
            PREVIEW_ID,
            self.summarized_ids,
            self.kept_ids,
            first_kept=self.first_kept_entry_id,
            cut_after=self.cut_after_id,
            tokens_before=self.tokens_before,
            split_turn=self.is_split_turn,
            previous=self.previous_compaction_id,
        )


def bands_audit(
    name: str,
    summarized: tuple[str, ...],
    kept: tuple[str, ...] = (),
    *,
    first_kept: str | None = None,
    cut_after: str | None = None,
    tokens_before: int | None = None,
    split_turn: bool = False,
    previous: str | None = None,
) -> CompactionAudit:
    """A band to draw on the graph (dimmed ``summarized``, outlined ``kept``) that no entry made yet:
    a compaction's dry run, or the branch a summary would stand for."""
    return CompactionAudit(
        compaction_id=name,
        summary="",
        tokens_before=tokens_before,
        first_kept_entry_id=first_kept,
        first_kept_found=first_kept is not None,
        summarized_ids=summarized,
        kept_ids=kept,
        cut_after_id=cut_after,
        cut_before_id=first_kept,
        previous_compaction_id=previous,
        read_files=(),
        modified_files=(),
        is_split_turn=split_turn,
        from_hook=False,
    )


def _nothing(reason: str, tokens: int = 0) -> CompactionPreview:
    return CompactionPreview(reason, (), (), None, None, False, tokens, 0, None)


def planned_ids(preparation: CompactionPreparation, path: list[Entry]) -> list[str]:
    """The entry ids the preparation's indices refer to: pi 1.6.0 plans on the context projection
    (``preparation.projected``), pi 0.73.1 on the path itself."""
    entries = [p.source for p in preparation.projected] if preparation.projected is not None else path
    return [str(e.get("id")) for e in entries]


def preview_compaction(
    view: SessionView,
    settings: CompactionSettings,
    profile: PiProfile = PI_1_6_0,
    *,
    first_kept_entry_id: str | None = None,
) -> CompactionPreview:
    """What compacting the active path now would do: ``prepare_compaction`` on it with the session's
    pi-version ``profile`` (the plan ``compact_session`` will use), nothing written.

    ``first_kept_entry_id``: the cut the user dragged (issue 26) instead of pi's; one that is no valid
    cut gives a preview with nothing to run whose reason is the refusal ``compact`` would raise."""
    path = view.get_branch()
    if not path:
        return _nothing("the session is empty")
    if kind_of(path[-1]) is EntryKind.COMPACTION:
        return _nothing("the branch ends in a compaction already")
    keep = format_tokens(settings.keep_recent_tokens)
    try:
        preparation = prepare_compaction(path, settings, profile, first_kept_entry_id=first_kept_entry_id)
    except InvalidCutError as exc:
        return _nothing(str(exc))
    except TypeError:  # a message pi cannot read (an edit left it without content, say): pi throws too
        return _nothing("a message on this branch cannot be read, so pi could not plan a compaction")
    if preparation is None:
        return _nothing(f"everything since the last compaction fits in the {keep} tokens kept verbatim")
    ids = planned_ids(preparation, path)
    start, cut, end = preparation.boundary_start, preparation.first_kept_entry_index, preparation.boundary_end
    messages = preparation.messages_to_summarize + preparation.turn_prefix_messages
    tokens_before = int(preparation.tokens_before) if preparation.tokens_before == preparation.tokens_before else 0
    if not messages:
        return _nothing(f"everything since the last compaction fits in the {keep} tokens kept verbatim", tokens_before)
    prev = preparation.prev_compaction_index
    return CompactionPreview(
        nothing_reason=None,
        summarized_ids=tuple(ids[start:cut]),
        kept_ids=tuple(ids[cut:end]),
        first_kept_entry_id=preparation.first_kept_entry_id,
        cut_after_id=ids[cut - 1] if cut > 0 else None,
        is_split_turn=preparation.is_split_turn,
        tokens_before=tokens_before,
        summarized_tokens=int(sum(estimate_tokens(m) for m in messages)),
        previous_compaction_id=str(path[prev].get("id")) if 0 <= prev < len(path) else None,
    )
