"""Differences between a target and the evaluator that are understood and
accepted, each with its reason. An entry matches by column, op, type and
shape label (shell patterns) and failure kind; run.py --check fails on
any mismatch not listed here, and on an entry that no longer matches."""
import fnmatch

KNOWN = []


def match(column, op, type_label, shape_label, status):
    for entry in KNOWN:
        if (fnmatch.fnmatch(column, entry["column"]) and
                fnmatch.fnmatch(op, entry["op"]) and
                fnmatch.fnmatch(type_label, entry["type"]) and
                fnmatch.fnmatch(shape_label, entry.get("shape", "*")) and
                status in entry.get("status", ("fail",))):
            return entry
    return None
