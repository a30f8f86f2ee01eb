"""Reads the markdown tables the benchmark tools write back into rows, so
recorded results (RESULTS.md, MODELS.md) can be plotted again."""

import re

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def tables(text):
    """Every table: [(caption, header cells, [row cells...])], in order.
    The caption is the last non-empty, non-table line before it that names
    a date (the line the tools write above a table: machine and date)."""
    found = []
    caption = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("|") and i + 1 < len(lines) and \
                lines[i + 1].strip().startswith("|---"):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i].strip()))
                i += 1
            found.append((caption, header, rows))
            continue
        if line and DATE.search(line) and not line.startswith("|"):
            caption = line
        i += 1
    return found


def _cells(line):
    return [c.strip() for c in line.strip("|").split("|")]


def number(cell):
    """A cell's leading number ("2775", "93%", "1.04x"), or None."""
    m = re.match(r"^-?[0-9.]+", cell.replace(",", ""))
    try:
        return float(m.group(0)) if m else None
    except ValueError:
        return None
