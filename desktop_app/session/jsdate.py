"""``Date.parse`` as Node's V8 does it, for any string (pi orders sibling entries by ``new Date(timestamp)``).

pi sorts children by their timestamps, so an odd timestamp (``"2025/06/01"``, ``"June 1, 2025"``,
``"Sun Jun 01 2025 10:00"``, ``"2025-06-01 10:00"``, garbage) changes the tree's order exactly as V8
reads it. V8 first tries the ISO form (``[+-yy]yyyy[-MM[-DD]][THH:mm[:ss[.s+]][Z|+-hh:mm|+-hhmm]]``)
and, where that stops, goes on with its lenient legacy reader over the rest of the string: numbers
followed by ``:`` are times, other numbers date parts (month/day/year by position), words are month
names, ``am``/``pm`` or zone names (``UT``, ``UTC``, ``GMT``, ``Z``, US zones), unknown words are
allowed only before the first number, parentheses are skipped. This module follows that reader rule
by rule; local time is UTC (pi's conformance harness runs with ``TZ=UTC``, Arbor reads its files the
same way). Checked against ``node -e Date.parse`` on many generated strings (tests/session/test_jsdate.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["v8_date_parse"]

_NONE = -(2**31)  # V8's kNone
_MAX_SIGNIFICANT = 9
_MAX_TIME = 8_640_000_000_000_000
_DAY = 86_400_000

# token kinds
_END, _NUMBER, _SYMBOL, _SPACE, _UNKNOWN, _WORD = range(6)
# keyword types of a word (V8's KeywordTable)
_INVALID, _MONTH, _ZONE, _TIME_SEP, _AM_PM = range(5)
_KEYWORDS: list[tuple[str, int, int]] = [
    *((name, _MONTH, n + 1) for n, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))),
    ("am", _AM_PM, 0), ("pm", _AM_PM, 12),
    ("ut", _ZONE, 0), ("utc", _ZONE, 0), ("z", _ZONE, 0), ("gmt", _ZONE, 0),
    ("cdt", _ZONE, -5), ("cst", _ZONE, -6), ("edt", _ZONE, -4), ("est", _ZONE, -5),
    ("mdt", _ZONE, -6), ("mst", _ZONE, -7), ("pdt", _ZONE, -7), ("pst", _ZONE, -8),
    ("t", _TIME_SEP, 0),
]
# JavaScript's WhiteSpace and LineTerminator code points (what V8's date reader skips as space)
_SPACES = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@dataclass(frozen=True)
class _Token:
    kind: int
    value: int = 0  # number value, symbol character code, or keyword value
    length: int = 0  # characters read (numbers: digits including leading zeros; words: letters)
    keyword: int = _INVALID

    def is_number(self, length: int | None = None) -> bool:
        return self.kind == _NUMBER and (length is None or self.length == length)

    def is_symbol(self, char: str) -> bool:
        return self.kind == _SYMBOL and self.value == ord(char)

    def is_sign(self) -> bool:
        return self.kind == _SYMBOL and self.value in (43, 45)

    def sign(self) -> int:
        return 44 - self.value  # '+' -> 1, '-' -> -1

    def is_z(self) -> bool:
        return self.kind == _WORD and self.keyword == _ZONE and self.length == 1 and self.value == 0


def _lookup(word: str) -> tuple[int, int]:
    prefix = word[:3].lower()
    for name, kind, value in _KEYWORDS:
        if prefix == name and (len(word) <= 3 or kind == _MONTH):
            return kind, value
    return _INVALID, 0


class _Scanner:
    """V8's DateStringTokenizer: one token of look-ahead over UTF-16 code units."""

    def __init__(self, text: str) -> None:
        self.text = text.encode("utf-16-le", "surrogatepass")
        self.units = [int.from_bytes(self.text[i : i + 2], "little") for i in range(0, len(self.text), 2)]
        self.pos = 0
        self.next_token = self._scan()

    def _ch(self) -> int:
        return self.units[self.pos] if self.pos < len(self.units) else 0

    def _scan(self) -> _Token:
        """The next token from ``pos``: a number, one of the symbols ``: - + . )``, a word, a run of
        spaces, a skipped parenthesis or any other character (unknown)."""
        units = self.units
        if self.pos >= len(units):
            return _Token(_END)
        ch = units[self.pos]
        if 48 <= ch <= 57:
            return self._scan_number()
        if ch in (58, 45, 43, 46, 41):  # : - + . )
            self.pos += 1
            return _Token(_SYMBOL, ch)
        if ch >= 65 and chr(ch) not in _SPACES:
            return self._scan_word()
        if chr(ch) in _SPACES:
            start = self.pos
            while self.pos < len(units) and chr(units[self.pos]) in _SPACES:
                self.pos += 1
            return _Token(_SPACE, 0, self.pos - start)
        if ch == 40:  # '('
            self._skip_parenthesis()
        else:
            self.pos += 1
        return _Token(_UNKNOWN)

    def _scan_number(self) -> _Token:
        """Digits: the value of the first :data:`_MAX_SIGNIFICANT` after leading zeros; the length
        counts every digit, leading zeros included."""
        start, units = self.pos, self.units
        while self._ch() == 48:  # leading zeros count in the length, not in the value
            self.pos += 1
        value, digits = 0, 0
        while 48 <= self._ch() <= 57 and self.pos < len(units):
            if digits < _MAX_SIGNIFICANT:
                value = value * 10 + self._ch() - 48
            digits += 1
            self.pos += 1
        return _Token(_NUMBER, value, self.pos - start)

    def _scan_word(self) -> _Token:
        """Characters from ``A`` up that are not spaces: a keyword when its first three letters name
        one (only a month name may be longer), else an invalid word."""
        start, units = self.pos, self.units
        while self.pos < len(units) and units[self.pos] >= 65 and chr(units[self.pos]) not in _SPACES:
            self.pos += 1
        word = "".join(chr(u) if u < 128 else "\x00" for u in units[start : start + 3])
        kind, value = _lookup(word if self.pos - start >= 3 else word[: self.pos - start])
        if self.pos - start > 3 and kind != _MONTH:
            kind, value = _INVALID, 0
        return _Token(_WORD, value, self.pos - start, kind)

    def _skip_parenthesis(self) -> None:
        """Skip a balanced parenthesis, or to the end of the string."""
        balance = 0
        while True:
            c = self._ch()
            if c == 41:
                balance -= 1
            elif c == 40:
                balance += 1
            self.pos += 1
            if not (balance > 0 and self._ch()):
                break

    def next(self) -> _Token:
        token = self.next_token
        self.next_token = self._scan()
        return token

    def peek(self) -> _Token:
        return self.next_token

    def skip_symbol(self, char: str) -> bool:
        if self.next_token.is_symbol(char):
            self.next()
            return True
        return False


def _between(x: int, low: int, high: int) -> bool:
    return low <= x <= high


class _Day:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month = _NONE
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) < 3:
            self.comp.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        if not self.comp:
            return None
        comp = self.comp + [1] * (3 - len(self.comp))
        year = 0  # "2000" after the two-digit rule, as V8 (KJS compatibility)
        if self.named_month == _NONE:
            if self.iso or not _between(comp[0], 1, 31):
                year, month, day = comp
            else:
                month, day, year = comp
        else:
            month = self.named_month
            if not _between(comp[0], 1, 31):
                year, day = comp[0], comp[1]
            else:
                day, year = comp[0], comp[1]
        if not self.iso:
            if _between(year, 0, 49):
                year += 2000
            elif _between(year, 50, 99):
                year += 1900
        if not (_between(month, 1, 12) and _between(day, 1, 31)):
            return None
        return year, month, day


class _Time:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset = _NONE

    def empty(self) -> bool:
        return not self.comp

    def expecting(self, n: int) -> bool:
        index = len(self.comp)
        return (index == 1 and _between(n, 0, 59)) or (index == 2 and _between(n, 0, 59)) or (
            index == 3 and _between(n, 0, 999)
        )

    def add(self, n: int) -> bool:
        if len(self.comp) < 4:
            self.comp.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.comp += [0] * (4 - len(self.comp))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, ms = self.comp + [0] * (4 - len(self.comp))
        if self.hour_offset != _NONE:
            if not _between(hour, 0, 12):
                return None
            hour = hour % 12 + self.hour_offset
        if not (_between(hour, 0, 23) and _between(minute, 0, 59) and _between(second, 0, 59) and _between(ms, 0, 999)):
            if hour != 24 or minute or second or ms:
                return None
        return hour, minute, second, ms


class _Zone:
    def __init__(self) -> None:
        self.sign = _NONE
        self.hour = _NONE
        self.minute = _NONE

    def set(self, hours: int) -> None:
        self.sign = -1 if hours < 0 else 1
        self.hour = hours * self.sign
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour != _NONE and self.minute == _NONE and _between(n, 0, 59)

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def empty(self) -> bool:
        return self.hour == _NONE

    def offset_seconds(self) -> int | None | bool:
        """Seconds east of UTC; ``None`` for local time; ``False`` when out of range."""
        if self.sign == _NONE:
            return None
        hour = 0 if self.hour == _NONE else self.hour
        minute = 0 if self.minute == _NONE else self.minute
        total = (hour * 3600 + minute * 60) & 0xFFFF_FFFF  # V8 sums in unsigned 32 bits: it wraps
        if total > 2**30 - 1:  # V8's Smi::kMaxValue
            return False
        return -total if self.sign < 0 else total


def _read_ms(token: _Token) -> int:
    number, length = token.value, token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    if length > 3:
        length = min(length, _MAX_SIGNIFICANT)
        return number // int(10 ** (length - 3))
    return number


def _two_digits(scanner: _Scanner, low: int, high: int) -> bool:
    """Whether the next token is a two-digit number from ``low`` to ``high`` (ISO fields)."""
    peek = scanner.peek()
    return peek.is_number(2) and _between(peek.value, low, high)


def _iso(scanner: _Scanner, day: _Day, time: _Time, zone: _Zone) -> _Token | None:
    """V8's ParseES5DateTime: ``None`` for an invalid string, else the first token it left unread
    (the end token when the whole string was an ISO date)."""
    left = _iso_date(scanner, day)
    if left is not None:
        return left
    peek = scanner.peek()
    if not (peek.kind == _WORD and peek.keyword == _TIME_SEP):
        if peek.kind != _END:
            return scanner.next()
    else:
        scanner.next()
        if not (_iso_clock(scanner, time) and _iso_zone(scanner, zone) and scanner.peek().kind == _END):
            return None
    if zone.empty() and time.empty():
        zone.set(0)  # a date-only form is UTC
    day.iso = True
    return _Token(_END)


def _iso_date(scanner: _Scanner, day: _Day) -> _Token | None:
    """``[+-yy]yyyy[-MM[-DD]]``: ``None`` when it was read, else the first token the legacy reader
    goes on from (the date read so far stays in ``day``)."""
    peek = scanner.peek()
    if peek.is_sign():
        sign_token = scanner.next()
        if not scanner.peek().is_number(6):
            return sign_token
        year = scanner.next().value
        if sign_token.sign() < 0 and year == 0:
            return sign_token  # the year's digits are consumed all the same
        day.add(sign_token.sign() * year)
    elif peek.is_number(4):
        day.add(scanner.next().value)
    else:
        return scanner.next()
    if scanner.skip_symbol("-"):
        if not _two_digits(scanner, 1, 12):
            return scanner.next()
        day.add(scanner.next().value)
        if scanner.skip_symbol("-"):
            if not _two_digits(scanner, 1, 31):
                return scanner.next()
            day.add(scanner.next().value)
    return None


def _iso_clock(scanner: _Scanner, time: _Time) -> bool:
    """``HH:mm[:ss[.s+]]`` after the ``T``; ``False`` where the string is invalid (hour 24 only
    as ``24:00[:00[.0]]``)."""
    if not _two_digits(scanner, 0, 24):
        return False
    hour_is_24 = scanner.peek().value == 24
    time.add(scanner.next().value)
    limit = 0 if hour_is_24 else 59
    if not (scanner.skip_symbol(":") and _two_digits(scanner, 0, limit)):
        return False
    time.add(scanner.next().value)
    if scanner.skip_symbol(":"):
        if not _two_digits(scanner, 0, limit):
            return False
        time.add(scanner.next().value)
        if scanner.skip_symbol("."):
            if not scanner.peek().is_number() or (hour_is_24 and scanner.peek().value > 0):
                return False
            time.add(_read_ms(scanner.next()))
    return True


def _iso_zone(scanner: _Scanner, zone: _Zone) -> bool:
    """An optional ``Z``, ``+-hh:mm`` or ``+-hhmm`` after the time; ``False`` where it is invalid."""
    if scanner.peek().is_z():
        scanner.next()
        zone.set(0)
    elif scanner.peek().is_sign():
        zone.sign = scanner.next().sign()
        if scanner.peek().is_number(4):
            hour, minute = divmod(scanner.next().value, 100)
            if not (_between(hour, 0, 23) and _between(minute, 0, 59)):
                return False
            zone.hour, zone.minute = hour, minute
        else:
            if not _two_digits(scanner, 0, 23):
                return False
            zone.hour = scanner.next().value
            if not (scanner.skip_symbol(":") and _two_digits(scanner, 0, 59)):
                return False
            zone.minute = scanner.next().value
    return True


def _legacy(scanner: _Scanner, token: _Token, day: _Day, time: _Time, zone: _Zone) -> bool:
    """V8's legacy reader over the tokens the ISO reader left; ``False`` where V8 gives up."""
    has_number = bool(day.comp)
    while token.kind != _END:
        if token.kind == _NUMBER:
            has_number = True
            if not _legacy_number(scanner, token, day, time, zone):
                return False
        elif token.kind == _WORD:
            if not _legacy_word(scanner, token, day, time, zone, has_number):
                return False
        elif token.is_sign() and (zone.is_utc() or not time.empty()):
            has_number = True
            if not _legacy_offset(scanner, token, zone):
                return False
        elif (token.is_sign() or token.is_symbol(")")) and has_number:
            return False
        token = scanner.next()
    return True


def _legacy_number(scanner: _Scanner, token: _Token, day: _Day, time: _Time, zone: _Zone) -> bool:
    """A number: followed by ``:`` an hour or minute, by ``.`` a second before milliseconds, else the
    zone's minutes, the time's next field or the day's next part, as the reader expects them."""
    n = token.value
    if scanner.skip_symbol(":"):
        if scanner.skip_symbol(":"):
            if not time.empty():
                return False
            time.add(n)
            time.add(0)
        else:
            if not time.add(n):
                return False
            if scanner.peek().is_symbol("."):
                scanner.next()
    elif scanner.skip_symbol(".") and time.expecting(n):
        time.add(n)
        if not scanner.peek().is_number():
            return False
        time.add_final(_read_ms(scanner.next()))
    elif zone.expecting(n):
        zone.minute = n
    elif time.expecting(n):
        time.add_final(n)
        peek = scanner.peek()
        if peek.kind not in (_END, _SPACE) and not peek.is_z() and not peek.is_sign():
            return False
    else:
        if not day.add(n):
            return False
        scanner.skip_symbol("-")
    return True


def _legacy_word(scanner: _Scanner, token: _Token, day: _Day, time: _Time, zone: _Zone, has_number: bool) -> bool:
    """A word: ``am``/``pm`` after a time, a month name, a zone name after a number; an unknown word
    only before the first number and not glued to one."""
    if token.keyword == _AM_PM and not time.empty():
        time.hour_offset = token.value
    elif token.keyword == _MONTH:
        day.named_month = token.value
        scanner.skip_symbol("-")
    elif token.keyword == _ZONE and has_number:
        zone.set(token.value)
    elif has_number or scanner.peek().is_number():  # after a number, or glued to the first one
        return False
    return True


def _legacy_offset(scanner: _Scanner, token: _Token, zone: _Zone) -> bool:
    """A sign after a UTC zone or a time: a zone offset ``+h``, ``+hh``, ``+hmm``, ``+hhmm`` or
    ``+hh:`` (its minutes follow)."""
    zone.sign = token.sign()
    n, length = 0, 0
    if scanner.peek().is_number():
        number = scanner.next()
        n, length = number.value, number.length
    if scanner.peek().is_symbol(":"):
        zone.hour, zone.minute = n, _NONE
    elif length in (1, 2):
        zone.hour, zone.minute = n, 0
    elif length in (3, 4):
        zone.hour, zone.minute = n // 100, n % 100
    else:
        return False
    return True


def _days_from_civil(year: int, month: int, day: int) -> int:
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468 + day - 1


def v8_date_parse(text: str) -> int | None:
    """``Date.parse(text)`` in milliseconds, ``None`` where V8 gives ``NaN`` (local time = UTC)."""
    scanner = _Scanner(text)
    day, time, zone = _Day(), _Time(), _Zone()
    rest = _iso(scanner, day, time, zone)
    if rest is None or not _legacy(scanner, rest, day, time, zone):
        return None
    date = day.write()
    clock = time.write()
    offset = zone.offset_seconds()
    if date is None or clock is None or offset is False:
        return None
    year, month, dom = date
    if not -1_000_000 <= year <= 1_000_000:
        return None
    hour, minute, second, ms = clock
    value = _days_from_civil(year, month, 1) * _DAY + (dom - 1) * _DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms
    if offset is not None:
        value -= offset * 1000
    return value if -_MAX_TIME <= value <= _MAX_TIME else None
