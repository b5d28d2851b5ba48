"""WideSearch's per-cell metrics with fabula's preprocessing (fabula-score's `metrics.rs`).

Each metric returns 1.0 or 0.0. Where WideSearch pays 1.0 for two unusable values (two
non-numbers, two non-dates, two URL-free cells, an empty `in` response) fabula asks that the
two cells agree under `norm_name`, or that the `in` response is not empty.
"""

from __future__ import annotations

from .date import YEAR, norm_date, parse_date
from .normalize import extract_number, norm_name, parse_extracted_number

METRICS = ("exact", "number", "date", "in", "url")
"""fabula's metric names, in Rust's `Metric` order."""

ALIASES = {
    "exact": "exact",
    "exact_match": "exact",
    "number": "number",
    "number_near": "number",
    "date": "date",
    "date_near": "date",
    "in": "in",
    "in_match": "in",
    "url": "url",
    "url_match": "url",
}
"""Every accepted spelling of a metric (WideSearch's names too) and its fabula name."""


def _score(verdict: bool) -> float:
    return 1.0 if verdict else 0.0


def _agree(response: str, target: str) -> float:
    return _score(norm_name(response) == norm_name(target))


def score_cell(metric: str, response: str, target: str, tolerance: float) -> float:
    """Scores one predicted cell against one gold cell: preprocessing, then the metric."""
    if metric == "exact":
        return exact_match(norm_name(response), norm_name(target))
    if metric == "number":
        response_number, target_number = extract_number(response), extract_number(target)
        if response_number is None and target_number is None:
            return _agree(response, target)
        return number_near(
            "NULL" if response_number is None else response_number,
            "NULL" if target_number is None else target_number,
            tolerance,
        )
    if metric == "date":
        response_date, target_date = norm_date(response), norm_date(target)
        if parse_date(response_date) is None and parse_date(target_date) is None:
            return _agree(response, target)
        return date_near(response_date, target_date)
    if metric == "in":
        return in_match(norm_name(response), norm_name(target))
    if metric == "url":
        return url_match(response, target)
    raise ValueError(f"unknown metric {metric!r}")


def exact_match(response: str, target: str) -> float:
    """WideSearch's `exact_match`: case-insensitive equality."""
    return _score(response.lower() == target.lower())


def number_near(response: str, target: str, criterion: float) -> float:
    """WideSearch's `number_near`: `|r - t| <= |t| * criterion`, `%` values divided by 100."""
    response_value = parse_extracted_number(response)
    target_value = parse_extracted_number(target)
    if response_value is not None and target_value is not None:
        return _score(abs(response_value - target_value) <= abs(target_value) * criterion)
    if response_value is None and target_value is None:
        return _agree(response, target)
    return 0.0


def date_near(response: str, target: str) -> float:
    """WideSearch's `date_near` (at most 31 days apart), reading partial dates
    deterministically: a gold bare year accepts any date in that year."""
    response_date, target_date = parse_date(response), parse_date(target)
    if response_date is not None and target_date is not None:
        if target_date.precision == YEAR:
            return _score(response_date.year == target_date.year)
        return _score(abs(response_date.days() - target_date.days()) <= 31)
    if response_date is None and target_date is None:
        return _agree(response, target)
    return 0.0


def in_match(response: str, target: str) -> float:
    """WideSearch's `in_match`, but an empty response scores 0.0."""
    return _score(response != "" and response in target)


def url_match(response: str, target: str) -> float:
    """WideSearch's `url_match`: the same set of hosts; two URL-free cells must agree."""
    response_hosts, target_hosts = _url_hosts(response), _url_hosts(target)
    if not response_hosts and not target_hosts:
        return _agree(response, target)
    return _score(response_hosts == target_hosts)


def _is_url_char(c: str) -> bool:
    return (c.isascii() and c.isalnum()) or "$" <= c <= "_" or c in "!*(),"


def _url_hosts(text: str) -> set[str]:
    hosts = set()
    rest = text
    while True:
        found = rest.find("http")
        if found < 0:
            return hosts
        candidate = rest[found:]
        if candidate.startswith("https://"):
            after_scheme = candidate[len("https://") :]
        elif candidate.startswith("http://"):
            after_scheme = candidate[len("http://") :]
        else:
            rest = candidate[4:]
            continue
        url_len = next(
            (idx for idx, c in enumerate(after_scheme) if not _is_url_char(c)),
            len(after_scheme),
        )
        url = after_scheme[:url_len]
        if url:
            host_len = next(
                (idx for idx, c in enumerate(url) if c in "/?#"),
                len(url),
            )
            hosts.add(url[:host_len].lower())
        rest = after_scheme[url_len:]
