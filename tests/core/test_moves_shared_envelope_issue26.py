"""Issue 26: the moves of devices shaped by the same rules share one envelope drawn over their search squares."""

from __future__ import annotations

import pytest
import shapely
from shapely.geometry import Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting import moves as moves_mod
from stormwater_plugin.services.moves import suggest_moves
from tests.sitebuilder import layer, plane_dem, septic_square

PARCEL = box(-150.0, -150.0, 150.0, 150.0)


def _three_dry_wells_upgradient_of_septic(j: str) -> tuple[SiteInputs, object, object]:
    # three dry wells east of a septic field on ground falling westward: each within 20 ft upgradient (minor)
    devices = [Point(24, 0), Point(22, 12), Point(25, -10)]
    layers = {
        "parcels": layer("parcels", [PARCEL], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", devices, ["D1", "D2", "D3"], [{"device_type": "dry_well", "high_traffic": 0}] * 3),
    }
    inputs = SiteInputs(layers=layers, dem=plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0), unit_to_ft=1.0, class_override="minor")
    pack = load_pack(j)
    return inputs, pack, run_check(inputs, pack)


@pytest.mark.parametrize("j", ["lgpc", "lake-george"])
def test_three_dry_wells_upgradient_of_septic_share_one_envelope_and_get_the_moves_drawn_alone_septic_upgradient_20(j, monkeypatch):
    inputs, pack, result = _three_dry_wells_upgradient_of_septic(j)
    builds: list[object] = []
    real = moves_mod.build_envelope

    def counting(*args, **kwargs):
        builds.append(kwargs.get("within"))
        return real(*args, **kwargs)

    monkeypatch.setattr(moves_mod, "build_envelope", counting)
    shared = suggest_moves(inputs, pack, result)
    n_shared = len(builds)
    builds.clear()
    monkeypatch.setattr(moves_mod, "_shared_windows", lambda *a, **k: {})
    alone = suggest_moves(inputs, pack, result)
    assert n_shared == 1 and len(builds) == 3  # one envelope for the three, against one per device
    assert len(shared) == 3 and all(m["possible"] and m["verified"] for m in shared)
    for s, a in zip(shared, alone):
        # the same position, or never a farther one
        assert s["distance_ft"] <= a["distance_ft"] + 1e-9
        assert s["to"] == pytest.approx(a["to"], abs=0.05)


@pytest.mark.parametrize("j", ["lgpc", "lake-george"])
def test_builds_sharing_their_setting_draw_each_gradient_rule_once_and_the_same_envelopes_septic_upgradient_20(j, monkeypatch):
    # issue 26: two device types shaped by the same gradient rule over the same window: its zones drawn once, the same envelopes
    from stormwater_plugin.core.siting import SharedBuilds, build_envelope
    from stormwater_plugin.core.siting import envelope as E

    inputs, pack, _result = _three_dry_wells_upgradient_of_septic(j)
    window = box(-60.0, -60.0, 60.0, 60.0)
    calls: list[str] = []
    real = E._gradient_rule_zones
    monkeypatch.setattr(E, "_gradient_rule_zones", lambda rule, *a: calls.append(rule.id) or real(rule, *a))
    kinds = ("dry_well", "infiltration_trench")
    alone = [build_envelope(inputs, pack, device_type=t, project_class="minor", design_zones=False, within=window) for t in kinds]
    n_alone, calls[:] = len(calls), []
    builds = SharedBuilds()
    shared = [build_envelope(inputs, pack, device_type=t, project_class="minor", design_zones=False, within=window, shared=builds) for t in kinds]
    assert n_alone >= 2 and len(calls) < n_alone
    for a, s in zip(alone, shared):
        assert shapely.equals_exact(a.envelope, s.envelope, tolerance=0.0)
        assert [(z.rule_id, z.kind, z.reason) for z in a.excluded] == [(z.rule_id, z.kind, z.reason) for z in s.excluded]
