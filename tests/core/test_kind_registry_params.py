"""Issue 23: the flow trace's reach and device_setback's parameter rules are read from the kind registry (core/kinds.py), not kind names."""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest

from stormwater_plugin.core.kinds import KINDS, param_problems
from stormwater_plugin.core.rulepack import PACK_DIR, load_pack, validate_pack_dict
from stormwater_plugin.services.reach import rule_dem_reach_ft, rule_grows_dem_window, rule_reach_ft


def test_the_flow_trace_reach_comes_from_the_registry() -> None:
    assert KINDS["flow_to_sensitive_area"].trace == "max_length_ft"
    assert all(s.trace is None for k, s in KINDS.items() if k != "flow_to_sensitive_area")
    open_ended = next(r for r in load_pack("mamakating").rules if r.kind == "flow_to_sensitive_area")
    open_ended = dataclasses.replace(open_ended, params={k: v for k, v in open_ended.params.items() if k != "max_length_ft"})
    rule = dataclasses.replace(open_ended, params={**open_ended.params, "max_length_ft": 2000})
    assert rule_reach_ft(rule, 3.0) == pytest.approx(np.sqrt(2.0) * (2000.0 + 6.0))
    assert rule_reach_ft(open_ended) == float("inf") and rule_grows_dem_window(open_ended)
    assert np.isfinite(rule_dem_reach_ft(open_ended, 3.0)) and not rule_grows_dem_window(rule)


def _pack_with(**params: object) -> dict[str, object]:
    data = json.loads((PACK_DIR / "lgpc.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    i = next(i for i, r in enumerate(data["rules"]) if r["kind"] == "device_setback")
    data["rules"][i]["params"].update(params)
    for key, value in params.items():
        if value is None:
            del data["rules"][i]["params"][key]
    data["_i"] = i
    return data


def test_device_setback_parameters_are_validated_from_the_registry_with_the_same_messages() -> None:
    assert validate_pack_dict({k: v for k, v in _pack_with().items() if k != "_i"}) == []
    data = _pack_with(required_ft=0, gradient="sideways", targets=[])
    i = data.pop("_i")
    assert [e for e in validate_pack_dict(data) if e.startswith(f"pack.rules[{i}].params")] == [
        f"pack.rules[{i}].params.required_ft must be a positive number of feet",
        f"pack.rules[{i}].params.gradient must be any, device_upgradient or device_downgradient",
        f"pack.rules[{i}].params.targets must name at least one role",
    ]
    # an absent gradient is "any"; an absent distance is not a distance
    assert param_problems("device_setback", {"required_ft": 50, "targets": ["wells"]}) == []
    assert param_problems("device_setback", {"targets": ["wells"]}) == [("required_ft", "must be a positive number of feet")]
    assert param_problems("no_such_kind", {}) == [] and param_problems(None, {}) == []
