"""A Claude Code transcript shown read-only, and written as a pi session ("Continue in Arbor").

One conversion (:mod:`.convert`) feeds both, so the window shows exactly what ``arbor import``
writes and pi continues from. The source file is only ever read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from desktop_app.session import SessionManager
from desktop_app.session.entries import serialize_line, uuid7
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.manager import OpenReport, gc_paused_then_frozen
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .convert import Conversion, conversion_order, convert
from .detect import is_claude_code_transcript
from .first_picture import first_picture_nodes
from .lines import read_lines
from .model import Transcript, build_transcript

__all__ = ["FOREIGN_NAME", "ImportResult", "TranscriptError", "continue_in_arbor", "import_transcript",
           "load_transcript", "open_session_or_transcript", "open_transcript"]

FOREIGN_NAME = "Claude Code"


class TranscriptError(Exception):
    """A transcript cannot be read or written; the message is for the user."""


@dataclass(frozen=True)
class ImportResult:
    out: Path
    entries: int
    messages: int
    compactions: int
    notes: tuple[str, ...]


def load_transcript(path: str | Path) -> tuple[Transcript, Conversion]:
    """Read, model and convert ``path`` (``TranscriptError`` when it cannot be read)."""
    # ~20 objects per line and no cycles: the cyclic GC would rescan them over and over (half the
    # time of a 100 MB open), so it waits, and what was loaded is frozen out of its sight after.
    with gc_paused_then_frozen():
        return _load(path)


def _load(path: str | Path) -> tuple[Transcript, Conversion]:
    try:
        lines = read_lines(path)
    except OSError as exc:
        raise TranscriptError(f"cannot read {path}: {exc.strerror or exc}") from exc
    transcript = build_transcript(lines, path)
    return transcript, convert(transcript)


def _report(transcript: Transcript) -> OpenReport:
    lines = transcript.lines
    notes = list(transcript.notes)
    if lines.malformed_lines:
        shown = ", ".join(str(n) for n in lines.malformed_lines[:10])
        notes.append(f"skipped {len(lines.malformed_lines)} unreadable line(s): {shown}"
                     + ("…" if len(lines.malformed_lines) > 10 else ""))
    if lines.torn_last_line:
        notes.append("the last line is cut short (Claude Code stopped mid-write): left unread")
    if transcript.unknown:
        kinds = sorted({kind for _, kind in transcript.unknown})
        notes.append(f"{len(transcript.unknown)} line(s) of a type this version does not know "
                     f"({', '.join(kinds)}): kept, not shown as messages")
    return OpenReport(malformed_lines=list(lines.malformed_lines), torn_last_line=lines.torn_last_line,
                      foreign=FOREIGN_NAME, notes=notes)


def open_transcript(path: str | Path, *, profile: PiProfile = PI_1_6_0, defer: bool = False) -> SessionManager:
    """The transcript as a read-only session (its entries are what an import would write).

    ``defer=True`` (``arbor FILE``, a file of at least ``SessionManager.DEFER_MIN_BYTES``): the
    whole file is read and its tree built, but only the first picture's nodes are converted
    (:mod:`.first_picture`); the rest is converted by :meth:`~SessionManager.load_in_background`
    (or the first call that needs the whole session) and installed by ``finish_loading``, with the
    same entries as without ``defer``."""
    with gc_paused_then_frozen():  # one pause for the lines, the tree, the entries and the index
        try:
            lines = read_lines(path)
        except OSError as exc:
            raise TranscriptError(f"cannot read {path}: {exc.strerror or exc}") from exc
        transcript = build_transcript(lines, path)
        order = conversion_order(transcript)
        chosen = first_picture_nodes(transcript, order) if defer and lines.size >= SessionManager.DEFER_MIN_BYTES else None
        if chosen is None:
            return _session(transcript, convert(transcript, order=order), path, profile)
        first = convert(transcript, only=chosen, order=order)

        def whole() -> SessionManager:  # on the loading thread: the tree is read, only the entries are left
            with gc_paused_then_frozen():
                return _session(transcript, convert(transcript, order=order), path, profile)

        return SessionManager.from_entries(first.header, first.entries, source=path, report=_report(transcript),
                                           profile=profile, full_load=whole)


def _session(transcript: Transcript, conversion: Conversion, path: str | Path, profile: PiProfile) -> SessionManager:
    return SessionManager.from_entries(conversion.header, conversion.entries, source=path,
                                       report=_report(transcript), profile=profile)


def open_session_or_transcript(
    path: str | Path, *, fsync: bool = True, profile: PiProfile = PI_1_6_0, defer: bool = False
) -> SessionManager:
    """What ``arbor FILE`` and Open… do: a Claude Code transcript read-only, anything else as pi's
    (``defer``: a big file opened from its first picture's part, the rest installed later:
    ``SessionManager.open(defer=True)``, :func:`open_transcript`)."""
    if os.path.isfile(path) and is_claude_code_transcript(path):
        return open_transcript(path, profile=profile, defer=defer)
    return SessionManager.open(path, fsync=fsync, profile=profile, defer=defer)


def import_transcript(path: str | Path, out: str | Path, *, session_id: str | None = None) -> ImportResult:
    """Write ``path`` as a pi v3 session at ``out`` (a new file: an existing one is never replaced).

    ``session_id`` names the new session (default: the transcript's own id, so importing the same
    file twice gives the same bytes); "Continue in Arbor" passes a fresh one.
    """
    source, target = Path(path), Path(out)
    if target.exists() or target.is_symlink():
        raise TranscriptError(f"{out} already exists: choose another --out (nothing was written)")
    try:
        if target.resolve() == source.resolve():
            raise TranscriptError("the output must be a new file, not the transcript itself")
    except OSError:
        pass
    transcript, conversion = load_transcript(source)
    if not conversion.entries:
        raise TranscriptError(f"{path} holds no Claude Code conversation (nothing was written)")
    header = dict(conversion.header)
    if session_id is not None:
        header["id"] = session_id
    text = serialize_line(header) + "".join(serialize_line(entry) for entry in conversion.entries)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as exc:
        raise TranscriptError(f"{out} already exists: choose another --out (nothing was written)") from exc
    except OSError as exc:
        raise TranscriptError(f"cannot write {out}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        target.unlink(missing_ok=True)  # the file is ours (O_EXCL): no half a session is left behind
        raise TranscriptError(f"cannot write {out}: {exc.strerror or exc}") from exc
    kinds = [kind_of(e) for e in conversion.entries]
    messages, compactions = kinds.count(EntryKind.MESSAGE), kinds.count(EntryKind.COMPACTION)
    return ImportResult(target, len(conversion.entries), messages, compactions, tuple(_report(transcript).notes))


def continue_in_arbor(path: str | Path, sessions_dir: str | Path) -> Path:
    """Import ``path`` as a new session in ``sessions_dir`` (pi's file naming) and return its path."""
    from desktop_app.session.entries import iso_now
    from desktop_app.session.paths import session_file_name

    session_id = uuid7()
    out = Path(sessions_dir) / session_file_name(iso_now(), session_id)
    return import_transcript(path, out, session_id=session_id).out
