"""The reviewer's comment letter: numbered comments grouped by code section, carried across rounds.

Works on findings.json documents (plain dictionaries), like :mod:`stormwater_plugin.core.compare`, so the command line and
the dock compose the same letter. Writers (DOCX, PDF) live in :mod:`stormwater_plugin.report`.

What becomes a comment
----------------------
The letter speaks to the applicant (:mod:`.letter_words`): what is wrong, where, what the text requires
(quoted), what to change; how a value was measured stays in the review report, named by the section.

- each **violation**: one comment per feature and rule (each asks its own change), with the device's move when
  one was found; a feature that breaks one rule against several others (a device too close to the shoreline
  and to the water body behind it: one change settles both) is one comment, led by the governing finding (the
  largest shortfall, then the nearest) and naming every other feature with its distance;
- each **undetermined** finding: a request for information, asked once for every finding it affects
  (one comment per rule, or per feature and missing attribute);
- each rule's **advisories**: one comment listing its features (never the same sentence per feature);
  a note that asks nothing of the applicant (:data:`FYI_KINDS`, or a standard that does not bind) goes to
  a "for your information" list that needs no reply;
- a finding that binds only under one of the classes the project may be (``details.binds_if_class``) is
  listed in one part per such class ("If the project is major"), not prefixed per comment;
- the reviewer's edits (:mod:`.letter_edits`): reworded and added comments; dropped ones are kept with
  their reason in ``letter.json`` and never sent.

Comments are ordered not compliant, then information requested, then notes, then the reviewer's own;
within each by section.

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

import math
import re
from dataclasses import asdict, replace
from typing import Mapping, Sequence

from ..core.compare import with_keys
from .compare import compare_reviews, review_document
from .findings_doc import DocFinding, FindingsDocument, document_from_json, findings_json
from .jsondoc import integer, mapping, maps, number, values
from .letter_edits import CommentEdit
from .letter_model import (
    ADDRESSED,
    FYI,
    FYI_KINDS,
    LETTER_FORMAT,
    NO_LONGER,
    NOT_ADDRESSED,
    OPEN,
    PARTLY,
    REPLY,
    SHORT_EXCERPT_CHARS,
    STILL_APPLIES,
    UNDECIDED,
    Comment,
    Decided,
    Dropped,
    Letter,
    LetterError,
    LetterHeader,
    PriorComment,
)
from .letter_words import feature_label, merge, plain, sentence, where
from .packs import source_statement
from .presentation import compass

# --------------------------------------------------------------------------- wording


def section_of(citation: str) -> str:
    """The code section a citation groups under: the citation up to its first parenthesis.

    ``"Town of Lake George Code §148-11I(3)(c)"`` gives ``"Town of Lake George Code §148-11I"``;
    ``"6 NYCRR 646-4.14(a)(3)"`` gives ``"6 NYCRR 646-4.14"``.
    """
    return citation.strip().split("(", 1)[0].strip() or citation


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text and not text[:2].isupper() else text


def _excerpt(f: DocFinding) -> str | None:
    ex = str(f.excerpt or "").strip()
    return ex if ex and len(ex) <= SHORT_EXCERPT_CHARS else None


def _move_fix(move: Mapping[str, object] | None) -> str | None:
    if not move:
        return None
    dev = mapping(move.get("device")).get("id", "the device")
    if not move.get("possible"):
        return f"No position on the site parcel meets every setback for {dev}: relocate or redesign it."
    b = number(move.get("bearing_deg") or 0.0)
    return (
        f"Move {dev} at least {number(move.get('distance_ft') or 0.0):.1f} ft {_COMPASS_WORDS[compass(b)]} (bearing {b:.0f}°), "
        "the nearest position that meets every setback."
    )


_COMPASS_WORDS = {"N": "north", "NE": "north-east", "E": "east", "SE": "south-east", "S": "south", "SW": "south-west", "W": "west", "NW": "north-west"}


def _finding_text(f: DocFinding) -> str:
    msg = plain(str(f.message or ""))
    if f.status == "undetermined":
        return f"Provide the information needed to decide compliance with {f.citation}: {_lower_first(msg)}"
    return msg


def _is_decided(f: DocFinding | Mapping[str, object]) -> bool:
    """A reviewer decision changed the finding's status (a typed finding, or one of a findings.json :func:`mark_prior` compares)."""
    if isinstance(f, DocFinding):
        return bool(f.override) and str(f.effective_status or "") != str(f.status or "")
    return bool(f.get("override")) and str(f.get("effective_status") or "") != str(f.get("status") or "")


def _status(f: DocFinding | Mapping[str, object]) -> str:
    return str((f.status if isinstance(f, DocFinding) else f.get("status")) or "")


def _part(f: DocFinding) -> str:
    """Which part of the letter a finding's comment goes to (see :attr:`Comment.part`)."""
    details = f.details
    if _status(f) == "advisory" and (str(f.kind or "") in FYI_KINDS or details.get("would_be")):
        return FYI
    binding = details.get("binds_if_class")
    if isinstance(binding, list) and binding:
        return "class:" + " or ".join(str(b) for b in binding)
    return REPLY


# --------------------------------------------------------------------------- composing


def _section_order(section: str) -> tuple[int | str, ...]:
    """Natural order of sections: numbers compared as numbers (646-4.9 before 646-4.14)."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", section))


_STATUS_ORDER = {"violation": 0, "undetermined": 1, "advisory": 2, "reviewer": 3}


def _part_order(part: str) -> tuple[int, str]:
    return (0 if part == REPLY else 2 if part == FYI else 1, part)


def _grouped(fs: Sequence[DocFinding], *, status: str, ref: str, part: str, round_no: int) -> Comment:
    """One comment for several findings of one rule (or one request): the shared words once, the features listed."""
    first = fs[0]
    messages = [plain(str(f.message or "")) for f in fs]
    text, items = merge(messages, [where(f.subject, f.other, f.measured_ft) for f in fs] if len(fs) > 1 else [""])
    if status == "undetermined":
        text = f"Provide the information needed to decide compliance with {first.citation}: {_lower_first(text)}"
    cites = list(dict.fromkeys(str(f.citation or "") for f in fs))
    if len(cites) > 1:
        text += f" This affects {'; '.join(cites)}."
    return Comment(
        number=0, round=round_no,
        section=section_of(str(first.citation or "")),
        citation=str(first.citation or ""),
        status=status,
        text=text,
        excerpt=_excerpt(first),
        keys=tuple(sorted(str(f.key or "") for f in fs)),
        rule_id=str(first.rule_id or "") or None,
        part=part,
        features=tuple(items),
        ref=ref,
    )


def _shortfall(f: DocFinding) -> float:
    """A violation's shortfall in feet (the finding's own, else required less measured; 0 when neither is known)."""
    short = f.details.get("shortfall_ft", f.extra.get("shortfall_ft"))
    if isinstance(short, (int, float)):
        return float(short)
    m, r = f.measured_ft, f.required_ft
    return float(r) - float(m) if isinstance(m, (int, float)) and isinstance(r, (int, float)) else 0.0


def _violation(fs: Sequence[DocFinding], *, part: str, moves: Mapping[str, Mapping[str, object]], round_no: int) -> Comment:
    """One comment for a feature's violations of one rule: the governing finding's words, then every other feature.

    The governing finding is the largest shortfall, then the nearest, then the key (never the findings' order); its
    distance is the comment's. The findings stay as they are (one per pair): the comment stands for all of them.
    """
    def nearest(f: DocFinding) -> float:
        m = f.measured_ft
        return float(m) if isinstance(m, (int, float)) else float("inf")

    ordered = sorted(fs, key=lambda f: (-_shortfall(f), nearest(f), f.key))
    g = ordered[0]
    subject = mapping(g.subject)
    move = moves.get(str(subject.get("id"))) if subject.get("layer") == "devices" and g.kind == "device_setback" else None
    if part != REPLY and part != FYI:
        move = None  # a move for a class the project may not be is shown only where the review report lists that class
    text = _finding_text(g)
    others = ordered[1:]
    if others:
        said = [(f"{nearest(f):.1f} ft from " if math.isfinite(nearest(f)) else "too close to ") + feature_label(mapping(f.other))
                for f in others]
        listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
        required = g.required_ft
        inside = f", inside the same {float(required):g} ft" if isinstance(required, (int, float)) else ""
        text += f" It is also {listed}{inside}."
    return Comment(
        number=0, round=round_no,
        section=section_of(str(g.citation or "")),
        citation=str(g.citation or ""),
        status="violation",
        text=text,
        excerpt=_excerpt(g),
        measured_ft=g.measured_ft,
        required_ft=g.required_ft,
        fix=_move_fix(move),
        keys=tuple(sorted(f.key for f in fs)),
        part=part,
        ref=g.key,
    )


def new_comments(
    doc: FindingsDocument | Mapping[str, object],
    *,
    first_number: int,
    round_no: int,
    covered: set[str] | None = None,
    covered_rules: set[str] | None = None,
    reviewer_comments: Sequence[Mapping[str, object]] = (),
) -> list[Comment]:
    """The comments a review raises that no earlier comment covers, numbered from ``first_number``.

    A "for your information" note is not numbered (number 0) and comes last.

    Parameters
    ----------
    doc : FindingsDocument or mapping
        The current review's document (a findings.json object is read into it).
    first_number : int
        The number of the first new comment.
    round_no : int
        This letter's round.
    covered : set of str, optional
        Finding keys an earlier comment already stands for.
    covered_rules : set of str, optional
        Rules whose advisories an earlier comment (or note) already stands for.
    reviewer_comments : sequence of mapping
        The reviewer's own comments: ``{"text": ..., "section": ... (optional), "citation": ... (optional),
        "feature": {"layer", "id"} (optional), "ref": ... (optional)}``.
    """
    return _number(_drafts(_typed(doc), round_no=round_no, covered=covered or set(), covered_rules=covered_rules or set(),
                           reviewer_comments=reviewer_comments), first_number)


def _typed(doc: FindingsDocument | Mapping[str, object]) -> FindingsDocument:
    """The review's typed document (a findings.json object, the earlier review's or a script's, read into it once)."""
    return doc if isinstance(doc, FindingsDocument) else document_from_json(doc)


def _drafts(
    doc: FindingsDocument,
    *,
    round_no: int,
    covered: set[str],
    covered_rules: set[str],
    reviewer_comments: Sequence[Mapping[str, object]],
) -> list[Comment]:
    # a move as findings.json writes it (its device as the siting code named it)
    moves = {str(mapping(m.get("device")).get("id")): m.as_dict() for m in doc.moves or ()}
    drafts: list[Comment] = []
    advisories: dict[tuple[str, str], list[DocFinding]] = {}
    requests: dict[tuple[str, str], list[DocFinding]] = {}
    violations: dict[tuple[str, ...], list[DocFinding]] = {}
    for f in doc.findings:
        if _is_decided(f):
            continue
        st = _status(f)
        key = str(f.key or "")
        part = _part(f)
        if st == "violation" and key not in covered:
            subject = mapping(f.subject)
            # One comment per feature and rule: the same change answers every feature the rule measures it against.
            same_change: tuple[str, ...] = ((part, str(f.rule_id), str(subject.get("layer")), str(subject.get("id")))
                                            if subject and f.other else (part, key))
            violations.setdefault(same_change, []).append(f)
        elif st == "undetermined" and key not in covered:
            missing = values(f.details.get("missing_fields"))
            subject = mapping(f.subject)
            group = (f"info:{subject.get('layer')}:{subject.get('id')}:{'+'.join(str(m) for m in missing)}" if missing
                     else f"rule:{f.rule_id}")
            requests.setdefault((part, group), []).append(f)
        elif st == "advisory" and str(f.rule_id) not in covered_rules:
            advisories.setdefault((part, f"rule:{f.rule_id}"), []).append(f)
    for (part, *_), fs in violations.items():
        drafts.append(_violation(fs, part=part, moves=moves, round_no=round_no))
    for (part, ref), fs in requests.items():
        c = _grouped(fs, status="undetermined", ref=ref, part=part, round_no=round_no)
        drafts.append(replace(c, measured_ft=fs[0].measured_ft if len(fs) == 1 else None,
                              required_ft=fs[0].required_ft if len(fs) == 1 else None))
    for (part, ref), fs in advisories.items():
        drafts.append(_grouped(fs, status="advisory", ref=ref, part=part, round_no=round_no))
    for i, rc in enumerate(reviewer_comments, 1):
        text = str(rc.get("text") or "").strip()
        if not text:
            continue
        citation = str(rc.get("citation") or "")
        section = str(rc.get("section") or (section_of(citation) if citation else "General"))
        feat = rc.get("feature")
        feature = {"layer": str(feat.get("layer")), "id": str(feat.get("id"))} if isinstance(feat, Mapping) else None
        drafts.append(Comment(
            number=0, round=round_no, section=section, citation=citation, status="reviewer", text=sentence(text),
            features=(feature_label(feature),) if feature else (), ref=str(rc.get("ref") or f"comment:{i}"), origin="added", feature=feature,
        ))
    return drafts


def _sort_key(c: Comment) -> tuple[object, ...]:
    return (_part_order(c.part), _STATUS_ORDER[c.status] if c.status in _STATUS_ORDER else 9, c.section == "General",
            _section_order(c.section), c.citation, c.features[:1] if c.origin == "added" else (), c.ref)


def _number(drafts: Sequence[Comment], first_number: int) -> list[Comment]:
    """Ordered (see the module) and numbered; a "for your information" note keeps number 0."""
    out: list[Comment] = []
    n = first_number
    for c in sorted(drafts, key=_sort_key):
        if c.part == FYI:
            out.append(c)
        else:
            out.append(replace(c, number=n))
            n += 1
    return out


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


#: A finding's status after a change, as the applicant reads it.
_NOW = {"pass": "the plan now meets the requirement", "advisory": "now a note only", "violation": "not compliant",  # nosec B105 - statuses, not passwords
        "undetermined": "more information is needed"}


def _plain_why(why: str) -> str:
    """The comparison's reason (``violation → pass``) in the applicant's words."""
    m = re.fullmatch(r"\s*(\w+) → (\w+)\s*", why or "")
    if m:
        return _NOW.get(m.group(2), why)
    if why.startswith("the rule no longer applies"):
        return "the requirement no longer applies to it"
    return why


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
            out.append(PriorComment(c, NOT_ADDRESSED, "the comment stands until it is answered"))
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
                    notes.append(f"{_NOW.get(_status(n), _status(n))}: {_lower_first(plain(str(n.get('message') or '')))}")
                else:
                    states[-1] = "resolved"
                    notes.append(_NOW.get(_status(n), f"now {_status(n)}"))
            elif n is None or _status(n) not in OPEN or _is_decided(n):
                states.append("resolved")
                cat_e = by_old_key.get(k)
                if cat_e and cat_e[0] == "resolved" and cat_e[1].get("why"):
                    notes.append(_plain_why(str(cat_e[1].get("why"))))
                else:
                    notes.append("decided by the reviewer" if n is not None and _is_decided(n) else "resolved")
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


def _apply_edits(
    drafts: list[Comment], prior: list[PriorComment], edits: Sequence[CommentEdit], round_no: int
) -> tuple[list[Comment], list[PriorComment], list[Dropped], list[CommentEdit]]:
    """The reviewer's edits applied to this round's drafts and the earlier comments; the edits that named nothing."""
    stale: list[CommentEdit] = []
    dropped: list[Dropped] = []
    by_ref = {c.ref: i for i, c in enumerate(drafts)}
    by_number = {p.comment.number: i for i, p in enumerate(prior)}
    gone: set[int] = set()
    for e in edits:
        if e.action == "add":
            feature = e.feature
            drafts.append(Comment(
                number=0, round=round_no, section=e.section or "General", citation="", status="reviewer", text=sentence(e.text),
                features=(feature_label(feature),) if feature else (), ref=e.ref, origin="added", feature=feature,
            ))
            by_ref[e.ref] = len(drafts) - 1
            continue
        if e.number is not None:
            i = by_number.get(e.number)
            if i is None:
                stale.append(e)
                continue
            p = prior[i]
            if e.action == "reword":
                prior[i] = replace(p, comment=replace(p.comment, text=sentence(e.text), origin="reworded",
                                                       original=p.comment.original or p.comment.text))
            elif e.action == "drop":
                dropped.append(Dropped(p.comment, e.reason, e.reviewer))
                gone.add(i)
            else:
                prior[i] = replace(p, mark=e.mark, note=e.note or "as marked by the reviewer")
            continue
        j = by_ref.get(e.ref)
        if j is None or drafts[j].ref == "":
            stale.append(e)
            continue
        c = drafts[j]
        if e.action == "reword":
            # the words are the reviewer's; the features a grouped comment lists stay (they are the plan's)
            drafts[j] = replace(c, text=sentence(e.text), origin="added" if c.origin == "added" else "reworded",
                                original=None if c.origin == "added" else (c.original or c.text))
        elif e.action == "drop":
            dropped.append(Dropped(c, e.reason, e.reviewer))
            drafts[j] = replace(c, ref="")  # marked gone; removed below
        else:
            stale.append(e)  # a mark names an earlier comment by its number
    return [c for c in drafts if c.ref != ""], [p for i, p in enumerate(prior) if i not in gone], dropped, stale


def compose_letter(
    doc: FindingsDocument | Mapping[str, object],
    header: LetterHeader,
    *,
    previous_doc: Mapping[str, object] | None = None,
    previous_letter: Mapping[str, object] | None = None,
    reviewer_comments: Sequence[Mapping[str, object]] = (),
    conditions: Sequence[str] = (),
    edits: Sequence[CommentEdit] = (),
) -> Letter:
    """The letter of one round.

    Parameters
    ----------
    doc : FindingsDocument or mapping
        This round's review document (decisions applied); a findings.json object (read from disk) is read into it.
    header : LetterHeader
        The header; its ``round`` is set from the previous letter when one is given.
    previous_doc : mapping, optional
        The earlier round's findings.json (a resubmission).
    previous_letter : mapping, optional
        The earlier round's ``letter.json``; without it, the earlier letter is composed again from
        ``previous_doc`` (same numbers, since numbering is deterministic).
    reviewer_comments, conditions : sequence
        The reviewer's own comments and approval conditions.
    edits : sequence of CommentEdit
        The reviewer's edits of this round's letter (:mod:`.letter_edits`); those naming no comment are
        returned as ``stale_edits``.
    """
    if previous_letter is not None and previous_letter.get("format") != LETTER_FORMAT:
        raise LetterError("the earlier letter.json is not a stormwater-check letter")
    if previous_letter is not None and previous_doc is None:
        raise LetterError("an earlier letter needs the earlier review's findings.json to mark its comments")
    document = _typed(doc)
    # the comparison with the earlier round reads findings.json objects (core.compare)
    current: Mapping[str, object] = findings_json(document) if isinstance(doc, FindingsDocument) else doc
    prior: list[PriorComment] = []
    covered: set[str] = set()
    covered_rules: set[str] = set()
    round_no = 1
    first = 1
    if previous_doc is not None:
        # an earlier release's review has no finding keys: its findings take the current ones' by rule and features
        previous_doc = with_keys(review_document(previous_doc, "the earlier review"), current)
        if previous_letter is None:
            previous_letter = compose_letter(previous_doc, LetterHeader(title=header.title)).as_dict()
        earlier = [Comment.from_dict(c) for c in maps(previous_letter.get("carried", previous_letter.get("comments", [])))]
        round_no = integer(mapping(previous_letter.get("header")).get("round", 1)) + 1
        prior, key_map = mark_prior(earlier, previous_doc, current)
        for p in prior:
            covered |= {key_map.get(k, k) for k in p.comment.keys}
            if p.comment.rule_id and p.mark != NO_LONGER:
                covered_rules.add(p.comment.rule_id)
        # notes sent for information and comments the reviewer dropped are not raised again
        for c in [Comment.from_dict(x) for x in maps(previous_letter.get("fyi", []))]:
            covered |= {key_map.get(k, k) for k in c.keys}
            if c.rule_id:
                covered_rules.add(c.rule_id)
        for d in maps(previous_letter.get("dropped", [])):
            c = Comment.from_dict(mapping(d.get("comment")))
            covered |= {key_map.get(k, k) for k in c.keys}
            if c.rule_id and c.status == "advisory":
                covered_rules.add(c.rule_id)
        first = max([c.number for c in earlier] + [integer(previous_letter.get("last_number") or 0)]) + 1
        prev_header = mapping(previous_letter.get("header"))
        if not header.previous_date:
            header = _replace_header(header, previous_date=str(prev_header.get("date", "")))
        if not header.previous_class:
            header = _replace_header(header, previous_class=str(prev_header.get("project_class") or previous_doc.get("project_class") or ""))
    klass = header.project_class or str(document.classification.project_class or "")
    if str(document.classification.class_source or "") == "assumed":
        klass = UNDECIDED  # the plan does not settle it: the letter says so rather than name the class assumed
    header = _replace_header(header, round=round_no, project_class=klass)
    drafts = _drafts(document, round_no=round_no, covered=covered, covered_rules=covered_rules, reviewer_comments=reviewer_comments)
    drafts, prior, dropped, stale = _apply_edits(drafts, prior, edits, round_no)
    numbered = _number(drafts, first)
    comments = [c for c in numbered if c.part != FYI]
    fyi = [c for c in numbered if c.part == FYI]
    decided = tuple(
        Decided(
            citation=str(f.citation or ""),
            message=plain(str(f.message or "")),
            decision=str(mapping(f.override).get("decision") or ""),
            reason=str(mapping(f.override).get("reason") or ""),
            reviewer=str(mapping(f.override).get("reviewer") or ""),
        )
        for f in document.findings
        if _is_decided(f)
    )
    # what must be answered before approval: the deficiencies, the requests, and the reviewer's own comments
    asks = (*OPEN, "reviewer")
    open_count = sum(1 for p in prior if p.mark in (NOT_ADDRESSED, PARTLY) and p.comment.status in asks) + sum(1 for c in comments if c.status in asks)
    notes = ((str(document.note or ""),) if document.note else ()) + tuple(n for n in [source_statement(document.rule_pack.source)] if n)
    return Letter(header, tuple(prior), tuple(comments), decided, tuple(str(c) for c in conditions if str(c).strip()), open_count, notes,
                  fyi=tuple(fyi), dropped=tuple(dropped), stale_edits=tuple(stale), edits=tuple(edits))


def _replace_header(h: LetterHeader, **changes: object) -> LetterHeader:
    d = asdict(h)
    d.update(changes)
    return LetterHeader(**d)


__all__ = [
    "ADDRESSED",
    "Comment",
    "Dropped",
    "FYI",
    "FYI_KINDS",
    "REPLY",
    "UNDECIDED",
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
