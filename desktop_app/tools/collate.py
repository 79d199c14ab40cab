"""ls's order: ``a.toLowerCase().localeCompare(b.toLowerCase())``, i.e. ICU root collation.

Python's code-point order puts ``B`` before ``a`` and ``.`` after ``#``; ICU sorts punctuation and
symbols (in CLDR's order) before digits before letters, compares letters before accents, and
digits one by one (``a10`` before ``a2``). This key reproduces that for Latin-script names; other
scripts fall back to code-point order after the Latin letters.
"""

from __future__ import annotations

import unicodedata

__all__ = ["collation_key"]

# CLDR root order of the ASCII punctuation and symbols (variable characters are non-ignorable in ICU's
# root locale): whitespace, then _ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $.
_SYMBOLS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_SYMBOL_RANK = {c: i for i, c in enumerate(_SYMBOLS)}
_DIGIT_BASE = 100
_LETTER_BASE = 200
_OTHER_BASE = 1000


def _primary(char: str) -> int:
    if char in _SYMBOL_RANK:
        return 1 + _SYMBOL_RANK[char]
    if "0" <= char <= "9":
        return _DIGIT_BASE + ord(char) - ord("0")
    if "a" <= char <= "z":
        return _LETTER_BASE + ord(char) - ord("a")
    if unicodedata.category(char)[0] in "PSZ" and ord(char) < 0x2000:
        return 50  # other punctuation and symbols: after ASCII ones, before digits
    return _OTHER_BASE + ord(char)


def collation_key(name: str) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """A sort key: base characters first (primary), then their accents (secondary)."""
    primary: list[int] = []
    secondary: list[tuple[int, ...]] = []
    for char in unicodedata.normalize("NFD", name.lower()):
        if unicodedata.combining(char) and primary:
            secondary[-1] = (*secondary[-1], ord(char))
            continue
        primary.append(_primary(char))
        secondary.append(())
    return tuple(primary), tuple(secondary)
