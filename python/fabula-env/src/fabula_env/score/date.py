"""The one date parser, a port of fabula-score's `date.rs`.

Accepted forms, case-insensitive, after trimming and dropping `*` and a final `.`: `YYYY`,
`YYYY-MM`, `YYYY-MM-DD` (separators `-`, `/` or `.`, optionally followed by a time after `T`
or a space), `M/D/YYYY` and `D/M/YYYY` (month first unless the first number exceeds 12),
`YYYY年M月D日`, and English month names or their three-letter abbreviations with a four-digit
year and an optional day. A year alone keeps its precision; nothing depends on the clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .chars import is_ascii_digit, is_whitespace, trim, trim_start, utf8_len

YEAR, MONTH, DAY = 0, 1, 2
"""Precisions, ordered as in Rust's `DatePrecision`."""


@dataclass(frozen=True)
class ParsedDate:
    """A calendar date; fields not written are 1."""

    year: int
    month: int
    day: int
    precision: int

    def iso(self) -> str:
        """The date as `YYYY-MM-DD`."""
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def days(self) -> int:
        """Days since 1970-01-01 (Howard Hinnant's `days_from_civil`)."""
        year = self.year - (1 if self.month <= 2 else 0)
        era = year // 400
        year_of_era = year - era * 400
        month_index = self.month - 3 if self.month > 2 else self.month + 9
        day_of_year = (153 * month_index + 2) // 5 + self.day - 1
        day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
        return era * 146_097 + day_of_era - 719_468


def parse_date(text: str) -> ParsedDate | None:
    """Parses a date in one of the forms listed in the module docs."""
    cleaned = "".join(c for c in trim(text) if c != "*")
    cleaned = trim(trim(cleaned).rstrip(".")).lower()
    if not cleaned:
        return None
    if "年" in cleaned:
        numeric = cleaned.replace("年", "-").replace("月", "-").replace("日", "")
        return _parse_year_first(trim(numeric).rstrip("-"))
    return (
        _parse_year_first(cleaned) or _parse_year_last(cleaned) or _parse_words(cleaned)
    )


def norm_date(text: str) -> str:
    """WideSearch's `norm_date`, deterministic: `YYYY-MM-DD`, a bare year kept as `YYYY`, or
    the text unchanged when it is not a date."""
    date = parse_date(text)
    if date is None:
        return text
    if date.precision == YEAR:
        return f"{date.year:04d}"
    return date.iso()


def answer_date(text: str) -> str | None:
    """A short answer that is wholly a date with at least a month, canonically written."""
    date = parse_date(text)
    if date is None or date.precision == YEAR:
        return None
    if date.precision == MONTH:
        return f"{date.year:04d}-{date.month:02d}"
    return date.iso()


def is_iso_date_or_year(text: str) -> bool:
    """Whether a gold cell is `YYYY-MM-DD` or a four-digit year (infers the `date` metric)."""
    data = text.encode("utf-8")

    def digits(start: int, end: int) -> bool:
        return all(48 <= b <= 57 for b in data[start:end])

    if len(data) == 4:
        return digits(0, 4)
    if len(data) == 10:
        return (
            digits(0, 4)
            and data[4:5] == b"-"
            and digits(5, 7)
            and data[7:8] == b"-"
            and digits(8, 10)
            and _parse_year_first(text) is not None
        )
    return False


def _days_in_month(year: int, month: int) -> int:
    if month in (1, 3, 5, 7, 8, 10, 12):
        return 31
    if month in (4, 6, 9, 11):
        return 30
    leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0
    return 29 if leap else 28


def _make_date(year: int, month: int, day: int, precision: int) -> ParsedDate | None:
    if not 1 <= month <= 12 or day < 1 or day > _days_in_month(year, month):
        return None
    return ParsedDate(year, month, day, precision)


def _leading_digits(text: str, limit: int | None = None) -> tuple[str, str]:
    length = 0
    for c in text:
        if (limit is not None and length >= limit) or not is_ascii_digit(c):
            break
        length += 1
    return text[:length], text[length:]


def _parse_year_first(text: str) -> ParsedDate | None:
    year, rest = _leading_digits(text, 4)
    if len(year) != 4 or (rest and is_ascii_digit(rest[0])):
        return None
    if not rest:
        return _make_date(int(year), 1, 1, YEAR)
    if rest[0] not in "-/.":
        return None
    month, rest = _leading_digits(rest[1:], 2)
    if not month:
        return None
    if not rest:
        return _make_date(int(year), int(month), 1, MONTH)
    if rest[0] not in "-/.":
        return None
    day, rest = _leading_digits(rest[1:], 2)
    if not day:
        return None
    after = trim_start(rest[1:])
    time_follows = not rest or (rest[0] in "t " and after != "" and is_ascii_digit(after[0]))
    if not time_follows:
        return None
    return _make_date(int(year), int(month), int(day), DAY)


def _parse_year_last(text: str) -> ParsedDate | None:
    parts = re.split(r"[/.\-]", text)
    if len(parts) != 3:
        return None
    first, second, year = parts
    for part in parts:
        if not part or not all(is_ascii_digit(c) for c in part):
            return None
    if len(first) > 2 or len(second) > 2 or len(year) != 4:
        return None
    first_n, second_n = int(first), int(second)
    month, day = (second_n, first_n) if first_n > 12 else (first_n, second_n)
    return _make_date(int(year), month, day, DAY)


MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


def month_number(token: str) -> int | None:
    """The month of a lower-case full or three-letter English month name, or `sept`."""
    if token == "sept":
        return 9
    for index, name in enumerate(MONTHS):
        if name == token or (utf8_len(token) == 3 and name.startswith(token)):
            return index + 1
    return None


def _word_tokens(text: str) -> list[str]:
    tokens, token = [], []
    for c in text:
        if is_whitespace(c) or c in ",-/.":
            tokens.append("".join(token))
            token = []
        else:
            token.append(c)
    tokens.append("".join(token))
    return tokens


def _parse_words(text: str) -> ParsedDate | None:
    year = month = day = None
    for token in _word_tokens(text):
        if not token or token in ("of", "the", "on"):
            continue
        number = month_number(token)
        if number is not None:
            if month is not None:
                return None
            month = number
            continue
        digits, suffix = _leading_digits(token)
        if not digits:
            return None
        if len(digits) == 4 and suffix == "":
            if year is not None:
                return None
            year = int(digits)
        elif len(digits) in (1, 2) and suffix in ("", "st", "nd", "rd", "th"):
            if day is not None:
                return None
            day = int(digits)
        else:
            return None
    if year is None or month is None:
        return None
    if day is None:
        return _make_date(year, month, 1, MONTH)
    return _make_date(year, month, day, DAY)
