"""String normalisation shared by the short-answer and table scorers (fabula-score's
`normalize.rs`): WideSearch's preprocessors (`norm_str`, `norm_column`, `extract_number`),
fabula's name folding for key cells (`norm_name`) and the SQuAD-style answer tokens.
"""

from __future__ import annotations

from . import date as dates
from .chars import is_ascii_digit, is_whitespace, split_whitespace, trim


def norm_str(text: str) -> str:
    """WideSearch's `norm_str`: lowercase, trim, and drop every space and `*`."""
    return "".join(c for c in trim(text).lower() if c not in " *")


def norm_column(name: str) -> str:
    """A column name: trimmed, lowercased, without whitespace, `*`, backticks or `_`."""
    return "".join(c for c in trim(name).lower() if not is_whitespace(c) and c not in "*`_")


_DROPPED_IN_NAMES = frozenset(
    "*`'\"\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u00b4\u00ab\u00bb"
    "\u2039\u203a\u00ad\u200b\u200c\u200d\u2060\ufeff"
)


def _fold_width(c: str) -> str:
    code = ord(c)
    if 0xFF01 <= code <= 0xFF5E:
        return chr(code - 0xFEE0)
    if c == "\u3000":
        return " "
    return c


def _is_dash(c: str) -> bool:
    return 0x2010 <= ord(c) <= 0x2015 or c == "\u2212"


def link(cell: str) -> tuple[str, str] | None:
    """The text and target of a cell that is one Markdown link `[text](url)`."""
    inner = trim(cell)
    if not inner.startswith("[") or not inner.endswith(")") or len(inner) < 2:
        return None
    inner = inner[1:-1]
    text, sep, url = inner.partition("](")
    if not sep or "[" in text or "]" in text or any(is_whitespace(c) for c in url):
        return None
    return text, url


def norm_name(text: str) -> str:
    """Folds a name so that spelling variants of the same canonical name agree."""
    text = trim(text)
    found = link(text)
    if found is not None:
        text = found[0]
    out = []
    for c in text:
        c = _fold_width(c)
        if is_whitespace(c) or c in _DROPPED_IN_NAMES:
            continue
        if _is_dash(c):
            out.append("-")
            continue
        out.append(c.lower())
    return "".join(out)


def extract_number(text: str) -> str | None:
    """WideSearch's `extract_number`: the first match of `[-+]?\\d*\\.\\d+%?|[-+]?\\d+\\.?\\d*%?`
    after dropping commas; `None` where WideSearch returns `"NULL"`."""
    chars = [c for c in text if c != ","]
    for start in range(len(chars)):
        found = _match_number_at(chars, start)
        if found is not None:
            return found
    return None


def _count_digits(chars: list[str], start: int) -> int:
    count = 0
    for c in chars[min(start, len(chars)) :]:
        if not is_ascii_digit(c):
            break
        count += 1
    return count


def _at(chars: list[str], idx: int) -> str | None:
    return chars[idx] if 0 <= idx < len(chars) else None


def _match_number_at(chars: list[str], start: int) -> str | None:
    pos = start
    if _at(chars, pos) in ("-", "+"):
        pos += 1
    int_digits = _count_digits(chars, pos)
    after_int = pos + int_digits
    if _at(chars, after_int) == "." and _count_digits(chars, after_int + 1) > 0:
        end = after_int + 1 + _count_digits(chars, after_int + 1)
    elif int_digits > 0:
        if _at(chars, after_int) == ".":
            end = after_int + 1 + _count_digits(chars, after_int + 1)
        else:
            end = after_int
    else:
        return None
    if _at(chars, end) == "%":
        end += 1
    return "".join(chars[start:end])


def _parse_float(text: str) -> float | None:
    """Rust's `f64::from_str` on what `extract_number` returns (sign, digits, one `.`)."""
    body = text[1:] if text[:1] in ("-", "+") else text
    if not body or body == "." or any(c not in "0123456789." for c in body):
        return None
    if body.count(".") > 1:
        return None
    return float(text)


def parse_extracted_number(text: str) -> float | None:
    """Parses `extract_number`'s output as `number_near` does: a `%` value is divided by 100."""
    if "%" in text:
        value = _parse_float(text.replace("%", ""))
        return None if value is None else value / 100.0
    return _parse_float(text)


def canonical_number(text: str) -> str | None:
    """The canonical form of a plainly written number, or `None` when `text` is not one."""
    text = text.removesuffix("%")
    if text[:1] == "-":
        negative, unsigned = True, text[1:]
    elif text[:1] == "+":
        negative, unsigned = False, text[1:]
    else:
        negative, unsigned = False, text
    int_part, dot, frac_part = unsigned.partition(".")
    has_frac = bool(dot)
    if has_frac and (not frac_part or not all(is_ascii_digit(c) for c in frac_part)):
        return None
    if not int_part and not has_frac:
        return None
    if "," in int_part:
        groups = int_part.split(",")
        if not 1 <= len(groups[0].encode("utf-8")) <= 3:
            return None
        if not all(len(g.encode("utf-8")) == 3 for g in groups[1:]):
            return None
        digits = "".join(groups)
    else:
        digits = int_part
    if not all(is_ascii_digit(c) for c in digits):
        return None
    int_trimmed = digits.lstrip("0") or "0"
    frac_trimmed = frac_part.rstrip("0")
    is_zero = int_trimmed == "0" and not frac_trimmed
    out = "-" if negative and not is_zero else ""
    out += int_trimmed
    if frac_trimmed:
        out += "." + frac_trimmed
    return out


def _is_answer_punctuation(c: str) -> bool:
    code = ord(c)
    if code < 128:
        return c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    return (
        0x2010 <= code <= 0x2027
        or 0x2030 <= code <= 0x205E
        or code in (0xA1, 0xA7, 0xAB, 0xB4, 0xB6, 0xB7, 0xBB, 0xBF)
        or 0x3001 <= code <= 0x3003
        or 0x3008 <= code <= 0x3011
        or 0x3014 <= code <= 0x301F
        or 0xFF01 <= code <= 0xFF0F
        or 0xFF1A <= code <= 0xFF20
        or 0xFF3B <= code <= 0xFF40
        or 0xFF5B <= code <= 0xFF65
    )


def _strip_core(raw: str) -> str:
    end = len(raw)
    while end > 0 and raw[end - 1] != "%" and _is_answer_punctuation(raw[end - 1]):
        end -= 1
    core = raw[:end]
    start = 0
    while (
        start < len(core)
        and core[start] not in "-+."
        and _is_answer_punctuation(core[start])
    ):
        start += 1
    return core[start:]


def answer_tokens(text: str) -> list[str]:
    """Normalises a short answer into tokens, SQuAD-style, with numbers and dates canonical."""
    whole_date = dates.answer_date(text)
    if whole_date is not None:
        return [whole_date]
    tokens = []
    for raw in split_whitespace(text.lower()):
        core = _strip_core(raw)
        if any(is_ascii_digit(c) for c in core):
            number = canonical_number(core)
            if number is not None:
                tokens.append(number)
                continue
            date = dates.parse_date(core)
            if date is not None and date.precision == dates.DAY:
                tokens.append(date.iso())
                continue
        word = "".join(c for c in raw if not _is_answer_punctuation(c))
        if not word or word in ("a", "an", "the"):
            continue
        tokens.append(word)
    return tokens


def normalize_answer(text: str) -> str:
    """The normalised answer as one string."""
    return " ".join(answer_tokens(text))


__all__ = [
    "answer_tokens",
    "canonical_number",
    "extract_number",
    "link",
    "norm_column",
    "norm_name",
    "norm_str",
    "normalize_answer",
    "parse_extracted_number",
]
