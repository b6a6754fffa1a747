"""The applicant's words: a finding's message as a comment letter says it.

A finding's message is written for the reviewer: it names how a distance was measured, which DEM cell
gave a slope, which reading of a level ground was taken. The applicant needs what is wrong, where (the
feature and the distance), what the text requires and what to change; the method stays in the review
report, which the letter names by the section cited. This module turns a finding into those words:

- :func:`plain` drops the method's clauses and asides and turns the engine's field and layer names
  (``devices.device_type``, ``building_sites``) into words;
- :func:`merge` writes several findings of one rule as one comment: the words they share once, the
  features they differ by listed (never the same sentence repeated per feature);
- :data:`INTERNAL_WORDS` and :func:`internal_words_in` name what must never reach a letter (a test reads
  every letter for them).

QGIS-free and file-free: plain strings in, plain strings out.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from ..core.roles import ROLE_NOUN

#: Words and marks that belong to the engine or the review report, never to a letter (tests read letters for them).
INTERNAL_WORDS: tuple[str, ...] = (
    "Horn",
    "verified by the checker",
    "taken as the reading",
    "measured between the nearest part",
    "(device -",
    "DEM cell",
    "a reviewer row",
    "the pack holds",
    "are the proposed ones",
    "--",
)
#: A rule id (``lake-george.minor.septic-upgradient-20``) or a snake_case name (``building_sites``, ``device_type``).
_RULE_ID = re.compile(r"\b[a-z][a-z0-9-]*\.(?:minor|major|classification|reviewer|submission|all|any)\.[a-z0-9.-]+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def internal_words_in(text: str) -> list[str]:
    """The internal words, rule ids and snake_case names found in ``text`` (empty when the text is fit to send)."""
    found = [w for w in INTERNAL_WORDS if w in text]
    found += _RULE_ID.findall(text)
    found += _SNAKE.findall(text)
    return found


# A clause (between "; ") that only says how a value was obtained.
_METHOD_CLAUSE = re.compile(
    r"measured between|taken as the reading|\breads:|\bDEM\b|\bHorn\b|tolerance|verified by|ground is level within|its nearest point|record the decision|\bthe \d+% finding\b",
    re.IGNORECASE,
)
# An aside in parentheses that only says how a value was obtained, or names the engine's data.
_METHOD_ASIDE = re.compile(r"\s*\((?:[^()]*?(?:\bDEM\b|\bHorn\b|reviewer row|are the proposed ones|the pack\b|\bdevice -?\d)[^()]*)\)")
# The engine's flag before an advisory standard's message.
_ADVISORY_HEAD = re.compile(r"^\s*Advisory:\s*", re.IGNORECASE)
# "If the project is major (the class is not decided: minor or major):": the letter groups these instead.
_CLASS_HEAD = re.compile(r"^\s*If the project is [^:]*?\(the class is not decided: [^)]*\):\s*", re.IGNORECASE)
# A command-line hint ("give it with --frost-depth-ft"): the applicant has no command line.
_CLI_HINT = re.compile(r"[:;,]?\s*(?:give|set|pass|use) (?:it |them )?with --[\w-]+[^.;]*", re.IGNORECASE)
# "devices.device_type": a layer's field, named as words.
_FIELD = re.compile(r"\b([a-z][a-z_]*)\.([a-z][a-z0-9_]*)\b")


def _field_words(m: re.Match[str]) -> str:
    layer, fld = m.group(1), m.group(2)
    noun = ROLE_NOUN.get(layer)
    if noun is None:
        return m.group(0)
    return f"the {noun}'s {fld.replace('_', ' ')}"


def strip_class_head(message: str) -> str:
    """``message`` without the "If the project is … (the class is not decided …):" lead the engine may put on it."""
    return _CLASS_HEAD.sub("", message)


def plain(message: str) -> str:
    """A finding's message in the applicant's words: method clauses and asides dropped, names as words.

    The first clause (what is wrong, where) is always kept. A clause is dropped when it only says how a value
    was measured or read; so is an aside naming the DEM, the slope algorithm or the engine's data. The
    engine's layer names become nouns (``building_sites`` -> ``building sites``), fields words (``set
    devices.device_type`` -> ``set the device's device type``), and a command-line hint goes.
    """
    text = strip_class_head(str(message or "").strip())
    text = _ADVISORY_HEAD.sub("", text)
    text = _CLI_HINT.sub("", text)
    text = _METHOD_ASIDE.sub("", text)
    text = re.sub(r",? which no input layer carries", "", text)
    sentences = re.split(r"(?<=\.)\s+(?=[A-Z])", text)
    out: list[str] = []
    for i, sent in enumerate(sentences):
        clauses = _top_level_split(sent)
        kept = [c for j, c in enumerate(clauses) if (i == 0 and j == 0) or not _METHOD_CLAUSE.search(c)]
        if not kept:
            continue
        if len(kept) < len(clauses) and not re.search(r"ft short\.?$", kept[-1]):
            short = re.search(r"(\d[\d,.]* ft short)\.?$", sent)
            if short:  # the shortfall closed a dropped clause: it closes the sentence
                kept[-1] = kept[-1].rstrip(".:;, ") + f": {short.group(1)}"
        out.append(sentence("; ".join(kept)))
    text = " ".join(out)
    text = _FIELD.sub(_field_words, text)
    for role, noun in ROLE_NOUN.items():
        if "_" in role:
            text = re.sub(rf"\b{role}\b", noun + "s", text)
    text = _SNAKE.sub(lambda m: m.group(0).replace("_", " "), text)
    text = re.sub(r"\s{2,}", " ", text).strip()
    return sentence(text)


def _top_level_split(text: str) -> list[str]:
    """``text`` split at each "; " outside parentheses."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == ";" and depth == 0 and text[i + 1:i + 2] == " ":
            parts.append(text[start:i])
            start = i + 2
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def sentence(text: str) -> str:
    """``text`` as one sentence: a capital first letter and a closing full stop."""
    text = str(text or "").strip().rstrip(";:,").strip()
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:] if text else text


def feature_label(ref: Mapping[str, object] | None) -> str:
    """``devices:DW-1`` as the applicant reads it: ``device DW-1``."""
    if not ref:
        return ""
    return f"{ROLE_NOUN.get(str(ref.get('layer')), str(ref.get('layer')))} {ref.get('id')}"


def where(subject_ref: Mapping[str, object] | None, other_ref: Mapping[str, object] | None, measured: float | None) -> str:
    """The feature a finding is about and, for a distance, how far it is from what: ``clearing C-1, 20.0 ft from shoreline SH-1``.

    ``subject_ref`` and ``other_ref`` are the finding's ``{"layer", "id"}`` (or ``None``); ``measured`` its distance, feet.
    """
    subject = feature_label(_mapping(subject_ref))
    other = feature_label(_mapping(other_ref))
    if subject and other and isinstance(measured, (int, float)):
        return f"{subject}, {float(measured):.1f} ft from {other}"
    if subject and other:
        return f"{subject} ({other})"
    return subject or other


def _mapping(x: object) -> Mapping[str, object] | None:
    return x if isinstance(x, Mapping) else None


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"(?<=[:;])\s+", text) if c]


def merge(messages: Sequence[str], places: Sequence[str]) -> tuple[str, list[str]]:
    """Several findings of one rule as one comment: the words they share, and one item per finding.

    Parameters
    ----------
    messages : sequence of str
        The findings' messages, already in plain words (:func:`plain`).
    places : sequence of str
        Each finding's place (:func:`where`); used as its item when not empty, else the words that tell
        the finding apart from the others.

    Returns
    -------
    (str, list of str)
        The shared text (a sentence) and the items, in the given order, each listed once.
    """
    if len(messages) == 1:
        return sentence(messages[0]), []
    split = [_clauses(m.rstrip(".")) for m in messages]
    head = 0
    while all(len(s) > head for s in split) and len({s[head] for s in split}) == 1:
        head += 1
    tail = 0
    while all(len(s) > head + tail for s in split) and len({s[-1 - tail] for s in split}) == 1:
        tail += 1
    shared = split[0][:head] + (split[0][len(split[0]) - tail:] if tail else [])
    items: list[str] = []
    for s, place in zip(split, places):
        item = place or " ".join(s[head:len(s) - tail]).rstrip(":;, ")
        if item and item not in items:
            items.append(item)
    text = " ".join(shared).strip().rstrip(":;,")
    return sentence(text) if text else "", items


__all__ = ["INTERNAL_WORDS", "feature_label", "internal_words_in", "merge", "plain", "sentence", "strip_class_head", "where"]
