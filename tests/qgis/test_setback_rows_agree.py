"""The dock's setback layer and Processing's "Setback zones" output hold the same rings (services.layer_rows builds both)."""

from __future__ import annotations

import pytest
from conftest import demo_layers


def _rows(features, names):
    return sorted((tuple(f[n] for n in names), round(f.geometry().area(), 3)) for f in features)


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc"])
def test_the_docks_setback_layer_and_processings_setback_output_agree(provider, qgis_new_project, jurisdiction):
    import processing

    from stormwater_plugin.gui.result_layers import SETBACK_LAYER_NAME, build_result_layers
    from stormwater_plugin.processing import params as P
    from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
    from stormwater_plugin.services.layer_rows import ZONE_SCHEMA
    from stormwater_plugin.services.packs import JURISDICTIONS, load_pack
    from stormwater_plugin.services.review import check

    layers, dem = demo_layers()
    pack = load_pack(jurisdiction)
    snap = plan_snapshot(layers, dem, "m", pack=pack).read()  # the dock's path: a plan read in its task, then the review use case
    result = check(snap.inputs, pack, crs_name=snap.inputs.crs_name, moves=False).result
    dock = [rl.layer for rl in build_result_layers(result, snap.inputs, snap.crs) if rl.style == "setback_zones"]
    assert len(dock) == 1 and dock[0].name() == SETBACK_LAYER_NAME

    params = {P.role_parameter(r): lyr for r, lyr in layers.items()}
    params.update({"DEM": dem, "JURISDICTION": list(JURISDICTIONS).index(jurisdiction), "PROJECT_CLASS": 0,
                   "Z_UNITS": [o[1] for o in P.Z_UNIT_OPTIONS].index("m"), "OUTPUT": "memory:"})
    out = processing.run("stormwater_review:setbackzones", params)["OUTPUT"]
    names = [n for n, _ in ZONE_SCHEMA]
    assert [f.name() for f in out.fields()] == names == [f.name() for f in dock[0].fields()]
    ours = _rows(dock[0].getFeatures(), names)
    theirs = _rows([f for f in out.getFeatures() if f["kind"] == "setback"], names)
    assert ours and len(ours) == len(theirs) == dock[0].featureCount()
    assert [r for r, _ in ours] == [r for r, _ in theirs]
    assert [a for _, a in ours] == pytest.approx([a for _, a in theirs], rel=1e-9)
