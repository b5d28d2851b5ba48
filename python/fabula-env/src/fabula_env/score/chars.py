"""Rust's text primitives in Python, so the port splits and trims text exactly as fabula-score.

Rust's `char::is_whitespace` is the Unicode White_Space property, which differs from Python's
`str.isspace` (that one also counts U+001C to U+001F); `str::trim`, `split_whitespace` and
`lines` are defined on it. serde_json renders values differently from `json.dumps` (object keys
sorted, floats without `+` in exponents); `to_json` renders them as serde_json does.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_WHITESPACE_RUN = re.compile("[" + re.escape(WHITESPACE) + "]+")
DIGITS = "0123456789"


def is_whitespace(c: str) -> bool:
    """Rust's `char::is_whitespace`."""
    return c in WHITESPACE


def is_ascii_digit(c: str) -> bool:
    """Rust's `char::is_ascii_digit`."""
    return len(c) == 1 and c in DIGITS


def trim(text: str) -> str:
    """Rust's `str::trim`."""
    return text.strip(WHITESPACE)


def trim_start(text: str) -> str:
    """Rust's `str::trim_start`."""
    return text.lstrip(WHITESPACE)


def split_whitespace(text: str) -> list[str]:
    """Rust's `str::split_whitespace`."""
    return [part for part in _WHITESPACE_RUN.split(text) if part]


def lines(text: str) -> list[str]:
    """Rust's `str::lines`: split on `\\n`, drop one `\\r` before it, no final empty line."""
    if not text:
        return []
    parts = text.split("\n")
    if text.endswith("\n"):
        parts.pop()
    return [part[:-1] if part.endswith("\r") else part for part in parts]


def ascii_lower(text: str) -> str:
    """Lowercases ASCII letters only, as Rust's `eq_ignore_ascii_case` compares."""
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in text)


def utf8_len(text: str) -> int:
    """The length in bytes, which is what Rust's `str::len` counts."""
    return len(text.encode("utf-8", "surrogatepass"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range: {text}")
    return value


def parse_json(text: str) -> Any:
    """Parses JSON as serde_json does: `NaN`, `Infinity` and out-of-range numbers are errors."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def is_json_number(value: Any) -> bool:
    """Whether a parsed JSON value is a number (`bool` is not, unlike in Python)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_float_if_too_big(value: int | float) -> int | float:
    """serde_json keeps integers in i64 or u64 and reads any other as f64."""
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        return float(value)
    return value


def _plain_decimal(value: float) -> str:
    """A float's shortest round-trip digits written without an exponent (Rust's `{}`)."""
    text = format(Decimal(repr(value)), "f")
    return text


def number_to_string(value: int | float) -> str:
    """fabula-score's `number_to_string`: integers as they are, whole floats below 1e15
    without a fraction, other floats in Rust's `Display` form."""
    value = _as_float_if_too_big(value)
    if isinstance(value, int):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{value:.0f}"
    return _plain_decimal(value)


def _serde_float(value: float) -> str:
    """serde_json's (ryu's) rendering of a finite float."""
    magnitude = abs(value)
    if value == 0 or 1e-5 <= magnitude < 1e16:
        text = _plain_decimal(value)
        return text if "." in text else text + ".0"
    mantissa, exponent = repr(value).split("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent)}"


def to_json(value: Any) -> str:
    """Compact JSON as serde_json writes a `Value` (keys sorted, no spaces)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        value = _as_float_if_too_big(value)
        return str(value) if isinstance(value, int) else _serde_float(value)
    if isinstance(value, float):
        return _serde_float(value)
    if isinstance(value, list):
        return "[" + ",".join(to_json(item) for item in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items())
        return "{" + ",".join(f"{to_json(k)}:{to_json(v)}" for k, v in items) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def value_to_cell(value: Any) -> str:
    """fabula-score's `value_to_cell`: one JSON value as one cell of text."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_json_number(value):
        return number_to_string(value)
    return to_json(value)
