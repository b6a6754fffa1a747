"""The reviewer's comment letter: numbered comments grouped by code section, carried across rounds.

Works on findings.json documents (plain dictionaries), like :mod:`stormwater_plugin.core.compare`, so the command line and
the dock compose the same letter. Writers (DOCX, PDF) live in :mod:`stormwater_plugin.report`.

What becomes a comment
----------------------
- each **violation** (one comment per finding: the applicant must change the plan), with the
  verified move of the device when one was found;
- each **undetermined** finding, worded as a request for information;
- each rule's **advisories**, one comment per rule listing its features;
- the reviewer's own comments, in their section or under *General*.

Findings the reviewer **accepted or waived** are not comments: they are listed in the letter with the
reviewer's reason, as the reviewer worded it. Passes are not listed.

Numbers across rounds
---------------------
A comment keeps its number in every later letter. On a resubmission each earlier comment that was not
already addressed is listed first under its number and the round that raised it, marked from the
comparison of the two reviews (:func:`stormwater_plugin.services.compare.compare_reviews`):

- every finding of the comment resolved: **addressed**;
- every finding still open as before: **not addressed**;
- otherwise (a distance or status changed, or some findings resolved): **partly addressed**, with what
  the plan shows now ("now 18.0 ft, required 20 ft"; a distance that meets the limit as drawn but within the
  data's stated accuracy of it says so and asks for a survey, never reading as a shortfall);
- an advisory comment (a note, nothing to address): **still applies** while its rule reports features,
  else **no longer applies**.

New comments are numbered on from the highest earlier number. An earlier comment already marked
addressed is not repeated.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Iterable, Mapping, Sequence, cast

from ..core.errors import StormwaterError
from .compare import compare_reviews
from .jsondoc import integer, mapping, maps, number, values
from .packs import source_statement
from .presentation import compass

#: Format tag of ``letter.json``.
LETTER_FORMAT = "stormwater-check-letter"
#: Excerpts of the regulation quoted in a comment when no longer than this (characters).
SHORT_EXCERPT_CHARS = 400

OPEN = ("violation", "undetermined")
ADDRESSED = "addressed"
NOT_ADDRESSED = "not addressed"
PARTLY = "partly addressed"
NO_LONGER = "no longer applies"
STILL_APPLIES = "still applies"


class LetterError(ValueError, StormwaterError):
    """A letter cannot be composed from what was given (names what is wrong)."""


@dataclass(frozen=True)
class Comment:
    """One numbered comment.

    Attributes
    ----------
    number : int
        Stable across rounds.
    round : int
        The round whose letter raised it.
    section : str
        The code section it is grouped under (``§148-11I``, ``6 NYCRR 646-4.14``).
    citation : str
        The full citation of the rule.
    status : str
        ``violation``, ``undetermined``, ``advisory`` or ``reviewer``.
    text : str
        The comment as the letter prints it.
    excerpt : str or None
        The regulation's words when short.
    measured_ft, required_ft : float or None
        Feet, for a distance finding.
    fix : str or None
        The suggested change (a verified move).
    keys : tuple of str
        The findings it stands for (their stable keys); empty for a reviewer's own comment.
    rule_id : str or None
        The rule, for an advisory comment (which stands for the rule's findings).
    """

    number: int
    round: int
    section: str
    citation: str
    status: str
    text: str
    excerpt: str | None = None
    measured_ft: float | None = None
    required_ft: float | None = None
    fix: str | None = None
    keys: tuple[str, ...] = ()
    rule_id: str | None = None

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["keys"] = list(self.keys)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Comment:
        return cls(
            number=integer(d["number"]),
            round=integer(d.get("round", 1)),
            section=str(d.get("section", "")),
            citation=str(d.get("citation", "")),
            status=str(d.get("status", "")),
            text=str(d.get("text", "")),
            excerpt=cast("str | None", d.get("excerpt")),
            measured_ft=cast("float | None", d.get("measured_ft")),
            required_ft=cast("float | None", d.get("required_ft")),
            fix=cast("str | None", d.get("fix")),
            keys=tuple(str(k) for k in cast("Iterable[object]", d.get("keys", ()))),
            rule_id=cast("str | None", d.get("rule_id")),
        )


@dataclass(frozen=True)
class PriorComment:
    """An earlier round's comment with its mark in this round."""

    comment: Comment
    mark: str
    note: str

    def as_dict(self) -> dict[str, object]:
        return {"comment": self.comment.as_dict(), "mark": self.mark, "note": self.note}


@dataclass(frozen=True)
class Decided:
    """A finding the reviewer accepted or waived, as the reviewer worded it."""

    citation: str
    message: str
    decision: str
    reason: str
    reviewer: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class LetterHeader:
    """Who writes to whom about what (every field optional but the jurisdiction's title)."""

    title: str
    town: str = ""
    application: str = ""
    applicant: str = ""
    address: str = ""
    parcel: str = ""
    reviewer: str = ""
    date: str = ""
    round: int = 1
    previous_date: str = ""
    project_class: str = ""


@dataclass(frozen=True)
class Letter:
    """A composed letter: the header, the earlier comments with their marks, the new comments."""

    header: LetterHeader
    prior: tuple[PriorComment, ...]
    comments: tuple[Comment, ...]
    decided: tuple[Decided, ...] = ()
    conditions: tuple[str, ...] = ()
    open_count: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def sections(self) -> list[tuple[str, list[Comment]]]:
        """The new comments grouped by section, in the order they are numbered."""
        out: dict[str, list[Comment]] = {}
        for c in self.comments:
            out.setdefault(c.section, []).append(c)
        return list(out.items())

    def all_comments(self) -> list[Comment]:
        """Every comment this letter carries forward (earlier ones not addressed, then the new ones)."""
        return [p.comment for p in self.prior if p.mark != ADDRESSED and p.mark != NO_LONGER] + list(self.comments)

    def as_dict(self) -> dict[str, object]:
        """The ``letter.json`` document: what the next round reads to keep the numbers."""
        return {
            "format": LETTER_FORMAT,
            "version": 1,
            "header": asdict(self.header),
            "prior": [p.as_dict() for p in self.prior],
            "comments": [c.as_dict() for c in self.comments],
            "carried": [c.as_dict() for c in self.all_comments()],
            "decided": [d.as_dict() for d in self.decided],
            "conditions": list(self.conditions),
            "notes": list(self.notes),
            "last_number": max([p.comment.number for p in self.prior] + [c.number for c in self.comments] + [0]),
        }


# --------------------------------------------------------------------------- wording


_CLI_HINT = re.compile(r"[:;,]?\s*(?:give|set|pass|use) (?:it |them )?with --[\w-]+.*$", re.IGNORECASE)


def section_of(citation: str) -> str:
    """The code section a citation groups under: the citation up to its first parenthesis.

    ``"Town of Lake George Code §148-11I(3)(c)"`` gives ``"Town of Lake George Code §148-11I"``;
    ``"6 NYCRR 646-4.14(a)(3)"`` gives ``"6 NYCRR 646-4.14"``.
    """
    return citation.strip().split("(", 1)[0].strip() or citation


def _sentence(text: str) -> str:
    text = _CLI_HINT.sub("", str(text or "").strip()).strip()
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text and not text[:2].isupper() else text


def _excerpt(f: Mapping[str, object]) -> str | None:
    ex = str(f.get("excerpt") or "").strip()
    return ex if ex and len(ex) <= SHORT_EXCERPT_CHARS else None


def _move_fix(move: Mapping[str, object] | None) -> str | None:
    if not move:
        return None
    dev = mapping(move.get("device")).get("id", "the device")
    if not move.get("possible"):
        return f"No position on the site parcel meets every setback for {dev} ({move.get('reason') or 'none found'}): relocate or redesign it."
    b = number(move.get("bearing_deg") or 0.0)
    return (
        f"Relocate {dev} at least {number(move.get('distance_ft') or 0.0):.1f} ft {_COMPASS_WORDS[compass(b)]} (bearing {b:.0f}°): "
        "the nearest position meeting every setback, verified by the checker."
    )


_COMPASS_WORDS = {"N": "north", "NE": "north-east", "E": "east", "SE": "south-east", "S": "south", "SW": "south-west", "W": "west", "NW": "north-west"}


def _finding_text(f: Mapping[str, object]) -> str:
    msg = _sentence(str(f.get("message") or ""))
    if f.get("status") == "undetermined":
        return f"Provide the information needed to decide compliance with {f.get('citation')}: {_lower_first(msg)}"
    return msg


def _is_decided(f: Mapping[str, object]) -> bool:
    ov = f.get("override")
    return bool(ov) and str(f.get("effective_status") or "") != str(f.get("status") or "")


def _status(f: Mapping[str, object]) -> str:
    return str(f.get("status") or "")


# --------------------------------------------------------------------------- composing


def _section_order(section: str) -> tuple[int | str, ...]:
    """Natural order of sections: numbers compared as numbers (646-4.9 before 646-4.14)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", section))


_STATUS_ORDER = {"violation": 0, "undetermined": 1, "advisory": 2, "reviewer": 3}


def new_comments(
    doc: Mapping[str, object],
    *,
    first_number: int,
    round_no: int,
    covered: set[str] | None = None,
    covered_rules: set[str] | None = None,
    reviewer_comments: Sequence[Mapping[str, object]] = (),
) -> list[Comment]:
    """The comments a review raises that no earlier comment covers, numbered from ``first_number``.

    Parameters
    ----------
    doc : mapping
        The current findings.json document.
    first_number : int
        The number of the first new comment.
    round_no : int
        This letter's round.
    covered : set of str, optional
        Finding keys an earlier comment already stands for.
    covered_rules : set of str, optional
        Rules whose advisories an earlier comment already stands for.
    reviewer_comments : sequence of mapping
        The reviewer's own comments: ``{"text": ..., "section": ... (optional), "citation": ... (optional)}``.
    """
    covered = covered or set()
    covered_rules = covered_rules or set()
    moves = {str(mapping(m.get("device")).get("id")): m for m in values(doc.get("moves")) if isinstance(m, Mapping)}
    # each comment (numbered once sorted) with the key that orders it within its section and status
    drafts: list[tuple[Comment, tuple[str, str]]] = []
    advisories: dict[str, list[Mapping[str, object]]] = {}
    for f in maps(doc.get("findings", [])):
        if _is_decided(f):
            continue
        st = _status(f)
        key = str(f.get("key") or "")
        if st in OPEN and key not in covered:
            subject = mapping(f.get("subject"))
            move = moves.get(str(subject.get("id"))) if st == "violation" and subject.get("layer") == "devices" and f.get("kind") == "device_setback" else None
            drafts.append((
                Comment(
                    number=0, round=round_no,
                    section=section_of(str(f.get("citation") or "")),
                    citation=str(f.get("citation") or ""),
                    status=st,
                    text=_finding_text(f),
                    excerpt=_excerpt(f),
                    measured_ft=cast("float | None", f.get("measured_ft")),
                    required_ft=cast("float | None", f.get("required_ft")),
                    fix=_move_fix(move),
                    keys=(key,),
                    rule_id=None,
                ),
                (cast(str, subject.get("id") or ""), key),  # the subject's id as findings.json has it
            ))
        elif st == "advisory" and str(f.get("rule_id")) not in covered_rules:
            advisories.setdefault(str(f.get("rule_id")), []).append(f)
    for rule_id, fs in advisories.items():
        first = fs[0]
        lines = " ".join(_sentence(str(f.get("message") or "")) for f in fs)
        drafts.append((
            Comment(
                number=0, round=round_no,
                section=section_of(str(first.get("citation") or "")),
                citation=str(first.get("citation") or ""),
                status="advisory",
                text=lines,
                excerpt=_excerpt(first),
                measured_ft=None,
                required_ft=None,
                fix=None,
                keys=tuple(sorted(str(f.get("key") or "") for f in fs)),
                rule_id=rule_id,
            ),
            ("", rule_id),
        ))
    for rc in reviewer_comments:
        text = str(rc.get("text") or "").strip()
        if not text:
            continue
        citation = str(rc.get("citation") or "")
        section = str(rc.get("section") or (section_of(citation) if citation else "General"))
        drafts.append((
            Comment(number=0, round=round_no, section=section, citation=citation, status="reviewer", text=_sentence(text), excerpt=None,
                    measured_ft=None, required_ft=None, fix=None, keys=(), rule_id=None),
            ("~", text),
        ))
    drafts.sort(key=lambda d: (d[0].section == "General", _section_order(d[0].section), _STATUS_ORDER[d[0].status], d[1]))
    return [replace(c, number=first_number + i) for i, (c, _) in enumerate(drafts)]


def _fmt(x: object) -> str:
    return "?" if x is None else f"{number(x):.1f}"


def _distance_note(n: Mapping[str, object], row: Mapping[str, object]) -> str:
    """What the plan shows now for a distance finding still open.

    A distance short of the limit reads ``now 17.0 ft, required 20.0 ft``. A distance that meets the limit
    as drawn but is undetermined because the margin is smaller than the data's stated accuracy (the
    finding's ``near_limit`` and ``accuracy_ft``, feet at 95%) must not read as a shortfall: it says the
    plan meets the limit, by how much, the accuracy, and that a survey confirms it.

    Parameters
    ----------
    n : mapping
        The finding in the new review (findings.json row: ``status``, ``near_limit``, ``accuracy_ft``, ``margin_ft``).
    row : mapping
        The comparison's new row (``measured_ft``, ``required_ft``, feet); the finding's own values fill gaps.
    """
    measured = row.get("measured_ft", n.get("measured_ft"))
    required = row.get("required_ft", n.get("required_ft"))
    accuracy = n.get("accuracy_ft")
    meets_as_drawn = (
        _status(n) == "undetermined"
        and bool(n.get("near_limit"))
        and accuracy is not None
        and measured is not None
        and required is not None
        and number(measured) >= number(required)
    )
    if not meets_as_drawn:
        return f"now {_fmt(measured)} ft, required {_fmt(required)} ft"
    margin = n.get("margin_ft")
    margin_ft = number(margin) if margin is not None else number(measured) - number(required)
    return (
        f"now {_fmt(measured)} ft against {_fmt(required)} ft required: the plan meets the distance as drawn, but by "
        f"{_fmt(margin_ft)} ft, less than the stated accuracy of the locations (±{_fmt(accuracy)} ft at 95%), so compliance "
        "cannot be confirmed from the plan; confirm the distance by survey"
    )


def mark_prior(comments: Sequence[Comment], old: Mapping[str, object], new: Mapping[str, object]) -> tuple[list[PriorComment], dict[str, str]]:
    """Each earlier comment marked from the comparison of the two reviews.

    Returns
    -------
    (list of PriorComment, dict)
        The marked comments, and the map of each earlier finding key to its key in the new review
        (renamed features and rules followed), for :func:`new_comments`' ``covered``.
    """
    cmp = compare_reviews(old, new)
    by_old_key: dict[str, tuple[str, Mapping[str, object]]] = {}
    for cat in ("resolved", "still_open", "changed", "new"):
        for e in cmp.get(cat, []):
            by_old_key.setdefault(str(e["key"]), (cat, e))
    changed = {str(e["key"]): e for e in cmp.get("changed", [])}
    key_map = {str(k): str(v) for k, v in (cmp.get("key_map") or {}).items()}
    new_by = {str(f.get("key") or ""): f for f in maps(new.get("findings", []))}
    new_rules = {str(f.get("rule_id")) for f in maps(new.get("findings", [])) if _status(f) == "advisory"}
    out: list[PriorComment] = []
    for c in comments:
        if c.status == "reviewer":
            out.append(PriorComment(c, NOT_ADDRESSED, "the reviewer's comment stands until the reviewer marks it"))
            continue
        if c.status == "advisory":
            still = c.rule_id in new_rules
            out.append(PriorComment(c, STILL_APPLIES if still else NO_LONGER, "" if still else "the rule no longer reports these features"))
            continue
        states: list[str] = []
        notes: list[str] = []
        for key in c.keys:
            k = key_map.get(key, key)
            n = new_by.get(k)
            if k in changed and n is not None:
                states.append("changed")
                e = changed[k]
                new_row = e.get("new") or {}
                if _status(n) in OPEN and new_row.get("required_ft") is not None:
                    notes.append(_distance_note(n, new_row))
                elif _status(n) in OPEN:
                    notes.append(f"now {_status(n)}: {_sentence(str(n.get('message') or ''))}")
                else:
                    states[-1] = "resolved"
                    notes.append(f"now {_status(n)}")
            elif n is None or _status(n) not in OPEN or _is_decided(n):
                states.append("resolved")
                cat_e = by_old_key.get(k)
                notes.append(str(cat_e[1].get("why")) if cat_e and cat_e[0] == "resolved" and cat_e[1].get("why") else ("decided by the reviewer" if n is not None and _is_decided(n) else "resolved"))
            else:
                states.append("open")
                notes.append("unchanged")
        if states and all(s == "resolved" for s in states):
            mark = ADDRESSED
        elif states and all(s == "open" for s in states):
            mark = NOT_ADDRESSED
        else:
            mark = PARTLY
        out.append(PriorComment(c, mark, "; ".join(dict.fromkeys(notes))))
    return out, key_map


def compose_letter(
    doc: Mapping[str, object],
    header: LetterHeader,
    *,
    previous_doc: Mapping[str, object] | None = None,
    previous_letter: Mapping[str, object] | None = None,
    reviewer_comments: Sequence[Mapping[str, object]] = (),
    conditions: Sequence[str] = (),
) -> Letter:
    """The letter of one round.

    Parameters
    ----------
    doc : mapping
        This round's findings.json document (decisions applied).
    header : LetterHeader
        The header; its ``round`` is set from the previous letter when one is given.
    previous_doc : mapping, optional
        The earlier round's findings.json (a resubmission).
    previous_letter : mapping, optional
        The earlier round's ``letter.json``; without it, the earlier letter is composed again from
        ``previous_doc`` (same numbers, since numbering is deterministic).
    reviewer_comments, conditions : sequence
        The reviewer's own comments and approval conditions.
    """
    if previous_letter is not None and previous_letter.get("format") != LETTER_FORMAT:
        raise LetterError("the earlier letter.json is not a stormwater-check letter")
    if previous_letter is not None and previous_doc is None:
        raise LetterError("an earlier letter needs the earlier review's findings.json to mark its comments")
    prior: list[PriorComment] = []
    covered: set[str] = set()
    covered_rules: set[str] = set()
    round_no = 1
    first = 1
    if previous_doc is not None:
        if previous_letter is None:
            previous_letter = compose_letter(previous_doc, LetterHeader(title=header.title)).as_dict()
        earlier = [Comment.from_dict(c) for c in maps(previous_letter.get("carried", previous_letter.get("comments", [])))]
        round_no = integer(mapping(previous_letter.get("header")).get("round", 1)) + 1
        prior, key_map = mark_prior(earlier, previous_doc, doc)
        for p in prior:
            covered |= {key_map.get(k, k) for k in p.comment.keys}
            if p.comment.rule_id and p.mark != NO_LONGER:
                covered_rules.add(p.comment.rule_id)
        first = max([c.number for c in earlier] + [integer(previous_letter.get("last_number") or 0)]) + 1
        if not header.previous_date:
            header = _replace_header(header, previous_date=str(mapping(previous_letter.get("header")).get("date", "")))
    header = _replace_header(header, round=round_no, project_class=header.project_class or str(doc.get("project_class") or ""))
    comments = new_comments(doc, first_number=first, round_no=round_no, covered=covered, covered_rules=covered_rules, reviewer_comments=reviewer_comments)
    decided = tuple(
        Decided(
            citation=str(f.get("citation") or ""),
            message=_sentence(str(f.get("message") or "")),
            decision=str(mapping(f.get("override")).get("decision") or ""),
            reason=str(mapping(f.get("override")).get("reason") or ""),
            reviewer=str(mapping(f.get("override")).get("reviewer") or ""),
        )
        for f in maps(doc.get("findings", []))
        if _is_decided(f)
    )
    open_count = sum(1 for p in prior if p.mark in (NOT_ADDRESSED, PARTLY) and p.comment.status in OPEN) + sum(1 for c in comments if c.status in OPEN)
    notes = ((str(doc.get("note") or ""),) if doc.get("note") else ()) + tuple(n for n in [source_statement(mapping(mapping(doc.get("rule_pack")).get("source")))] if n)
    return Letter(header, tuple(prior), tuple(comments), decided, tuple(str(c) for c in conditions if str(c).strip()), open_count, notes)


def _replace_header(h: LetterHeader, **changes: object) -> LetterHeader:
    d = asdict(h)
    d.update(changes)
    return LetterHeader(**d)


__all__ = [
    "ADDRESSED",
    "Comment",
    "Decided",
    "LETTER_FORMAT",
    "Letter",
    "LetterError",
    "LetterHeader",
    "NOT_ADDRESSED",
    "NO_LONGER",
    "PARTLY",
    "STILL_APPLIES",
    "PriorComment",
    "compose_letter",
    "mark_prior",
    "new_comments",
    "section_of",
]
