"""Whether a findings.json read back (an earlier review, a review to record or write a letter from) has the shape this project writes.

A hand-edited or tampered document (a null finding, a string where a list belongs, a number of 1e400,
which JSON readers take as infinity) is refused in one line naming the entry and the field, never deep in the comparison or the letter as "this is a bug". Only the parts the readers use are
judged; fields this release does not know are left alone, so a document of an earlier release still reads.
"""

from __future__ import annotations

import math
from typing import Mapping

#: Statuses a finding may carry (core.model.Status's values and the effective status a decision gives).
FINDING_STATUSES: frozenset[str] = frozenset({"violation", "undetermined", "pass", "advisory", "not_applicable", "accepted", "waived"})

#: Fields of a finding holding text (or null).
TEXT_FIELDS: tuple[str, ...] = ("rule_id", "kind", "citation", "excerpt", "source_file", "message", "key", "effective_status")

#: Fields of a finding holding a number (or null).
NUMBER_FIELDS: tuple[str, ...] = ("measured_ft", "required_ft", "margin_ft", "accuracy_ft")

#: Fields of a finding holding an object (or null).
OBJECT_FIELDS: tuple[str, ...] = ("subject", "other", "details", "override")

#: Top-level lists the readers walk, each of objects.
OBJECT_LISTS: tuple[str, ...] = ("findings", "warnings", "moves", "stale_overrides")


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number" if math.isfinite(value) else "an infinite number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def findings_doc_problem(doc: object) -> str | None:
    """What is wrong with a findings.json document, naming the entry and the field; ``None`` when its shape is this project's.

    Parameters
    ----------
    doc : object
        The document as ``json.loads`` returned it.

    Returns
    -------
    str or None
        ``findings[3] (rule lgpc.minor.septic-upgradient-20): "measured_ft" is an infinite number, not a number or null``.
    """
    if not isinstance(doc, dict):
        return f"the document is {_kind(doc)}, not an object: not a findings.json of stormwater-check"
    if "findings" not in doc:
        return "no \"findings\": not a findings.json of stormwater-check"
    for name in OBJECT_LISTS:
        if name not in doc or (doc[name] is None and name != "findings"):
            continue
        items = doc[name]
        if not isinstance(items, list):
            return f"\"{name}\" is {_kind(items)}, not a list"
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                return f"{name}[{i}] is {_kind(item)}, not an object: remove it or take the file the tool wrote"
    for name in ("counts", "override_counts", "notification", "tool", "rule_pack", "inputs", "completeness", "features", "accuracy"):
        if doc.get(name) is not None and not isinstance(doc[name], dict):
            return f"\"{name}\" is {_kind(doc[name])}, not an object"
    for i, f in enumerate(doc["findings"]):
        problem = _finding_problem(f)
        if problem is not None:
            rule = f.get("rule_id")
            which = f" (rule {rule})" if isinstance(rule, str) and rule else ""
            return f"findings[{i}]{which}: {problem}"
    return _numbers_problem(doc, "")


def _finding_problem(f: Mapping[str, object]) -> str | None:
    for name in TEXT_FIELDS:
        v = f.get(name)
        if v is not None and not isinstance(v, str):
            return f"\"{name}\" is {_kind(v)}, not a text"
    status = f.get("status")
    if not isinstance(status, str):  # its value is not judged: an earlier release's word is compared as written
        return f"\"status\" is {_kind(status)}, not a text (one of {', '.join(sorted(FINDING_STATUSES))})"
    for name in NUMBER_FIELDS:
        v = f.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
            return f"\"{name}\" is {_kind(v)}, not a finite number or null"
    for name in OBJECT_FIELDS:
        v = f.get(name)
        if v is not None and not isinstance(v, dict):
            return f"\"{name}\" is {_kind(v)}, not an object or null"
    for name in ("subject", "other"):
        ref = f.get(name)
        if isinstance(ref, dict):
            for part in ("layer", "id"):
                v = ref.get(part)
                if v is not None and not isinstance(v, (str, int)) or isinstance(v, bool):
                    return f"\"{name}.{part}\" is {_kind(v)}, not a text"
    return None


def _numbers_problem(value: object, where: str) -> str | None:
    """The first infinite number anywhere in ``value`` (JSON has none; 1e400 reads as infinity), named by its path."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"\"{where or '(document)'}\" is an infinite number (a value such as 1e400): restore the number the tool wrote"
    if isinstance(value, dict):
        for k, v in value.items():
            p = _numbers_problem(v, f"{where}.{k}" if where else str(k))
            if p is not None:
                return p
    elif isinstance(value, list):
        for i, v in enumerate(value):
            p = _numbers_problem(v, f"{where}[{i}]")
            if p is not None:
                return p
    return None


__all__ = ["FINDING_STATUSES", "findings_doc_problem"]
