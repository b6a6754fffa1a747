"""The reviewer's edits of a letter's comments: reword, drop with a reason, add, mark.

Before a letter is written the reviewer may reword a generated comment, drop one (with a reason, kept in
``letter.json`` and never sent), add a free comment attached to a feature or to the site, and set the
round mark of an earlier comment (a free comment has no finding to mark it by). The edits are kept with
the round beside the decisions (the dock's project entry ``comment_edits``, saved with the application in
the register; the command line's ``--comment-edits FILE``), in one document::

    {
      "format": "stormwater-check-comment-edits",
      "version": 1,
      "round": 1,
      "edits": [
        {"action": "reword", "ref": "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1",
         "text": "Move dry well DW-1 so that it is at least 20 ft from the septic tank."},
        {"action": "drop", "ref": "rule:lake-george.minor.fertilizer-50", "reason": "told the applicant at the meeting"},
        {"action": "add", "ref": "added:1", "text": "Show the roof leaders.", "feature": {"layer": "building_sites", "id": "B-1"}},
        {"action": "mark", "number": 4, "mark": "addressed", "note": "the roof leaders are shown"}
      ]
    }

A generated comment is named by its ``ref`` (the finding key it stands for, or ``rule:<rule id>`` for a
rule's grouped notes; :attr:`stormwater_plugin.services.letter.Comment.ref`), so an edit follows its
comment whatever number it gets; an earlier round's comment is named by its ``number``. An edit whose
comment is not in the letter is *stale*: reported with the letter, never applied, never silently dropped.

QGIS-free and file-free (reading and writing the file is the front end's).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

from ..core.errors import StormwaterError

EDITS_FORMAT = "stormwater-check-comment-edits"
EDITS_VERSION = 1
ACTIONS = ("reword", "drop", "add", "mark")
#: The round marks a reviewer may set on an earlier comment.
MARKS = ("addressed", "partly addressed", "not addressed")


class CommentEditError(ValueError, StormwaterError):
    """An edits document or entry that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class CommentEdit:
    """One edit of the letter.

    Attributes
    ----------
    action : str
        ``reword``, ``drop``, ``add`` or ``mark``.
    ref : str
        The comment it edits (``reword``, ``drop``), or the added comment's own id (``add``, ``added:<n>``).
    number : int or None
        An earlier round's comment, by its number (``reword``, ``drop``, ``mark``).
    text : str
        The new words (``reword``, ``add``).
    reason : str
        Why a comment is dropped (required for ``drop``).
    feature : dict or None
        ``{"layer": ..., "id": ...}`` an added comment is about; None for the site.
    section : str
        The code section an added comment is listed under (``General`` when empty).
    mark, note : str
        The mark (``addressed``, ``partly addressed``, ``not addressed``) and its note (``mark``).
    reviewer, date : str
        Who made the edit and when (ISO date), optional.
    """

    action: str
    ref: str = ""
    number: int | None = None
    text: str = ""
    reason: str = ""
    feature: dict[str, str] | None = None
    section: str = ""
    mark: str = ""
    note: str = ""
    reviewer: str = ""
    date: str = ""

    def as_dict(self) -> dict[str, object]:
        return {k: v for k, v in asdict(self).items() if v not in ("", None)}

    @property
    def target(self) -> str:
        """What the edit names: ``#<number>`` for an earlier comment, else its ref."""
        return f"#{self.number}" if self.number is not None else self.ref


def _edit(d: object, where: str) -> CommentEdit:
    if not isinstance(d, Mapping):
        raise CommentEditError(f"{where}: an edit is an object with 'action'")
    action = str(d.get("action") or "").strip().lower()
    if action not in ACTIONS:
        raise CommentEditError(f"{where}: action '{d.get('action')}' is not one of {', '.join(ACTIONS)}")
    number = d.get("number")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int) or number < 1):
        raise CommentEditError(f"{where}: number must be a comment number (1, 2, …)")
    feature = d.get("feature")
    if feature is not None and not (isinstance(feature, Mapping) and feature.get("layer") and feature.get("id") is not None):
        raise CommentEditError(f"{where}: feature must be {{'layer': ..., 'id': ...}}")
    e = CommentEdit(
        action=action,
        ref=str(d.get("ref") or "").strip(),
        number=number,
        text=str(d.get("text") or "").strip(),
        reason=str(d.get("reason") or "").strip(),
        feature={"layer": str(feature["layer"]), "id": str(feature["id"])} if isinstance(feature, Mapping) else None,
        section=str(d.get("section") or "").strip(),
        mark=str(d.get("mark") or "").strip().lower(),
        note=str(d.get("note") or "").strip(),
        reviewer=str(d.get("reviewer") or "").strip(),
        date=str(d.get("date") or "").strip(),
    )
    if action in ("reword", "drop") and not e.ref and e.number is None:
        raise CommentEditError(f"{where}: {action} names its comment by 'ref' (or 'number' for an earlier round's)")
    if action in ("reword", "add") and not e.text:
        raise CommentEditError(f"{where}: {action} needs the comment's 'text'")
    if action == "drop" and not e.reason:
        raise CommentEditError(f"{where}: drop needs a 'reason' (kept with the letter)")
    if action == "mark" and (e.number is None or e.mark not in MARKS):
        raise CommentEditError(f"{where}: mark needs the earlier comment's 'number' and a 'mark' ({', '.join(MARKS)})")
    return e


def edits_from(doc: object) -> tuple[int | None, list[CommentEdit]]:
    """The round and the edits of an edits document (a bare list of edits is read too).

    Raises
    ------
    CommentEditError
        Not an edits document, or an edit that cannot be used (named by its position).
    """
    round_no: int | None = None
    if isinstance(doc, Mapping):
        if doc.get("format") not in (None, EDITS_FORMAT):
            raise CommentEditError(f"not a comment-edits document (format '{doc.get('format')}', expected '{EDITS_FORMAT}')")
        r = doc.get("round")
        round_no = r if isinstance(r, int) and not isinstance(r, bool) else None
        items = doc.get("edits", [])
    else:
        items = doc
    if not isinstance(items, list):
        raise CommentEditError("'edits' must be a list")
    edits = [_edit(d, f"edit {i + 1}") for i, d in enumerate(items)]
    added = [e.ref for e in edits if e.action == "add" and e.ref]
    if len(added) != len(set(added)):
        raise CommentEditError("two added comments have the same 'ref'")
    return round_no, _number_added(edits)


def _number_added(edits: Sequence[CommentEdit]) -> list[CommentEdit]:
    """Give each added comment without a ref one (``added:<n>``), never reusing one already taken."""
    taken = {e.ref for e in edits if e.action == "add" and e.ref}
    out: list[CommentEdit] = []
    n = 0
    for e in edits:
        if e.action == "add" and not e.ref:
            n += 1
            while f"added:{n}" in taken:
                n += 1
            taken.add(f"added:{n}")
            e = CommentEdit(**{**asdict(e), "ref": f"added:{n}"})
        out.append(e)
    return out


def loads_edits(text: str) -> tuple[int | None, list[CommentEdit]]:
    """:func:`edits_from` of a JSON text; an empty text is no edit."""
    if not str(text or "").strip():
        return None, []
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise CommentEditError(f"the comment edits are not JSON ({exc})") from exc
    return edits_from(doc)


def edits_document(edits: Sequence[CommentEdit], round_no: int | None = None) -> dict[str, object]:
    """The edits as the document the dock stores and ``--comment-edits`` reads."""
    doc: dict[str, object] = {"format": EDITS_FORMAT, "version": EDITS_VERSION}
    if round_no is not None:
        doc["round"] = int(round_no)
    doc["edits"] = [e.as_dict() for e in edits]
    return doc


def dumps_edits(edits: Sequence[CommentEdit], round_no: int | None = None) -> str:
    """:func:`edits_document` as indented JSON."""
    return json.dumps(edits_document(edits, round_no), indent=2, ensure_ascii=False) + "\n"


def set_edit(edits: Sequence[CommentEdit], edit: CommentEdit) -> list[CommentEdit]:
    """``edits`` with ``edit`` in place of any earlier reword, drop or mark of the same comment (an add is appended)."""
    if edit.action == "add":
        return _number_added([*edits, edit])
    out = [e for e in edits if not (e.action in ("reword", "drop", "mark") and e.target == edit.target and (e.action == edit.action or {e.action, edit.action} <= {"reword", "drop"}))]
    return [*out, edit]


def remove_edit(edits: Sequence[CommentEdit], target: str) -> list[CommentEdit]:
    """``edits`` without those naming ``target`` (a ref, ``added:<n>`` or ``#<number>``)."""
    return [e for e in edits if e.target != target]


__all__ = [
    "ACTIONS",
    "CommentEdit",
    "CommentEditError",
    "EDITS_FORMAT",
    "MARKS",
    "dumps_edits",
    "edits_document",
    "edits_from",
    "loads_edits",
    "remove_edit",
    "set_edit",
]
