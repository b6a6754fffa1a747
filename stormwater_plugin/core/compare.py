"""What changed between two reviews of the same site: resolved, new, still open, changed.

Works on two findings.json documents (plain dictionaries), so the command
line, the Processing algorithm and the dock give the same comparison.

Matching
--------
Findings are matched by their stable key (``rule|subject layer:id|other
layer:id``, see :mod:`stormwater_plugin.core.overrides`), after two
translations of the old document:

- a rule id the current pack records as replaced (its ``replaces`` list) is
  read as its successor;
- a feature whose id changed between submissions, but whose geometry lies
  within ``rename_tolerance_ft`` (1 ft) of the old one in the same role, is
  read under its new id, and the match is reported. Each old id maps to at
  most one new id, nearest first; ids present in both documents are never
  renamed. Geometry is compared only when both documents were measured in the
  same working CRS.

Categories (one per matched key)
--------------------------------
- **resolved**: an open finding (violation or undetermined) that now passes,
  or whose subject feature is gone;
- **new**: an open finding with no open counterpart before (new key, or a pass
  or advisory that became open);
- **still open**: open before and now, with the same status;
- **changed**: anything else whose status, measured or required distance
  (more than 0.05 ft) changed; a still-open finding whose distance changed is
  also listed here;
- and the project class, when it changed.

Reviews without keys
--------------------
The first releases wrote findings.json without finding keys (keys came with the
reviewer's decisions). Such an earlier review is read by matching each of its
findings on its rule, subject and other feature (:func:`with_keys`): an earlier
finding takes the key of the current finding with the same rule and features
(the same qualifier first, else in order), so a finding that is still there is
never reported resolved. A document whose findings are not in any format this
project has written is refused (:func:`format_problem`).

Reviewer decisions of the old review are **carried over** when their finding
is unchanged, **to review again** when the finding changed, and **stale** when
no finding matches them any more.
"""

from __future__ import annotations

from collections import abc
from typing import Any, Callable, Mapping

import shapely

from .errors import StormwaterError
from .overrides import finding_dict_keys, finding_key
from .rulepack import JURISDICTIONS, RulePack, load_pack


class DifferentJurisdictions(ValueError, StormwaterError):
    """Two reviews under different jurisdictions' rules, which cannot be compared."""

#: A findings.json or compare.json document (JSON: str keys, values of any JSON type).
ReviewDoc = dict[str, Any]

OPEN = ("violation", "undetermined")
#: The attribute a current review's document sets true when each of its findings' entries is never changed once made (a live
#: re-check's comparable document): :func:`compare_reviews` then finds an entry it found listed nowhere by its object.
FIXED_ENTRIES = "fixed_entries"
#: Distances that differ by no more than this (feet) are the same measurement.
DISTANCE_EPS_FT = 0.05


def _ref_key(ref: Mapping[str, Any] | None) -> str:
    return f"{ref['layer']}:{ref['id']}" if ref else "-"


def _split_key(key: str) -> tuple[str, str, str, str]:
    """``rule|subject|other`` plus any qualifier (``|limit=…`` or ``#2``)."""
    base, _, suffix_hash = key.partition("#")
    parts = base.split("|")
    rule = parts[0]
    subject = parts[1] if len(parts) > 1 else "-"
    other = parts[2] if len(parts) > 2 else "-"
    qual = "|".join(parts[3:])
    if suffix_hash:
        qual = f"{qual}#{suffix_hash}" if qual else f"#{suffix_hash}"
    return rule, subject, other, qual


def _well_formed(key: str) -> bool:
    """Whether :func:`_join_key` of :func:`_split_key` of ``key`` is ``key``: no ``#``, a rule, subject and other, and no empty qualifier."""
    if "#" in key:
        return False
    bars = key.count("|")
    return bars == 2 or (bars > 2 and not (bars == 3 and key.endswith("|")))


def _join_key(rule: str, subject: str, other: str, qual: str) -> str:
    key = f"{rule}|{subject}|{other}"
    if qual.startswith("#"):
        return key + qual
    return f"{key}|{qual}" if qual else key


#: Statuses any release of this project has written into findings.json.
KNOWN_STATUSES = ("violation", "undetermined", "advisory", "pass")
#: The note a comparison carries when the earlier review had no finding keys.
KEYLESS_NOTE = ("the earlier review was written by an earlier release without finding keys: "
                "its findings were matched by rule, subject and other feature")


def format_problem(doc: Mapping[str, Any]) -> str | None:
    """Why ``doc``'s findings are in no format this project has written (``None`` when they can be read).

    Every release wrote ``findings`` as a list of objects, each with a ``rule_id`` and a ``status`` and its
    ``subject`` and ``other`` as ``{"layer", "id"}`` or null; ``key`` came later and may be absent.
    """
    findings = doc.get("findings")
    if not isinstance(findings, list):
        return "'findings' is not a list"
    for i, f in enumerate(findings, start=1):
        # a dict first, then collections.abc's Mapping (the typing alias's isinstance is several times slower): asked at each live edit
        if type(f) is not dict and not isinstance(f, abc.Mapping):
            return f"finding {i} is not an object"
        rule, status = f.get("rule_id"), f.get("status")  # each value read once
        if not isinstance(rule, str) or not rule:
            return f"finding {i} has no rule_id"
        if status not in KNOWN_STATUSES:
            return f"finding {i} has the status {str(status)[:40]!r}"
        for part in ("subject", "other"):
            ref = f.get(part)
            if ref is not None and not ((type(ref) is dict or isinstance(ref, abc.Mapping)) and "layer" in ref and "id" in ref):
                return f"finding {i}'s {part} is not a feature reference"
        key = f.get("key")
        if key is not None and not isinstance(key, str):
            return f"finding {i}'s key is not text"
    return None


def _base(key: str) -> str:
    rule, subject, other, _qual = _split_key(key)
    return _join_key(rule, subject, other, "")


def with_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> Mapping[str, Any]:
    """``old`` with a key on every finding, matched to ``new``'s by rule, subject and other feature where it had none.

    A document whose findings all have keys is returned as it is. Otherwise each keyless finding gets the key
    of the current finding with the same rule, subject and other feature: the one with the same qualifier
    when there is one (the key this release would give it), else the next unmatched one in order; with no
    such current finding, the key this release would give it. The copy carries ``keys_assigned: true``.
    """
    findings = [f for f in old.get("findings", []) if type(f) is dict or isinstance(f, abc.Mapping)]
    if all(isinstance(f.get("key"), str) and f.get("key") for f in findings):
        return old
    computed = finding_dict_keys(findings)
    new_keys = [str(f.get("key") or "") for f in new.get("findings", []) if isinstance(f, abc.Mapping)]
    by_base: dict[str, list[str]] = {}
    for k in new_keys:
        by_base.setdefault(_base(k), []).append(k)
    taken: set[str] = {str(f.get("key")) for f in findings if f.get("key")}
    keys: list[str | None] = [str(f.get("key")) if f.get("key") else None for f in findings]
    for i in range(len(findings)):  # first the same key, qualifier included
        if keys[i] is None and computed[i] in new_keys and computed[i] not in taken:
            keys[i] = computed[i]
            taken.add(computed[i])
    for i, f in enumerate(findings):  # then the same rule and features, in order
        if keys[i] is not None:
            continue
        base = finding_key(str(f.get("rule_id")), f.get("subject"), f.get("other"))
        free = [k for k in by_base.get(base, []) if k not in taken]
        keys[i] = free[0] if free else computed[i]
        taken.add(keys[i] or "")
    out = dict(old)
    out["findings"] = [{**f, "key": k} for f, k in zip(findings, keys)]
    out["keys_assigned"] = True
    return out


def match_renamed_features(old: Mapping[str, Any], new: Mapping[str, Any], tolerance_ft: float = 1.0) -> list[dict[str, Any]]:
    """Old ``layer:id`` renamed in the new review: same role, geometry within ``tolerance_ft``.

    Returns
    -------
    list of dict
        ``{"layer", "old_id", "new_id", "distance_ft"}``, nearest matches first.
    """
    fo, fn = old.get("features") or {}, new.get("features") or {}
    wo, wn = fo.get("wkt") or {}, fn.get("wkt") or {}
    u_old, u_new = fo.get("unit_to_ft"), fn.get("unit_to_ft")
    if not wo or not wn or not u_old or not u_new or old.get("working_crs", "").split(";")[0] != new.get("working_crs", "").split(";")[0]:
        return []
    gone = [k for k in wo if k not in wn]
    fresh = [k for k in wn if k not in wo]
    candidates = []
    for ko in gone:
        layer = ko.split(":", 1)[0]
        go = shapely.from_wkt(wo[ko])
        for kn in fresh:
            if kn.split(":", 1)[0] != layer:
                continue
            gn = shapely.from_wkt(wn[kn])
            d_ft = float(shapely.hausdorff_distance(go, gn)) * float(u_new)
            if d_ft <= tolerance_ft:
                candidates.append((d_ft, ko, kn))
    out = []
    used_old: set[str] = set()
    used_new: set[str] = set()
    for d_ft, ko, kn in sorted(candidates):
        if ko in used_old or kn in used_new:
            continue
        used_old.add(ko)
        used_new.add(kn)
        out.append({"layer": ko.split(":", 1)[0], "old_id": ko.split(":", 1)[1], "new_id": kn.split(":", 1)[1], "distance_ft": round(d_ft, 2)})
    return out


class EarlierReview(abc.Mapping):  # type: ignore[type-arg]
    """An earlier review's findings.json document (this mapping, its top level as it was when taken) read once for several
    comparisons with current reviews: the live re-check compares each edit's review with the last full check.

    What each comparison would read of it again is kept: its shape judged (:attr:`problem`, :func:`format_problem`) and, for
    the rule renames last asked, its findings by their current key (:meth:`by_key`). What depends on the current review (a
    finding without a key, a feature renamed) is read as :func:`compare_reviews` reads it.
    """

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc: dict[str, Any] = dict(doc)
        findings = self.doc.get("findings")
        if isinstance(findings, list):  # each finding its own copy, never changed: the comparisons hold them (:attr:`quiet`)
            self.doc["findings"] = [dict(f) if isinstance(f, abc.Mapping) else f for f in findings]
        self.problem = format_problem(self.doc)
        #: Every finding has a key: :func:`with_keys` then gives the document as it is, whatever the current review.
        self.keyed = self.problem is None and all(isinstance(f.get("key"), str) and f.get("key") for f in self.doc["findings"])
        self._by: tuple[dict[str, str], dict[str, Any], dict[str, str], dict[str, str]] | None = None
        #: The pack's successor function :meth:`by_key` was last asked with (:func:`_successor`'s, bound to a frozen pack: the same
        #: function gives the same renames), ``None`` when another kind was given.
        self._by_successor: Callable[[str], str] | None = None
        #: Each key whose earlier finding and current entry were last found listed nowhere (neither open nor changed), with the
        #: two (held): a current review whose entries are never changed (:data:`FIXED_ENTRIES`) giving the same entry object for
        #: that key is listed nowhere again. For the findings of :meth:`by_key`'s last answer (let go when it is made again).
        self.quiet: dict[str, tuple[Any, Any]] = {}

    def __getitem__(self, key: str) -> Any:
        return self.doc[key]

    def __iter__(self) -> Any:
        return iter(self.doc)

    def __len__(self) -> int:
        return len(self.doc)

    def by_key(self, successor_of: Callable[[str], str], pack_successor: Callable[[str], str] | None = None
               ) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
        """Its findings by their key read with ``successor_of``'s rule renames and no feature renamed (as :func:`compare_reviews`
        reads them), the keys so changed and the rules renamed; made again only when a rule it names has another successor.

        ``pack_successor``: the function ``successor_of`` asks, when it is :func:`_successor`'s for a pack (the same function, the
        same answers: the renames are not asked again)."""
        kept = self._by
        if kept is not None and pack_successor is not None and pack_successor is self._by_successor:
            return kept[1], kept[2], kept[3]
        if kept is not None and all(successor_of(rule) == new for rule, new in kept[0].items()):
            self._by_successor = pack_successor
            return kept[1], kept[2], kept[3]
        asked: dict[str, str] = {}

        def recorded(rule: str) -> str:
            found = asked.get(rule)
            if found is None:
                found = asked[rule] = successor_of(rule)
            return found

        old_by, key_map, renamed_rules = _old_by_key(self.doc, {}, recorded)
        self._by = (asked, old_by, key_map, renamed_rules)
        self._by_successor = pack_successor
        self.quiet = {}
        return old_by, key_map, renamed_rules


def _old_by_key(old: Mapping[str, Any], id_map: Mapping[str, str], successor_of: Callable[[str], str]
                ) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """The earlier review's findings by their current key (rule renames by ``successor_of``, feature renames by ``id_map``), each
    earlier key so changed to its current key, and each rule renamed to its successor."""
    renamed_rules: dict[str, str] = {}
    translated: dict[str, str] = {}

    def translate(key: str) -> str:
        found = translated.get(key)
        if found is None:
            if not id_map and _well_formed(key) and successor_of(rule := key.partition("|")[0]) == rule:
                found = key  # no feature renamed, the rule not replaced: a key split and joined again is itself
            else:
                rule, subject, other, qual = _split_key(key)
                new_rule = successor_of(rule)
                if new_rule != rule:
                    renamed_rules[rule] = new_rule
                found = _join_key(new_rule, id_map.get(subject, subject), id_map.get(other, other), qual)
            translated[key] = found
        return found

    key_map: dict[str, str] = {}
    old_by: dict[str, Any] = {}
    for f in old.get("findings", []):  # each earlier key translated once
        k = str(f.get("key") or "")
        t = translate(k)
        if t != k:
            key_map[k] = t
        old_by[t] = f
    return old_by, key_map, renamed_rules


def _row(f: Mapping[str, Any] | None) -> dict[str, Any]:
    if f is None:
        return {}
    return {
        "status": f.get("status"),
        "measured_ft": f.get("measured_ft"),
        "required_ft": f.get("required_ft"),
        "message": f.get("message"),
    }


def _entry(key: str, o: Mapping[str, Any] | None, n: Mapping[str, Any] | None, why: str | None) -> dict[str, Any]:
    """A comparison entry of one key: the finding (the current one, else the earlier), both rows and why it is listed (``None``: no word)."""
    ref = n or o
    assert ref is not None
    entry = {
        "key": key,
        "rule_id": ref.get("rule_id"),
        "citation": ref.get("citation"),
        "subject": ref.get("subject"),
        "other": ref.get("other"),
        "old": _row(o),
        "new": _row(n),
    }
    if why is not None:
        entry["why"] = why
    return entry


def _differs(a: Any, b: Any) -> bool:
    if a == b:  # the same value (most findings of a live edit): no difference, as below
        return False
    if a is None or b is None:
        return a is not b
    return abs(float(a) - float(b)) > DISTANCE_EPS_FT


def compare_reviews(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    successor: Callable[[str], str] | None = None,
    rename_tolerance_ft: float = 1.0,
) -> dict[str, Any]:
    """Compare two findings.json documents of the same site.

    Parameters
    ----------
    old, new : mapping
        The earlier and the current findings.json documents.
    successor : callable, optional
        Maps an old rule id to its current id (``RulePack.successor``).
    rename_tolerance_ft : float
        Features whose ids changed are matched when their geometries lie within
        this Hausdorff distance in feet.

    Returns
    -------
    dict
        The compare.json document: ``counts``, ``resolved``, ``new``,
        ``still_open``, ``changed``, ``decisions``, ``renamed_features``,
        ``renamed_rules``, ``key_map`` (each earlier key that renames changed, to its key in the
        current review), ``project_class``.
    """
    succ = successor or (lambda r: r)
    earlier = old if isinstance(old, EarlierReview) else None
    old = earlier.doc if earlier is not None and earlier.keyed else with_keys(earlier.doc if earlier is not None else old, new)
    renamed = match_renamed_features(old, new, rename_tolerance_ft)
    id_map = {f"{m['layer']}:{m['old_id']}": f"{m['layer']}:{m['new_id']}" for m in renamed}
    successors: dict[str, str] = {}  # a pack's successor looks through every rule: once per rule id

    def successor_of(rule: str) -> str:
        found = successors.get(rule)
        if found is None:
            found = successors[rule] = succ(rule)
        return found

    quiet: dict[str, tuple[Any, Any]] | None = None
    if earlier is not None and old is earlier.doc and not id_map:  # every earlier finding keyed, no feature renamed: read once
        old_by, key_map, renamed_rules = earlier.by_key(successor_of, getattr(successor, "pack_successor", None))
        quiet = earlier.quiet if getattr(new, FIXED_ENTRIES, False) is True else None
    else:
        old_by, key_map, renamed_rules = _old_by_key(old, id_map, successor_of)
    new_by = {str(f.get("key") or ""): f for f in new.get("findings", [])}
    # the current review's subjects and features: read only for an open finding gone (most live edits have none)
    new_subjects: set[str] | None = None

    out: dict[str, list[dict[str, Any]]] = {"resolved": [], "new": [], "still_open": [], "changed": []}
    for key in sorted(old_by.keys() | new_by.keys()):
        o, n = old_by.get(key), new_by.get(key)
        if quiet is not None:
            pair = quiet.get(key)
            if pair is not None and pair[1] is n and pair[0] is o:
                continue  # the same two findings as when found listed nowhere (neither is ever changed)
        s_old = o.get("status") if o else None
        s_new = n.get("status") if n else None
        if (o is not None and n is not None and s_old == s_new and s_old not in OPEN and o.get("measured_ft") == n.get("measured_ft")
                and o.get("required_ft") == n.get("required_ft")):
            if quiet is not None:
                quiet[key] = (o, n)
            continue  # neither open nor changed (most findings at a live edit): listed nowhere, as below
        # the category first, the entry only for a finding listed (most findings of a live edit are passes unchanged)
        if o is not None and n is None:
            if s_old in OPEN:
                if new_subjects is None:
                    new_subjects = {_ref_key(f.get("subject")) for f in new.get("findings", [])} | set((new.get("features") or {}).get("wkt", {}))
                gone = _ref_key(o.get("subject")) not in new_subjects
                out["resolved"].append(_entry(key, o, n, "the feature was removed from the plan" if gone else
                                              "the rule no longer applies or no longer reports this pair"))
            continue
        if o is None:
            if s_new in OPEN:
                out["new"].append(_entry(key, o, n, "a finding the earlier review did not have"))
            continue
        assert n is not None
        if s_old in OPEN and s_new == "pass":
            out["resolved"].append(_entry(key, o, n, f"{s_old} → pass"))
        elif s_new in OPEN and s_old not in OPEN:
            out["new"].append(_entry(key, o, n, f"{s_old} → {s_new}"))
        elif s_new in OPEN and s_old == s_new:
            entry = _entry(key, o, n, None)
            out["still_open"].append(entry)
            if _differs(o.get("measured_ft"), n.get("measured_ft")) or _differs(o.get("required_ft"), n.get("required_ft")):
                entry = dict(entry, why="still open; the measured or required distance changed")
                out["changed"].append(entry)
        elif s_old != s_new or _differs(o.get("measured_ft"), n.get("measured_ft")) or _differs(o.get("required_ft"), n.get("required_ft")):
            out["changed"].append(_entry(key, o, n, f"{s_old} → {s_new}" if s_old != s_new else "the measured or required distance changed"))

    decisions = []
    for key, o in old_by.items():
        decision = o.get("override")
        if not decision:
            continue
        n = new_by.get(key)
        if n is None:
            state, why = "stale", "no finding of the new review matches it"
        elif n.get("status") != o.get("status") or _differs(o.get("measured_ft"), n.get("measured_ft")) or _differs(o.get("required_ft"), n.get("required_ft")):
            state, why = "review_again", "the finding changed since the decision was made"
        else:
            state, why = "carried_over", "the finding is unchanged"
        decisions.append({"key": key, "decision": decision, "state": state, "why": why})

    cls_old, cls_new = old.get("project_class"), new.get("project_class")
    return {
        "old": {"generated": (old.get("tool") or {}).get("version"), "project_class": cls_old, "counts": old.get("counts")},
        "new": {"generated": (new.get("tool") or {}).get("version"), "project_class": cls_new, "counts": new.get("counts")},
        "project_class": None if cls_old == cls_new else {"old": cls_old, "new": cls_new},
        "renamed_features": renamed,
        "renamed_rules": [{"old": k, "new": v} for k, v in sorted(renamed_rules.items())],
        "key_map": dict(sorted(key_map.items())),
        "counts": {k: len(v) for k, v in out.items()} | {
            "decisions_carried_over": sum(1 for d in decisions if d["state"] == "carried_over"),
            "decisions_to_review_again": sum(1 for d in decisions if d["state"] == "review_again"),
            "decisions_stale": sum(1 for d in decisions if d["state"] == "stale"),
        },
        **out,
        "decisions": decisions,
        "notes": [KEYLESS_NOTE] if old.get("keys_assigned") else [],
    }


#: Each pack's rule renames (:meth:`~.rulepack.RulePack.successor`, which looks through every rule) as asked, by the pack (held: a
#: pack is frozen, so the same object gives the same successors). The live re-check compares at every edit under one pack.
_SUCCESSORS: dict[int, tuple[RulePack, Callable[[str], str]]] = {}


def _successor(pack: RulePack) -> Callable[[str], str]:
    """``pack.successor``, each rule id's answer kept (see :data:`_SUCCESSORS`)."""
    held = _SUCCESSORS.get(id(pack))
    if held is not None and held[0] is pack:
        return held[1]
    asked: dict[str, str] = {}

    def successor(rule: str) -> str:
        found = asked.get(rule)
        if found is None:
            if len(asked) >= 4096:  # the ids of hand-edited documents: kept bounded
                asked.clear()
            found = asked[rule] = pack.successor(rule)
        return found

    if len(_SUCCESSORS) >= 8:  # a few packs at most: the oldest let go
        _SUCCESSORS.clear()
    successor.pack_successor = successor  # type: ignore[attr-defined]  # a frozen pack's: the same function gives the same answers
    _SUCCESSORS[id(pack)] = (pack, successor)
    return successor


def compare_documents(old: Mapping[str, Any], new: Mapping[str, Any], pack: RulePack | None = None) -> dict[str, Any]:
    """:func:`compare_reviews` with the rule renames of the new review's pack: what every front end calls.

    ``pack``: the pack the new review applied, when the caller holds it (the live re-check compares at every edit: the
    bundled pack is otherwise loaded again, its file looked at); another jurisdiction's is not used.

    Raises
    ------
    DifferentJurisdictions
        When the two reviews are of different jurisdictions (a ``ValueError``).
    """
    j_old, j_new = old.get("jurisdiction"), new.get("jurisdiction")
    if j_old and j_new and j_old != j_new:
        raise DifferentJurisdictions(f"the reviews are of different jurisdictions ({j_old}, {j_new}): compare reviews under the same rules")
    if j_new in JURISDICTIONS:
        successor = _successor(pack if pack is not None and pack.jurisdiction == j_new else load_pack(str(j_new)))
    else:
        successor = None
    out = compare_reviews(old, new, successor)
    out["jurisdiction"] = j_new
    return out


def since_last_review(comparison: Mapping[str, Any]) -> dict[str, str]:
    """Finding key (of the new review) to its one-word change since the last review, for a table column."""
    out: dict[str, str] = {}
    for cat, word in (("still_open", "still open"), ("changed", "changed"), ("new", "new"), ("resolved", "resolved")):
        for e in comparison.get(cat, []):
            out[e["key"]] = word
    return out


__all__ = ["DifferentJurisdictions", "EarlierReview", "KEYLESS_NOTE", "KNOWN_STATUSES", "compare_documents", "compare_reviews", "format_problem",
           "match_renamed_features", "since_last_review", "with_keys"]
