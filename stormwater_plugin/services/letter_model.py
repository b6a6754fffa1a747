"""The comment letter's data: a comment, an earlier comment with its round mark, a decision, the header, the letter.

Plain frozen dataclasses and the ``letter.json`` document they make (read back by the next round to keep every
comment's number). What goes into them is :mod:`stormwater_plugin.services.letter`'s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Iterable, Mapping, cast

from ..core.errors import StormwaterError
from .jsondoc import integer
from .letter_edits import CommentEdit

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

#: The part of the letter a comment is in: the comments to answer, or the notes needing no reply.
REPLY = "reply"
FYI = "fyi"
#: The header's project class when the plan does not settle it (the review assumed one).
UNDECIDED = "undecided"
#: Kinds of advisory that ask nothing of the applicant (what the town decides or a practice during the
#: works): they go to the "for your information" list. Any other note asks the applicant to show or supply
#: something (a plot plan item, a design by a professional, the names of neighbours) and is answered.
FYI_KINDS = frozenset({
    "area_threshold", "building_site_slope", "soil_trigger", "sensitive_surroundings", "fertilizer_zone", "clearing_near_water",
    "clearing_slope",
})


class LetterError(ValueError, StormwaterError):
    """A letter cannot be composed from what was given (names what is wrong)."""


@dataclass(frozen=True)
class Comment:
    """One numbered comment.

    Attributes
    ----------
    number : int
        Stable across rounds (0 for a "for your information" note, which is not numbered).
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
        The suggested change (a move that meets every setback).
    keys : tuple of str
        The findings it stands for (their stable keys); empty for a reviewer's own comment.
    rule_id : str or None
        The rule, for a comment standing for a rule's findings (notes, requests for information).
    part : str
        ``reply`` (answered by number), ``fyi`` (needs no reply) or ``class:<class>`` (binds only if the
        project is of that class, e.g. ``class:major``).
    features : tuple of str
        The features a grouped comment lists (``clearing C-1, 20.0 ft from shoreline SH-1``).
    ref : str
        What the reviewer's edits name it by (:mod:`.letter_edits`): the finding key, ``rule:<id>``,
        ``info:<feature>:<fields>`` or ``added:<n>``.
    origin : str
        ``generated``, ``reworded`` or ``added``.
    original : str or None
        The generated words of a reworded comment (kept in letter.json, never printed).
    feature : dict or None
        The feature a reviewer's added comment is about.
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
    part: str = REPLY
    features: tuple[str, ...] = ()
    ref: str = ""
    origin: str = "generated"
    original: str | None = None
    feature: dict[str, str] | None = None

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["keys"] = list(self.keys)
        d["features"] = list(self.features)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Comment:
        feature = d.get("feature")
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
            part=str(d.get("part") or REPLY),
            features=tuple(str(k) for k in cast("Iterable[object]", d.get("features", ()))),
            ref=str(d.get("ref") or ""),
            origin=str(d.get("origin") or "generated"),
            original=cast("str | None", d.get("original")),
            feature={str(k): str(v) for k, v in feature.items()} if isinstance(feature, Mapping) else None,
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
class Dropped:
    """A comment the reviewer left out of the letter, and why (kept in letter.json, never sent)."""

    comment: Comment
    reason: str
    reviewer: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"comment": self.comment.as_dict(), "reason": self.reason, "reviewer": self.reviewer}


@dataclass(frozen=True)
class LetterHeader:
    """Who writes to whom about what (every field optional but the jurisdiction's title).

    ``date`` is ISO 8601 (``2026-12-05``): the letter prints it the US way. ``address`` is the property's;
    ``mailing_address`` the applicant's (lines separated by newlines or commas).
    """

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
    mailing_address: str = ""
    reviewer_title: str = ""
    previous_class: str = ""


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
    fyi: tuple[Comment, ...] = ()
    dropped: tuple[Dropped, ...] = ()
    stale_edits: tuple[CommentEdit, ...] = ()
    edits: tuple[CommentEdit, ...] = ()

    def sections(self) -> list[tuple[str, list[Comment]]]:
        """The new comments grouped by section, in the order they are numbered."""
        out: dict[str, list[Comment]] = {}
        for c in self.comments:
            out.setdefault(c.section, []).append(c)
        return list(out.items())

    def parts(self) -> list[tuple[str, list[Comment]]]:
        """The new numbered comments by part: the comments to answer first, then one part per possible class."""
        out: dict[str, list[Comment]] = {REPLY: []}
        for c in self.comments:
            out.setdefault(c.part, []).append(c)
        return [(k, v) for k, v in out.items() if v]

    def all_comments(self) -> list[Comment]:
        """Every comment this letter carries forward (earlier ones not addressed, then the new ones)."""
        return [p.comment for p in self.prior if p.mark != ADDRESSED and p.mark != NO_LONGER] + list(self.comments)

    def as_dict(self) -> dict[str, object]:
        """The ``letter.json`` document: what the next round reads to keep the numbers."""
        return {
            "format": LETTER_FORMAT,
            "version": 2,
            "header": asdict(self.header),
            "prior": [p.as_dict() for p in self.prior],
            "comments": [c.as_dict() for c in self.comments],
            "carried": [c.as_dict() for c in self.all_comments()],
            "fyi": [c.as_dict() for c in self.fyi],
            "dropped": [d.as_dict() for d in self.dropped],
            "edits": [e.as_dict() for e in self.edits],
            "stale_edits": [e.as_dict() for e in self.stale_edits],
            "decided": [d.as_dict() for d in self.decided],
            "conditions": list(self.conditions),
            "notes": list(self.notes),
            "last_number": max([p.comment.number for p in self.prior] + [c.number for c in self.comments]
                               + [d.comment.number for d in self.dropped] + [0]),
        }


__all__ = [
    "ADDRESSED", "Comment", "Decided", "Dropped", "FYI", "FYI_KINDS", "LETTER_FORMAT", "Letter", "LetterError", "LetterHeader", "NOT_ADDRESSED",
    "NO_LONGER", "OPEN", "PARTLY", "PriorComment", "REPLY", "SHORT_EXCERPT_CHARS", "STILL_APPLIES", "UNDECIDED",
]
