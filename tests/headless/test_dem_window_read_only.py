"""No check changes the DEM window it reads (issue 39): the live read shares a kept window between reads, read-only.

The live re-check hands the same DEM window to every read of the same window (``gui.live_read``), its values made
read-only, rather than a copy per read: a stale read still running and the new one read the same numbers. That is sound
only if nothing the check runs writes into the window's values; an attempt would raise on the read-only array. Here the
whole review of the demo (the rules, the suggested moves, the completeness list) and the siting envelope run over a
read-only window in each pack and give what they give over a writable one.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.review import check
from stormwater_plugin.services.site_source import site_completeness
from stormwater_plugin.services.siting import find_envelope

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


def _inputs(pack):
    from stormwater_plugin.headless.site_source import FileSiteSource

    if not (DEMO / "site.gpkg").is_file():
        pytest.skip("the demo site is not built (scripts/make_demo_site.py)")
    return FileSiteSource(DEMO / "site.gpkg", dem_path=DEMO / "dem.tif").read(pack).inputs


def _read_only(inputs):
    frozen = copy.copy(inputs)
    frozen.dem = dataclasses.replace(inputs.dem, values=np.array(inputs.dem.values, copy=True))
    frozen.dem.values.flags.writeable = False
    return frozen


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc", "mamakating"])
def test_a_review_over_a_read_only_dem_window_is_the_review_over_a_writable_one(jurisdiction):
    pack = load_pack(jurisdiction)
    inputs = _inputs(pack)
    assert inputs.dem is not None
    frozen = _read_only(inputs)
    writable, shared = check(inputs, pack, moves=True), check(frozen, pack, moves=True)
    assert json.dumps(shared.doc, sort_keys=True, default=str) == json.dumps(writable.doc, sort_keys=True, default=str)
    a = site_completeness(inputs, pack, writable.result.project_class, 0, writable.result)
    b = site_completeness(frozen, pack, shared.result.project_class, 0, shared.result)
    assert a.as_dict() == b.as_dict()
    assert not frozen.dem.values.flags.writeable


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc"])
def test_the_siting_envelope_over_a_read_only_dem_window_is_the_envelope_over_a_writable_one(jurisdiction):
    pack = load_pack(jurisdiction)
    inputs = _inputs(pack)
    frozen = _read_only(inputs)
    a = find_envelope(inputs, pack, device_type="dry_well", high_traffic=False)
    b = find_envelope(frozen, pack, device_type="dry_well", high_traffic=False)
    assert a.envelope.equals_exact(b.envelope, 0.0)
    assert [(z.rule_id, z.geometry.wkb) for z in a.excluded] == [(z.rule_id, z.geometry.wkb) for z in b.excluded]
    assert [(z.rule_id, z.geometry.wkb) for z in a.needs_professional_design] == [(z.rule_id, z.geometry.wkb) for z in b.needs_professional_design]
    assert (a.not_checked, [w.message for w in a.warnings]) == (b.not_checked, [w.message for w in b.warnings])
