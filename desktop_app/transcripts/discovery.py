"""Where Claude Code keeps its transcripts, and what the Sessions panel lists of each one.

Claude Code writes ``<config>/projects/<folder>/<sessionId>.jsonl``, ``<config>`` being
``$CLAUDE_CONFIG_DIR`` or ``~/.claude``: one folder per working folder, as pi's layout, so
:class:`~desktop_app.session.catalog.SessionCatalog` lists and caches them with
:func:`transcript_info_from_text` as its record builder. The record is built from the same
conversion the window shows (titles, counts and search text agree with what opens), grouped by
the transcript's own ``cwd`` (the folder name is a lossy encoding of it). Subagent files
(``agent-*.jsonl``, or a file holding only sidechain lines) are not conversations of their own.
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop_app.session.catalog import NO_MESSAGES, SessionInfo
from desktop_app.session.entries import message_text, parse_date_ms
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of

from .convert import convert
from .lines import parse_lines
from .model import NodeKind, build_transcript

__all__ = ["claude_config_dir", "claude_projects_root", "transcript_info_from_text"]


def claude_config_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR`` (``~`` expanded) or ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(os.path.expanduser(env)) if env else Path.home() / ".claude"


def claude_projects_root() -> Path:
    return claude_config_dir() / "projects"


def transcript_info_from_text(path: Path, text: str, mtime_ms: int) -> SessionInfo | None:
    """The listing record of a transcript (``None``: a subagent file or no conversation)."""
    if path.name.startswith("agent-"):
        return None
    transcript = build_transcript(parse_lines(text.encode("utf-8", "surrogatepass")), path)
    if not any(n.kind is not NodeKind.SIDECHAIN for n in transcript.nodes.values()):
        return None
    conversion = convert(transcript)
    texts: list[str] = []
    others: list[str] = []
    count = 0
    last = 0
    for entry in conversion.entries:
        kind = kind_of(entry)
        if kind is EntryKind.COMPACTION:
            others.append(str(entry.get("summary", "")))
            continue
        if kind is not EntryKind.MESSAGE:
            continue
        count += 1
        message = entry["message"]
        content_text = message_text(message.get("content"), " ")
        if role_of(message) in (Role.USER, Role.ASSISTANT):
            if content_text:
                texts.append(content_text)
        else:
            others.append(content_text)
        stamp = parse_date_ms(entry.get("timestamp"))
        if stamp is not None and stamp > last:
            last = stamp
    created = parse_date_ms(transcript.first_timestamp) if transcript.first_timestamp else None
    return SessionInfo(
        path=path,
        id=transcript.session_id,
        cwd=transcript.cwd,
        name=" ".join(transcript.name.split()) if transcript.name else None,
        parent_session_path=None,
        created=created,
        modified=last or mtime_ms,
        message_count=count,
        first_message=transcript.first_prompt or NO_MESSAGES,
        all_messages_text=" ".join(texts),
        other_text=" ".join(t for t in others if t),
    )
