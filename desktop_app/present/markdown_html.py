"""Markdown → safe HTML, the parts that need no Qt: highlighted code blocks, fences, the nesting cap,
prose chunks and escaping.

Session text is untrusted; ``ui.markdown`` parses the prose with Qt and never loads a resource. Here:
control characters are replaced (:func:`sanitize_text`); code is escaped and highlighted by a small
regex highlighter for common languages (Python, JS/TS, JSON, shell, Rust, Go, C/C++, Java, YAML,
TOML, SQL, HTML/XML, CSS, diff) inside a padded box; top-level fenced code blocks are cut out of the
prose (:func:`split_fences`); list and quote nesting is capped (:func:`cap_nesting`); and long prose
is cut into chunks that render as the whole does (:func:`prose_chunks`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

__all__ = [
    "CHUNK_CHARS",
    "CodeColors",
    "MAX_NESTING",
    "canonical_language",
    "cap_nesting",
    "code_block_html",
    "code_colors",
    "escape",
    "highlight_code",
    "markdown_pieces",
    "prose_chunks",
    "sanitize_text",
    "split_fences",
]


# ================================================================================ text

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def sanitize_text(text: str) -> str:
    """Replace control characters (other than tab/newline/CR) that Qt's rich text mishandles.

    A NUL in a tool argument would otherwise cut a line short in the document.
    """
    return _CONTROL.sub("\ufffd", text) if _CONTROL.search(text) else text


# ================================================================================ colours


@dataclass(frozen=True)
class CodeColors:
    """Colours for code, links and inline code; one set per theme."""

    background: str
    border: str
    inline_background: str
    text: str
    link: str
    tokens: dict[str, str]


_LIGHT = CodeColors(
    background="#f6f8fa",
    border="#d0d7de",
    inline_background="#eceff2",
    text="#1f2328",
    link="#0969da",
    tokens={
        "keyword": "#cf222e",
        "string": "#0a3069",
        "comment": "#6e7781",
        "number": "#0550ae",
        "builtin": "#8250df",
        "key": "#0550ae",
        "variable": "#953800",
        "added": "#116329",
        "removed": "#82071e",
        "hunk": "#8250df",
        "tag": "#116329",
    },
)
_DARK = CodeColors(
    background="#161b22",
    border="#30363d",
    inline_background="#2d333b",
    text="#e6edf3",
    link="#58a6ff",
    tokens={
        "keyword": "#ff7b72",
        "string": "#a5d6ff",
        "comment": "#8b949e",
        "number": "#79c0ff",
        "builtin": "#d2a8ff",
        "key": "#79c0ff",
        "variable": "#ffa657",
        "added": "#7ee787",
        "removed": "#ffa198",
        "hunk": "#d2a8ff",
        "tag": "#7ee787",
    },
)


def code_colors(dark: bool) -> CodeColors:
    """The colour set for a light or dark theme."""
    return _DARK if dark else _LIGHT


# ================================================================================ highlighter

_DQ = r'"(?:[^"\\\n]|\\.)*"'
_SQ = r"'(?:[^'\\\n]|\\.)*'"
_BT = r"`(?:[^`\\]|\\.)*`"
_NUM = r"\b(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)\b"
_HASH_COMMENT = r"#[^\n]*"
_C_COMMENT = r"//[^\n]*|/\*[\s\S]*?\*/"


def _words(words: str) -> str:
    return r"\b(?:" + "|".join(sorted(words.split(), key=len, reverse=True)) + r")\b"


_C_LIKE_KW = (
    "if else for while do switch case default break continue return goto struct union enum typedef "
    "const static extern volatile sizeof inline void char short int long float double signed unsigned "
    "auto register class public private protected virtual override template typename namespace using "
    "new delete this try catch throw nullptr bool true false NULL"
)

_LANGUAGES: dict[str, list[tuple[str, str]]] = {
    "python": [
        ("string", r'[rbfuRBFU]{0,2}"""[\s\S]*?"""|[rbfuRBFU]{0,2}\'\'\'[\s\S]*?\'\'\''),
        ("comment", _HASH_COMMENT),
        ("string", r"[rbfuRBFU]{0,2}(?:" + _DQ + "|" + _SQ + ")"),
        ("builtin", r"@[\w.]+"),
        (
            "keyword",
            _words(
                "False None True and as assert async await break class continue def del elif else except "
                "finally for from global if import in is lambda nonlocal not or pass raise return try while "
                "with yield match case"
            ),
        ),
        (
            "builtin",
            _words("self cls print len range str int float dict list set tuple bool isinstance super"),
        ),
        ("number", _NUM),
    ],
    "javascript": [
        ("comment", _C_COMMENT),
        ("string", _DQ + "|" + _SQ + "|" + _BT),
        (
            "keyword",
            _words(
                "async await break case catch class const continue debugger default delete do else export "
                "extends finally for from function if import in instanceof let new of return static super "
                "switch this throw try typeof var void while with yield interface type enum implements "
                "private public protected readonly as declare namespace abstract keyof"
            ),
        ),
        ("builtin", _words("true false null undefined NaN Infinity console window document Promise")),
        ("number", _NUM),
    ],
    "json": [
        ("key", _DQ + r"(?=\s*:)"),
        ("string", _DQ),
        ("builtin", _words("true false null")),
        ("number", r"-?" + _NUM),
    ],
    "bash": [
        ("comment", r"(?<![\w$])#[^\n]*"),
        ("string", _DQ + "|" + _SQ),
        ("variable", r"\$\{[^}\n]*\}|\$(?:\w+|[@#?*!$-])"),
        (
            "keyword",
            _words(
                "if then else elif fi for while until do done case esac in function return local export exit"
            ),
        ),
        ("builtin", _words("echo cd ls cat grep sed awk rm cp mv mkdir git npm pip python sudo set source")),
    ],
    "rust": [
        ("comment", _C_COMMENT),
        ("string", r'b?"(?:[^"\\]|\\.)*"'),
        (
            "keyword",
            _words(
                "as async await break const continue crate dyn else enum extern false fn for if impl in let "
                "loop match mod move mut pub ref return self Self static struct super trait true type unsafe "
                "use where while"
            ),
        ),
        ("builtin", r"\b(?:Some|None|Ok|Err|Vec|String|Option|Result|Box)\b|\b\w+!"),
        ("number", _NUM),
    ],
    "go": [
        ("comment", _C_COMMENT),
        ("string", _DQ + "|" + _BT + "|" + _SQ),
        (
            "keyword",
            _words(
                "break case chan const continue default defer else fallthrough for func go goto if import "
                "interface map package range return select struct switch type var"
            ),
        ),
        ("builtin", _words("true false nil iota append len cap make new panic recover error string int")),
        ("number", _NUM),
    ],
    "c": [
        ("comment", _C_COMMENT),
        ("builtin", r"^\s*#\s*\w+"),
        ("string", _DQ + "|" + _SQ),
        ("keyword", _words(_C_LIKE_KW)),
        ("number", _NUM),
    ],
    "java": [
        ("comment", _C_COMMENT),
        ("string", _DQ + "|" + _SQ),
        ("builtin", r"@\w+"),
        (
            "keyword",
            _words(
                _C_LIKE_KW
                + " abstract extends final implements import instanceof interface package super synchronized "
                "throws val var fun object when null"
            ),
        ),
        ("number", _NUM),
    ],
    "yaml": [
        ("comment", r"(?<!\S)#[^\n]*"),
        ("key", r"^[ \t-]*[\w.\-\"' ]+(?=:(?:\s|$))"),
        ("string", _DQ + "|" + _SQ),
        ("builtin", _words("true false null yes no on off")),
        ("number", _NUM),
    ],
    "toml": [
        ("comment", _HASH_COMMENT),
        ("hunk", r"^\s*\[[^\]\n]*\]+"),
        ("key", r"^\s*[\w.\-\"]+(?=\s*=)"),
        ("string", r'"""[\s\S]*?"""|' + _DQ + "|" + _SQ),
        ("builtin", _words("true false")),
        ("number", _NUM),
    ],
    "sql": [
        ("comment", r"--[^\n]*|/\*[\s\S]*?\*/"),
        ("string", _SQ + "|" + _DQ),
        (
            "keyword",
            r"(?i)\b(?:select|from|where|insert|into|values|update|set|delete|create|table|drop|alter|join|"
            r"left|right|inner|outer|on|group|by|order|having|limit|and|or|not|null|as|distinct|index|primary|"
            r"key|references|union|all|case|when|then|else|end|in|is|like|exists|begin|commit)\b",
        ),
        ("number", _NUM),
    ],
    "html": [
        ("comment", r"<!--[\s\S]*?-->"),
        ("tag", r"</?[\w:-]+|/?>"),
        ("key", r"\b[\w:-]+(?==)"),
        ("string", _DQ + "|" + _SQ),
    ],
    "css": [
        ("comment", r"/\*[\s\S]*?\*/"),
        ("string", _DQ + "|" + _SQ),
        ("key", r"[\w-]+(?=\s*:)"),
        ("number", r"#[0-9a-fA-F]{3,8}\b|" + _NUM + r"(?:px|em|rem|%|vh|vw|s|ms)?"),
    ],
    "diff": [
        ("hunk", r"^@@[^\n]*"),
        ("comment", r"^(?:diff|index|---|\+\+\+)[^\n]*"),
        ("added", r"^\+[^\n]*"),
        ("removed", r"^-[^\n]*"),
    ],
}

_ALIASES = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "javascript",
    "tsx": "javascript",
    "typescript": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsonc": "json",
    "json5": "json",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "console": "bash",
    "shellsession": "bash",
    "rs": "rust",
    "golang": "go",
    "h": "c",
    "cpp": "c",
    "c++": "c",
    "cc": "c",
    "hpp": "c",
    "cxx": "c",
    "kotlin": "java",
    "kt": "java",
    "scala": "java",
    "csharp": "java",
    "cs": "java",
    "yml": "yaml",
    "xml": "html",
    "svg": "html",
    "vue": "html",
    "scss": "css",
    "less": "css",
    "patch": "diff",
}


def canonical_language(language: str | None) -> str | None:
    """``"TS"`` → ``"javascript"``; ``None`` for languages the highlighter does not know."""
    if not language:
        return None
    name = language.strip().lower().split()[0] if language.strip() else ""
    name = name.lstrip(".{").rstrip("}")
    name = _ALIASES.get(name, name)
    return name if name in _LANGUAGES else None


@cache
def _master_regex(language: str) -> re.Pattern[str]:
    parts = []
    for i, (kind, pattern) in enumerate(_LANGUAGES[language]):
        inline_flags = ""
        if pattern.startswith("(?i)"):
            inline_flags, pattern = "(?i:", pattern[4:]
        body = f"{inline_flags}{pattern})" if inline_flags else pattern
        parts.append(f"(?P<{kind}__{i}>{body})")
    return re.compile("|".join(parts), re.MULTILINE)


def _tokens(code: str, language: str) -> Iterator[tuple[str | None, str]]:
    pos = 0
    for match in _master_regex(language).finditer(code):
        if match.start() == match.end():
            continue
        if match.start() > pos:
            yield None, code[pos : match.start()]
        kind = (match.lastgroup or "").split("__", 1)[0]
        yield kind, match.group()
        pos = match.end()
    if pos < len(code):
        yield None, code[pos:]


def highlight_code(code: str, language: str | None, *, dark: bool = False) -> str:
    """Escaped HTML for ``code`` with ``<span style="color">`` around tokens (no ``<pre>`` around)."""
    code = sanitize_text(code)
    lang = canonical_language(language)
    if lang is None:
        return html.escape(code, quote=False)
    colors = code_colors(dark).tokens
    out: list[str] = []
    for kind, text in _tokens(code, lang):
        escaped = html.escape(text, quote=False)
        if kind is None:
            out.append(escaped)
        else:
            style = f"color:{colors[kind]};"
            if kind == "comment":
                style += " font-style:italic;"
            out.append(f'<span style="{style}">{escaped}</span>')
    return "".join(out)


def code_block_html(code: str, language: str | None, *, dark: bool = False) -> str:
    """A highlighted code block in a padded, tinted box (a one-cell table: Qt pads cells, not blocks)."""
    colors = code_colors(dark)
    body = highlight_code(code.rstrip("\n"), language, dark=dark)
    return (
        f'<table width="100%" cellspacing="0" cellpadding="6" border="1" bgcolor="{colors.background}" '
        f'style="border-color:{colors.border}; border-style:solid; margin-top:4px; margin-bottom:6px;">'
        f'<tr><td><pre style="margin:0px; white-space:pre-wrap; color:{colors.text};">{body}</pre></td></tr></table>'
    )


# ================================================================================ fences

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


def split_fences(text: str) -> list[tuple[str, str | None, str]]:
    """Cut ``text`` into ``("markdown", None, text)`` and ``("code", language, code)`` pieces.

    CommonMark fence rules for top-level fences: an opener of 3+ backticks or tildes indented at
    most 3 spaces (a backtick info string has no backticks), closed by the same character at least
    as long, or by the end of the text.
    """
    pieces: list[tuple[str, str | None, str]] = []
    lines = text.split("\n")
    prose: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if match and not (match.group(2)[0] == "`" and "`" in match.group(3)):
            indent, fence, info = len(match.group(1)), match.group(2), match.group(3).strip()
            closer = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
            code: list[str] = []
            i += 1
            while i < len(lines) and not closer.match(lines[i]):
                line = lines[i]
                strip = min(indent, len(line) - len(line.lstrip(" ")))
                code.append(line[strip:])
                i += 1
            i += 1  # the closing fence (or past the end)
            if prose:
                pieces.append(("markdown", None, "\n".join(prose)))
                prose = []
            pieces.append(("code", info.split()[0] if info else None, "\n".join(code)))
            continue
        prose.append(lines[i])
        i += 1
    if prose:
        pieces.append(("markdown", None, "\n".join(prose)))
    return pieces


# ================================================================================ nesting

#: Deepest list / block-quote nesting rendered as such; deeper markers are shown as text. Qt's
#: layout of nested lists is superlinear (``"- " * 600`` alone takes ~0.1 s, 10,000 levels ~20 s),
#: and no message needs more levels than a reader can follow.
MAX_NESTING = 16
_CONTAINER = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)| {0,3}>[ \t]?")
_INDENT = re.compile(r"[ \t]+")
_THEMATIC_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")  # "- - -": a rule, not lists


def cap_nesting(markdown: str, limit: int = MAX_NESTING) -> str:
    """``markdown`` with container nesting capped at ``limit`` levels (issue 13: a one-line
    ``"- " * 10000`` froze the window for 22 s).

    Two ways to nest deeply: many list / quote markers at the start of one line, and indentation
    growing line by line. Past ``limit`` markers, the next marker is backslash-escaped so the rest
    of the line is plain paragraph text; leading indentation is cut to what ``limit`` levels need
    (2 columns a level, as ``"- "`` opens one), and indentation counts towards the markers' cap.
    Lines within the cap are returned unchanged, so ordinary text renders exactly as before.
    """
    max_indent = 2 * limit  # a list level can be as narrow as "- ": two columns
    out: list[str] = []
    for line in markdown.split("\n"):
        if _THEMATIC_BREAK.fullmatch(line):
            out.append(line)  # one horizontal rule, however long: nothing nests
            continue
        indent = _INDENT.match(line)
        columns = len(indent.group().expandtabs(4)) if indent is not None else 0
        if indent is not None and columns > max_indent:
            line = " " * max_indent + line[indent.end() :]
            columns = max_indent
        position = len(line) - len(line.lstrip(" \t"))
        depth = columns // 2  # levels the indentation may already have opened
        while (match := _CONTAINER.match(line, position)) is not None and match.end() > position:
            if depth >= limit:
                marker = position + len(match.group()) - len(match.group().lstrip(" "))
                while line[marker].isdigit():
                    marker += 1
                line = f"{line[:marker]}\\{line[marker:]}"
                break
            depth += 1
            position = match.end()
        out.append(line)
    capped = "\n".join(out)
    return markdown if capped == markdown else capped


def markdown_pieces(text: str) -> Iterator[tuple[str, str | None, str]]:
    """``split_fences`` of sanitized ``text`` with the nesting of every prose piece capped."""
    for kind, language, piece in split_fences(sanitize_text(text)):
        yield (kind, language, cap_nesting(piece) if kind == "markdown" else piece)


# ================================================================================ chunks

#: Prose pieces longer than this are parsed in chunks of about this size (see :func:`prose_chunks`).
CHUNK_CHARS = 1500
_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")
#: A line that may continue what came before it even after a blank line: indented (list item
#: content, indented code) or a list item (a loose list, a numbered list's next item).
_CONTINUES = re.compile(r"[ \t]|[-+*](?:[ \t\n]|\Z)|\d{1,9}[.)](?:[ \t\n]|\Z)")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)


def prose_chunks(markdown: str, target: int = CHUNK_CHARS) -> Iterator[str]:
    """``markdown`` cut into pieces of about ``target`` characters that render as the whole does.

    Cuts fall only at a blank line followed by a line that starts a new top-level block no
    matter what came before (not indented, not a list item): there a list, quote, table or
    paragraph has ended in CommonMark, so parsing the pieces apart gives the same blocks. Text
    with link reference definitions (``[x]: url``, which apply to the whole text) is never cut.
    The cut points of a text never move as it grows, so while a reply streams every chunk but the
    last is the same string on the next delta, and its HTML comes from the cache.
    """
    if len(markdown) <= target or _REFERENCE_DEFINITION.search(markdown):
        yield markdown
        return
    start = 0
    for match in _BLANK_RUN.finditer(markdown):
        if match.end() - start >= target and not _CONTINUES.match(markdown, match.end()):
            if match.end() < len(markdown):
                yield markdown[start : match.start()]
                start = match.end()
    if start < len(markdown):
        yield markdown[start:]


def escape(text: str) -> str:
    """HTML-escape plain text for Qt rich text (control characters replaced, quotes kept)."""
    return html.escape(sanitize_text(text), quote=False)
