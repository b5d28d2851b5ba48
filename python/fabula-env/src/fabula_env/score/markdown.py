"""Finding the answer table in an agent's Markdown, as WideSearch's evaluator does
(fabula-score's `markdown.rs`, `extract_table`)."""

from __future__ import annotations

from .chars import lines, trim, trim_start
from .prediction import PredictedTable

_OPEN = "```markdown"


def extract_table(text: str) -> PredictedTable | None:
    """The answer table of a text, or `None`: the first closed ```` ```markdown ```` block,
    else the run of pipe lines from the first `|` when the text holds at least four `|`.
    Separator and pipe-free lines are skipped; the first remaining line is the header."""
    block = _fenced_markdown(text)
    if block is None:
        block = _pipe_run(text)
    if block is None:
        return None
    rows = [
        _split_row(line)
        for line in map(trim, lines(block))
        if "|" in line and not _is_separator(line)
    ]
    if not rows:
        return None
    return PredictedTable(columns=rows[0], rows=rows[1:])


def _is_separator(line: str) -> bool:
    return all(c in "|-: " for c in line)


def _fenced_markdown(text: str) -> str | None:
    found = text.find(_OPEN)
    if found < 0:
        return None
    start = found + len(_OPEN)
    length = text[start:].find("```")
    if length < 0:
        return None
    return text[start : start + length]


def _pipe_run(text: str) -> str | None:
    if text.count("|") < 4:
        return None
    rest = text[text.find("|") :]
    newline = rest.find("\n")
    end = len(rest) if newline < 0 else newline
    while end < len(rest):
        next_start = end + 1
        newline = rest.find("\n", next_start)
        next_end = len(rest) if newline < 0 else newline
        if not trim_start(rest[next_start:next_end]).startswith("|"):
            break
        end = next_end
    return rest[:end]


def _split_row(line: str) -> list[str]:
    line = line.removeprefix("|")
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells, cell = [], []
    idx = 0
    while idx < len(line):
        c = line[idx]
        if c == "\\" and line[idx + 1 : idx + 2] == "|":
            cell.append("|")
            idx += 2
            continue
        if c == "|":
            cells.append(trim("".join(cell)))
            cell = []
        else:
            cell.append(c)
        idx += 1
    cells.append(trim("".join(cell)))
    return cells
