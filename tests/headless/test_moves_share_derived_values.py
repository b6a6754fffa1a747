"""The moves' search and each moved device's re-check share one set of derived values (core.derived): every layer but
the moved device's is cleaned and normalised once for all of them (a county's parcels: once rather than three times),
reused by content, and the moves and the findings are those each computes on its own."""

from __future__ import annotations

from shapely.geometry import Point, box

from stormwater_plugin.core import derived as derived_mod
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services import moves as moves_mod
from stormwater_plugin.services.review import SiteInputs, check, suggest
from tests.sitebuilder import layer, plane_dem, septic_square


def _inputs(dev: Point, n_parcels: int = 40) -> SiteInputs:
    # the site parcel and a row of neighbours beside it, their flags and addresses as a county layer writes them
    geoms = [box(-120.0, -120.0, 120.0, 120.0)] + [box(130.0 + 50 * k, -120.0, 170.0 + 50 * k, 120.0) for k in range(n_parcels)]
    attrs = [{"is_site": 1, "Owner": "A"}] + [{"is_site": 0, "Owner": f"Owner {k}", "Proposed_Lot": "no"} for k in range(n_parcels)]
    layers = {
        "parcels": layer("parcels", geoms, [f"P{k}" for k in range(len(geoms))], attrs),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [dev], ["D1"], [{"Device Type": "Dry Well", "high_traffic": 0}]),
    }
    return SiteInputs(layers=layers, dem=plane_dem(-300, -300, 2600, 2.0, gx=0.05, gy=0.0), unit_to_ft=1.0, class_override="minor")


def test_the_moves_of_a_shared_check_are_those_of_separate_checks():
    inputs, pack = _inputs(Point(24.0, 0.0)), load_pack("lgpc")
    review = check(inputs, pack)
    alone = run_check(inputs, pack)  # no derived values in use: each computed
    assert review.result.findings == alone.findings and review.result.warnings == alone.warnings
    assert review.moves == suggest(inputs, pack, alone)
    assert review.moves and review.moves[0].possible


def test_the_moves_clean_each_layer_once_for_every_moved_device():
    inputs, pack = _inputs(Point(24.0, 0.0)), load_pack("lgpc")
    cleaned: list[str] = []
    real = derived_mod.Derived.value

    def counting(self, name, compute, *inputs_):
        if name == "cleaned layer":
            def noted():
                cleaned.append(inputs_[0].role)
                return compute()
            return real(self, name, noted, *inputs_)
        return real(self, name, compute, *inputs_)

    derived_mod.Derived.value = counting  # type: ignore[method-assign]
    try:
        review = check(inputs, pack)
    finally:
        derived_mod.Derived.value = real  # type: ignore[method-assign]
    assert review.moves and review.moves[0].possible
    # once for the moves' search and every re-check (found again by content; the check itself keeps none)
    assert cleaned.count("parcels") == 1 and cleaned.count("septic") == 1
    assert cleaned.count("devices") >= 2  # the plan's device, then each position tried (a new layer each)


def test_a_moved_device_rechecked_in_use_of_derived_values_reads_as_rechecked_alone():
    inputs, pack = _inputs(Point(24.0, 0.0)), load_pack("lgpc")
    verify = moves_mod.verifier(inputs, pack, "minor")
    attrs = {"device_type": "dry_well", "high_traffic": 0}
    derived = Derived()
    with using(derived, settle=False):
        run_check(inputs, pack, derived=derived)
        shared = [verify(Point(x, 0.0), attrs, "D1") for x in (24.0, 38.0, 60.0)]
    alone = [verify(Point(x, 0.0), attrs, "D1") for x in (24.0, 38.0, 60.0)]
    assert shared == alone
    assert derived.reused + derived.made > 0


def test_a_device_whose_attributes_changed_is_not_read_from_the_shared_values():
    # the same position, another device type: its own cleaned layer (keyed by the attributes too), not the first one's pass
    inputs, pack = _inputs(Point(24.0, 0.0)), load_pack("lgpc")
    verify = moves_mod.verifier(inputs, pack, "minor")
    derived = Derived()
    with using(derived, settle=False):
        passes = verify(Point(60.0, 0.0), {"device_type": "dry_well"}, "D1")
        unknown = verify(Point(60.0, 0.0), {"device_type": "rain garden"}, "D1")  # unrecognised: undetermined
    assert passes == (True, [])
    assert unknown == (False, ["lgpc.minor.septic-upgradient-20"]) == verify(Point(60.0, 0.0), {"device_type": "rain garden"}, "D1")


def test_a_check_under_the_derived_values_in_use_leaves_them_to_their_owner():
    # settled by each check, the layers keyed (a county's parcels, as read and cleaned) were keyed again by the next one
    inputs, pack = _inputs(Point(24.0, 0.0)), load_pack("lgpc")
    derived = Derived()
    with using(derived, settle=False):
        run_check(inputs, pack, derived=derived)
        assert id(inputs.layers["parcels"]) in derived._keys  # still keyed: the next check finds its key
    own = Derived()
    run_check(inputs, pack, derived=own)
    assert not own._keys  # a check's own Derived is settled when it ends
