"""The comment letter as a sequence of blocks: every word the DOCX and the PDF print, in one place.

:func:`letter_blocks` turns a :class:`~stormwater_plugin.services.letter.Letter` into plain blocks
(title, header lines, headings, paragraphs, numbered comments); ``letter_docx`` and ``letter_pdf``
only lay them out, so the two files always say the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.printable import printable_text
from ..services.letter import ADDRESSED, NO_LONGER, NOT_ADDRESSED, PARTLY, STILL_APPLIES, Comment, Letter

#: How each status is named at the head of a comment.
STATUS_WORDS = {
    "violation": "Not compliant",
    "undetermined": "Information requested",
    "advisory": "Note",
    "reviewer": "Reviewer's comment",
}
MARK_WORDS = {
    ADDRESSED: "Addressed",
    NOT_ADDRESSED: "Not addressed",
    PARTLY: "Partly addressed",
    NO_LONGER: "No longer applies",
    STILL_APPLIES: "Still applies",
}


@dataclass(frozen=True)
class Block:
    """One block of the letter.

    ``kind``: ``title``, ``meta`` (a header line), ``h1``, ``h2``, ``para``, ``comment``, ``quote``,
    ``fix``, ``bullet``. A ``comment`` has ``lead`` (``Comment 3 (round 1) — Not compliant``) and
    ``text``; ``mark`` is the round mark of an earlier comment.
    """

    kind: str
    text: str
    lead: str = ""
    mark: str = ""
    status: str = ""
    extra: tuple[str, ...] = field(default_factory=tuple)


def _comment_blocks(c: Comment, mark: str = "", note: str = "") -> list[Block]:
    lead = f"Comment {c.number}"
    if mark:
        lead += f" (round {c.round})"
    lead += f" — {STATUS_WORDS.get(c.status, c.status)}"
    if c.citation and c.status != "reviewer":
        lead += f", {c.citation}"
    out = []
    if mark:
        word = MARK_WORDS.get(mark, mark)
        # the earlier words are repeated for what had to be addressed; a note is named by its number only
        extra = (c.text,) if c.status != "advisory" else ()
        out.append(Block("comment", f"{word}{': ' + note if note else ''}.", lead=lead, mark=mark, status=c.status, extra=extra))
    else:
        out.append(Block("comment", c.text, lead=lead, status=c.status))
        if c.excerpt:
            out.append(Block("quote", f"“{c.excerpt}”"))
        if c.fix:
            out.append(Block("fix", f"Suggested change: {c.fix}"))
    return out


def letter_blocks(letter: Letter) -> list[Block]:
    """Every block of the letter, in reading order."""
    h = letter.header
    out = [Block("title", f"Stormwater review comments{f' — round {h.round}' if h.round > 1 else ''}")]
    for label, value in (
        ("Regulation", h.title),
        ("Town", h.town),
        ("Application", h.application),
        ("Applicant", h.applicant),
        ("Property", " · ".join(v for v in (h.address, f"tax parcel {h.parcel}" if h.parcel else "") if v)),
        ("Project class", h.project_class),
        ("Reviewer", h.reviewer),
        ("Date", h.date),
    ):
        if value:
            out.append(Block("meta", f"{label}: {value}"))
    intro = (
        "We have reviewed the stormwater site plan submitted for the application above. Our comments are numbered; "
        "please respond to each by its number."
    )
    if letter.prior:
        since = f" of {h.previous_date}" if h.previous_date else ""
        intro = (
            f"We have reviewed the resubmitted plan. The first part answers each open comment of our letter{since} by its number; "
            "new comments follow, numbered on. Please respond to each open comment by its number."
        )
    out.append(Block("para", intro))
    if letter.prior:
        out.append(Block("h1", f"Response to the comments of the earlier letter{f' of {h.previous_date}' if h.previous_date else ''}"))
        for p in letter.prior:
            out.extend(_comment_blocks(p.comment, p.mark or NOT_ADDRESSED, p.note))
    if letter.comments:
        out.append(Block("h1", "New comments" if letter.prior else "Comments"))
        for section, comments in letter.sections():
            out.append(Block("h2", section))
            for c in comments:
                out.extend(_comment_blocks(c))
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
    status = (
        f"{letter.open_count} comment(s) remain open; the application cannot be approved until each is resolved."
        if letter.open_count
        else "No comment that requires a change to the plan remains open."
    )
    out.append(Block("h1", "Status"))
    out.append(Block("para", status))
    for n in letter.notes:
        out.append(Block("para", f"About this review: {n}"))
    if h.reviewer:
        out.append(Block("para", f"Sincerely,\n{h.reviewer}"))
    # One text-sanitising function for every output (issue 35): a vertical tab (Word's line break) in a reviewer's name or a
    # reason, a NUL in an owner's name, never reaches the DOCX (python-docx refuses the whole letter) or the PDF.
    return [_printable(b) for b in out]


def _printable(b: Block) -> Block:
    """``b`` with its text through :func:`~stormwater_plugin.core.printable.printable_text` (lines kept in a paragraph)."""
    return Block(b.kind, printable_text(b.text, multiline=b.kind == "para"), printable_text(b.lead), printable_text(b.mark), b.status,
                 tuple(printable_text(x) for x in b.extra))


__all__ = ["Block", "letter_blocks", "STATUS_WORDS", "MARK_WORDS"]
