"""The comment letter as a sequence of blocks: every word the DOCX and the PDF print, in one place.

:func:`letter_blocks` turns a :class:`~stormwater_plugin.services.letter.Letter` into plain blocks; the
DOCX and PDF writers only lay them out, so the two files always say the same. A town's letter reads, in
order: the date (US style), the addressee block, the "Re:" line, the salutation, the opening paragraph;
on a resubmission what changed since the earlier letter and the answer to each of its comments; the new
comments, deficiencies first (not compliant, information requested, notes to answer, the reviewer's
own); one part per class the project may be when its class is open ("If the project is major"); the
findings the reviewer accepted or waived; conditions; the notes for information (no reply needed); the
closing paragraph; the signature block (the last two always kept on one page).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field, replace

from ..services.letter import ADDRESSED, FYI, NO_LONGER, NOT_ADDRESSED, PARTLY, REPLY, STILL_APPLIES, UNDECIDED, Comment, Letter

#: How each status is named at the head of a comment.
STATUS_WORDS = {
    "violation": "Not compliant",
    "undetermined": "Information requested",
    "advisory": "Note",
    "reviewer": "Reviewer's comment",
}
#: The headings of the comments, by status, in the order the letter lists them.
STATUS_HEADINGS = {
    "violation": "Not compliant",
    "undetermined": "Information requested",
    "advisory": "Notes to answer",
    "reviewer": "Further comments",
}
MARK_WORDS = {
    ADDRESSED: "Addressed",
    NOT_ADDRESSED: "Not addressed",
    PARTLY: "Partly addressed",
    NO_LONGER: "No longer applies",
    STILL_APPLIES: "Still applies",
}
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


@dataclass(frozen=True)
class Block:
    """One block of the letter.

    ``kind``: ``date``, ``address`` (lines), ``re``, ``salutation``, ``para``, ``h1``, ``h2``, ``comment``,
    ``item`` (a feature a comment lists), ``quote``, ``fix``, ``method``, ``bullet``, ``closing`` (the last
    paragraph, kept with the signature), ``signature`` (lines). A ``comment`` has ``lead``
    (``Comment 3 (round 1) — Not compliant, …``) and ``text``; ``mark`` is the round mark of an earlier comment.
    """

    kind: str
    text: str
    lead: str = ""
    mark: str = ""
    status: str = ""
    extra: tuple[str, ...] = field(default_factory=tuple)


# Characters an XML document (DOCX) cannot hold and a PDF would print as boxes: a vertical tab pasted into an
# applicant's name. The project's one sanitising function replaces this when it lands.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable(text: str) -> str:
    """``text`` with control characters (other than tab and newline) as spaces."""
    return _CONTROL.sub(" ", text)


def us_date(value: str) -> str:
    """An ISO date (``2026-12-05``) as a US letter prints it (``December 5, 2026``); any other text as given."""
    try:
        d = _dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        return str(value)
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _lines(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"[\n;]", str(text or "")) if s.strip()]


def _comment_blocks(c: Comment, mark: str = "", note: str = "", quoted: dict[str, int] | None = None) -> list[Block]:
    lead = f"Comment {c.number}"
    if mark:
        lead += f" (round {c.round})"
    lead += f" — {STATUS_WORDS.get(c.status, c.status)}"
    if c.citation and c.status != "reviewer":
        lead += f", {c.citation}"
    elif c.features and c.status == "reviewer":
        lead += f", {c.features[0]}"
    out = []
    features = f" Features: {'; '.join(c.features)}." if c.features and c.status != "reviewer" else ""
    if mark:
        word = MARK_WORDS.get(mark, mark)
        # the earlier words are repeated for what had to be addressed; a note is named by its number only
        extra = (c.text + features,) if c.status != "advisory" else ()
        out.append(Block("comment", f"{word}{': ' + note if note else ''}.", lead=lead, mark=mark, status=c.status, extra=extra))
        return out
    out.append(Block("comment", c.text, lead=lead, status=c.status))
    if c.status != "reviewer":
        out.extend(Block("item", f) for f in c.features)
    if c.excerpt:
        first = (quoted or {}).get(c.excerpt)
        if first is None:
            out.append(Block("quote", f"The text requires: “{c.excerpt}”"))
            if quoted is not None:
                quoted[c.excerpt] = c.number
        else:  # the same words quoted once: a later comment under the same text points to them
            out.append(Block("quote", f"The text requires: as quoted under comment {first}."))
    if c.fix:
        out.append(Block("fix", f"Suggested change: {c.fix}"))
    elif c.status == "violation" and c.origin != "reworded":
        out.append(Block("fix", "Please revise the plan so that it meets the requirement quoted above."))
    if c.status in ("violation", "undetermined") and c.citation:
        out.append(Block("method", f"How the plan was measured is set out in the review report under {c.citation}."))
    return out


def _numbers(ns: list[int]) -> str:
    return ", ".join(str(n) for n in ns)


def _changes(letter: Letter) -> list[Block]:
    """What changed since the earlier letter, in a few lines (a resubmission)."""
    h = letter.header
    out: list[Block] = []
    if h.previous_class and h.project_class and h.previous_class != h.project_class:
        was = f"it was reviewed as a {h.previous_class} project" if h.previous_class != UNDECIDED else "the earlier plan did not settle it"
        now = (f"The project is now reviewed as a {h.project_class} project" if h.project_class != UNDECIDED
               else "The revised plan no longer settles the project's class")
        out.append(Block("bullet", f"{now} ({was})."))
    for mark in (ADDRESSED, PARTLY, NOT_ADDRESSED, NO_LONGER):
        ns = [p.comment.number for p in letter.prior if p.mark == mark]
        if ns:
            out.append(Block("bullet", f"{MARK_WORDS[mark]}: comment{'s' if len(ns) > 1 else ''} {_numbers(ns)}."))
    ns = [c.number for c in letter.comments]
    out.append(Block("bullet", f"New comment{'s' if len(ns) > 1 else ''}: {_numbers(ns)}." if ns else "The revised plan raises no new comment."))
    return out


def _part_heading(part: str) -> str:
    return f"If the project is {part.split(':', 1)[1]}"


def letter_blocks(letter: Letter) -> list[Block]:
    """Every block of the letter, in reading order (the letterhead and signature come from the template)."""
    h = letter.header
    out: list[Block] = []
    if h.date:
        out.append(Block("date", us_date(h.date)))
    address = [h.applicant] if h.applicant else []
    address += _lines(h.mailing_address)
    if address:
        out.append(Block("address", "\n".join(address)))
    prop = " ".join(v for v in (h.address, f"(tax parcel {h.parcel})" if h.parcel else "") if v)
    re_lines = [f"Stormwater site plan review{f', application {h.application}' if h.application else ''}"
                + (f" — round {h.round} (resubmission)" if h.round > 1 else "")]
    if prop:
        re_lines.append(f"Property: {prop}")
    re_lines.append(h.title)
    out.append(Block("re", "\n".join(re_lines)))
    out.append(Block("salutation", f"Dear {h.applicant}:" if h.applicant else "Dear Applicant:"))
    klass = f" as a {h.project_class} project" if h.project_class in ("minor", "major") else ""
    if h.project_class == UNDECIDED:
        klass = "; the plan does not settle whether the project is minor or major"
    if letter.prior:
        since = f" of {us_date(h.previous_date)}" if h.previous_date else ""
        intro = (f"We have reviewed the revised stormwater site plan submitted in response to our letter{since}{klass}. "
                 "Below we list what changed, answer each comment of that letter by its number, and add any new comments, numbered on.")
    else:
        intro = (f"We have reviewed the stormwater site plan submitted for the application above{klass}. "
                 "Our comments are numbered; please respond to each by its number. The notes for your information at the end need no reply.")
    out.append(Block("para", intro))
    if letter.prior:
        since = f" of {us_date(h.previous_date)}" if h.previous_date else ""
        out.append(Block("h1", f"Changes since our letter{since}"))
        out.extend(_changes(letter))
        out.append(Block("h1", f"Comments of our letter{since}"))
        for p in letter.prior:
            out.extend(_comment_blocks(p.comment, p.mark or NOT_ADDRESSED, p.note))
    parts = letter.parts()
    quoted: dict[str, int] = {}
    if parts:
        for part, comments in parts:
            if part == REPLY:
                out.append(Block("h1", "New comments" if letter.prior else "Comments"))
            else:
                out.append(Block("h1", _part_heading(part)))
                out.append(Block("para", f"The plan does not settle the project's class. The comments below apply only if the project is {part.split(':', 1)[1]}; "
                                         "please answer them, or show the class by answering the requests above."))
            status = ""
            for c in comments:
                if c.status != status:
                    status = c.status
                    out.append(Block("h2", STATUS_HEADINGS.get(status, status)))
                out.extend(_comment_blocks(c, quoted=quoted))
    elif not letter.prior:
        out.append(Block("para", "The review raised no comment."))
    if letter.decided:
        out.append(Block("h1", "Findings the reviewer has accepted or waived"))
        for d in letter.decided:
            who = f" ({d.reviewer})" if d.reviewer else ""
            out.append(Block("bullet", f"{d.citation}: {d.message} {d.decision.capitalize()}{who}: {d.reason}".strip()))
    if letter.conditions:
        out.append(Block("h1", "Conditions of approval"))
        for i, cond in enumerate(letter.conditions, 1):
            out.append(Block("bullet", f"{i}. {cond}"))
    fyi = [c for c in letter.fyi if c.part == FYI]
    if fyi:
        out.append(Block("h1", "For your information (no reply needed)"))
        for c in fyi:
            feats = f" Features: {'; '.join(c.features)}." if c.features else ""
            out.append(Block("bullet", f"{c.citation}: {c.text}{feats}"))
    closing = (
        f"{letter.open_count} comment{'s' if letter.open_count != 1 else ''} remain{'s' if letter.open_count == 1 else ''} open; the application "
        "cannot be approved until each is resolved. Please submit a revised plan with a response to each numbered comment."
        if letter.open_count
        else "No comment that requires a change to the plan remains open."
    )
    out.append(Block("closing", closing))
    return [_clean(b) for b in out]


def signature_lines(letter: Letter) -> list[str]:
    """The built-in signature block: the closing word, room to sign, the reviewer, the title, the town."""
    h = letter.header
    return ["Sincerely,", "", "", *(v for v in (h.reviewer, h.reviewer_title, h.town) if v)]


def letterhead_lines(letter: Letter) -> list[str]:
    """The built-in letterhead: the town (or the regulation) and what the office does."""
    h = letter.header
    return [h.town or h.title, "Stormwater site plan review"]


def placeholder_values(letter: Letter) -> dict[str, str]:
    """What each ``{{placeholder}}`` of a town's template is replaced by (see :mod:`.letter_template`)."""
    h = letter.header
    return {k: printable(v) for k, v in {
        "town": h.town,
        "date": us_date(h.date) if h.date else "",
        "reviewer": h.reviewer,
        "reviewer_title": h.reviewer_title,
        "application": h.application,
        "applicant": h.applicant,
        "property": h.address,
        "parcel": h.parcel,
        "regulation": h.title,
        "round": str(h.round),
    }.items()}


def _clean(b: Block) -> Block:
    return replace(b, text=printable(b.text), lead=printable(b.lead), extra=tuple(printable(e) for e in b.extra))


__all__ = ["Block", "MARK_WORDS", "STATUS_WORDS", "letter_blocks", "letterhead_lines", "placeholder_values", "printable",
           "signature_lines", "us_date"]
