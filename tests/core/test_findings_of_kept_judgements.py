"""A finding made of a judgement kept from the last check is the last check's finding object (issue 39).

``CheckContext.add_judged`` adds ``(status, message, fields)`` as ``CheckContext.add`` does; when the live re-check's
derived values hand back the judgement the last check kept (the same object, never changed) for the same rule, the finding
made of it then is handed on, so what follows the check finds its key by the object. Held here: the finding is always the
one ``add`` makes (field for field, types included); it is the earlier object only for the same judgement object and rule,
and one check never holds one finding object twice.
"""

from __future__ import annotations

import dataclasses
import pickle

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks.context import CheckContext
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.model import FeatureRef, Status
from stormwater_plugin.core.rulepack import load_pack

PACK = load_pack("lake-george")
RULES = [r for r in PACK.rules][:3]

_value = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5]), st.text(max_size=3))
_fields = st.fixed_dictionaries(
    {},
    optional={
        "subject": st.builds(FeatureRef, st.sampled_from(["devices", "clearing"]), st.sampled_from(["A", "B"])),
        "other": st.builds(FeatureRef, st.just("shoreline"), st.just("SH-1")),
        "measured_ft": st.sampled_from([0.0, -0.0, 12.5, 35.0]),
        "required_ft": st.just(35.0),
        "geometry": st.sampled_from([None, shapely.Point(1.0, 2.0), shapely.box(0.0, 0.0, 1.0, 1.0)]),
        "decided_by": _value,
        "area_sqft": _value,
    },
)
_judged = st.tuples(st.sampled_from(list(Status)), st.text(max_size=5), _fields)


def _ctx() -> CheckContext:
    return CheckContext(layers={}, dem=None, unit_to_ft=1.0, project_class="minor", pack=PACK)


def _content(f) -> bytes:
    return pickle.dumps([(k, type(v), v if k != "geometry" else (None if v is None else shapely.to_wkb(v))) for k, v in
                         ((fl.name, getattr(f, fl.name)) for fl in dataclasses.fields(f))] + [sorted((k, type(v).__name__, repr(v)) for k, v in f.extra.items())])


@settings(max_examples=150, deadline=None)
@given(judgements=st.lists(_judged, min_size=1, max_size=4), picks=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=8))
def test_a_finding_of_a_kept_judgement_is_the_one_add_makes_and_the_last_checks_object_only_for_the_same_judgement_and_rule(judgements, picks):
    earlier = None
    before: dict[int, tuple[int, object]] = {}  # each judgement's first use in the last check: its rule and finding
    last: list[object] = []
    for _ in range(3):  # three checks, each adding the judgements picked (by the same objects), each carried to the next
        derived = Derived(earlier)
        ctx, plain = _ctx(), _ctx()
        with using(derived):
            for j, r in picks:
                judged, rule = judgements[j % len(judgements)], RULES[r]
                ctx.add_judged(rule, judged)
                plain.add(rule, judged[0], judged[1], **judged[2])
        assert [_content(f) for f in ctx.findings] == [_content(f) for f in plain.findings]
        assert len({id(f) for f in ctx.findings}) == len(ctx.findings)  # never one object twice in a check
        first: dict[int, tuple[int, object]] = {}
        for (j, r), f in zip(picks, ctx.findings):
            j %= len(judgements)
            if j not in first and j in before and before[j][0] == r:
                assert f is before[j][1]  # the same judgement object and rule as at its first use in the last check
            else:
                assert all(f is not g for g in last)  # made anew
            first.setdefault(j, (r, f))
        before, last, earlier = first, list(ctx.findings), derived
