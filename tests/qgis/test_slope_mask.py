"""The 100 ft slope mask drawn with the results: present on the demo (B-2 is steep), absent without a DEM."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import demo_layers
from qgis.core import QgsGeometry, QgsPointXY, QgsProject


@pytest.fixture(scope="module")
def demo_run(qgis_app):
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, dem = demo_layers()
    snap = snapshot(layers, dem, "m", None, None)
    result = run_check(snap.inputs, load_pack("lake-george"))
    return layers, dem, snap, result


def _by_style(layers):
    return {rl.style: rl for rl in layers}


def test_mask_layer_on_demo(demo_run, qgis_new_project):
    from stormwater_plugin.gui.result_layers import add_to_project, build_result_layers
    from stormwater_plugin.gui.slope_mask import mask_params

    layers, dem, snap, result = demo_run
    out = build_result_layers(result, snap.inputs, snap.crs)
    styles = _by_style(out)
    assert "slope_mask" in styles
    mask = styles["slope_mask"].layer
    params = mask_params("lake-george")
    assert mask.name() == f"{params.threshold_pct:g}% slope mask ({params.distance_ft:g} ft)"
    assert mask.crs() == snap.crs
    feats = list(mask.getFeatures())
    assert len(feats) == 1 and feats[0]["threshold_pct"] == params.threshold_pct and feats[0]["area_sqft"] > 0
    geom = feats[0].geometry()
    assert geom.isGeosValid()
    # B-2 is steep (advisory), B-1 is not: the mask holds B-2's centre and keeps well away from B-1's
    sites = {bs.id: bs for bs in result.building_sites}
    assert sites["B-2"].status.value == "advisory" and sites["B-1"].status.value == "pass"
    b2 = QgsGeometry.fromPointXY(QgsPointXY(*sites["B-2"].centre))
    b1 = QgsGeometry.fromPointXY(QgsPointXY(*sites["B-1"].centre))
    assert geom.contains(b2)
    assert not geom.contains(b1)
    # drawn in the result group, styled from the shipped QML (a hatched, see-through fill)
    group = add_to_project(out, "lake-george")
    names = [n.layer().name() for n in group.findLayers()]
    assert mask.name() in names
    symbol = mask.renderer().symbol()
    assert symbol.symbolLayer(0).properties()["style"] in ("f_diagonal", "b_diagonal", "cross", "diagonal_x")
    assert symbol.opacity() < 1.0 or symbol.color().alpha() < 255
    QgsProject.instance().removeAllMapLayers()


def test_mask_agrees_with_point_check(demo_run):
    """The map behind the mask is the building-site measure: at B-2's centre it reads within a pixel's variation."""
    from stormwater_plugin.core.terrain import local_jacobian, ring_slope_map
    from stormwater_plugin.gui.slope_mask import compute_slope_mask

    _, _, snap, result = demo_run
    mask = compute_slope_mask(snap.inputs, "lake-george")
    assert mask is not None and mask.n_cells > 0 and mask.max_pct is not None
    grid = snap.inputs.dem
    b2 = next(bs for bs in result.building_sites if bs.id == "B-2")
    p0, jac = local_jacobian(grid, *b2.centre, snap.inputs.unit_to_ft)
    slope = ring_slope_map(grid.values, jac, mask.params.distance_ft, z_to_ft=grid.z_to_ft)
    col, row = int(np.floor(p0[0])), int(np.floor(p0[1]))
    assert slope[row, col] == pytest.approx(b2.slope_100ft_pct, abs=1.0)  # the cell centre is within half a metre of B-2's centre


def test_no_mask_without_dem(demo_run):
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.gui.result_layers import build_result_layers
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, _, _, _ = demo_run
    snap = snapshot(layers, None, None, None, None)
    result = run_check(snap.inputs, load_pack("lake-george"))
    assert "slope_mask" not in _by_style(build_result_layers(result, snap.inputs, snap.crs))


def test_mask_of_a_plane_follows_the_threshold(qgis_app):
    """A synthetic 16% plane is steep everywhere the ring fits; a 14% plane nowhere. At 0.1%, as the building-site
    finding decides: a 14.95% plane prints 15.0% and is steep (the mask is certified at that rounding edge), 14.94% is not."""
    from shapely.geometry import Point

    from stormwater_plugin.core.model import FeatureLayer, SiteInputs
    from stormwater_plugin.core.raster import ElevationGrid
    from stormwater_plugin.gui.slope_mask import compute_slope_mask

    cols = rows = 260  # 1 ft pixels: the 100 ft ring fits around the middle 60 x 60 cells
    x = np.arange(cols) + 0.5
    for grade, steep in ((0.16, True), (0.14, False), (0.1495, True), (0.1494, False)):
        values = np.tile(grade * x, (rows, 1))  # feet per foot, 1 ft pixels
        grid = ElevationGrid(values=values, geotransform=(0.0, 1.0, 0.0, float(rows), 0.0, -1.0), z_to_ft=1.0, cell_size_ft=(1.0, 1.0))
        sites = FeatureLayer.from_sequences("building_sites", [Point(130, 130)], ["B"])
        inputs = SiteInputs(layers={"building_sites": sites}, dem=grid, unit_to_ft=1.0, crs_name="test", site_parcel_id=None, class_override=None, warnings=[])
        mask = compute_slope_mask(inputs, "lgpc")
        assert mask is not None
        if steep:
            assert mask.n_cells > 0 and mask.geometry is not None
            assert mask.geometry.contains(Point(130, 130))
            assert mask.max_pct == pytest.approx(grade * 100, abs=1e-3)
        else:
            assert mask.n_cells == 0 and mask.geometry is None
            assert mask.max_pct == pytest.approx(grade * 100, abs=1e-3)
