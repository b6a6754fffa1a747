"""The QGIS path and the file path give the same findings.json (issue 23, "Source adapters").

The same layers read by the command line's ``FileSiteSource`` (files, the
headless reader) and by the plugin's ``QgisSiteSource`` (QGIS layers, the
snapshot) and handed to the one use case (``services.site_source.check_site``)
give the same document, ``inputs`` (paths and layer sources) aside: on the
demo, and on North Collins (real NYS parcels, OSM streams and ponds, a DEM in
EPSG:6350) with its vector layers reprojected into three CRSs (NY West ftUS,
UTM 17N, WGS 84), and on a shoreline whose ``.prj`` is wrong (misplaced on both
paths, issue 22 item 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, demo_layers

from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.site_source import FileSiteSource
from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
from stormwater_plugin.services.site_source import ReviewOptions, SiteSource, check_site

NC_SITE = "269.00-6-5"


def _doc(source: SiteSource, jurisdiction: str, project_class: str | None = None) -> dict:
    review = check_site(source, load_pack(jurisdiction), ReviewOptions(project_class=project_class, moves=False)).review
    doc = dict(review.doc)
    doc.pop("inputs")
    return doc


def _same(a: dict, b: dict) -> None:
    """Equal documents, to the last bit of every number (the grid scale factor included: one computation,
    ``services.grid_scale``, fed by pyproj on one side and QGIS on the other, issue 23)."""
    fa = {f["key"]: f for f in a["findings"]}
    fb = {f["key"]: f for f in b["findings"]}
    assert {k: f["status"] for k, f in fa.items()} == {k: f["status"] for k, f in fb.items()}
    assert fa == fb
    assert a["features"]["unit_to_ft"] == b["features"]["unit_to_ft"]
    for k in sorted(set(a) | set(b)):
        assert a.get(k) == b.get(k), k
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("epsg", [26918, 32617, 32618, 2260, 2261, 2262, 2263, 5070, 6350, 26718, 3857])
def test_the_plugin_and_the_file_reader_compute_the_same_scale_factor_to_the_bit(epsg: int) -> None:
    """One grid scale factor: QGIS's projection and pyproj's give the same number at 20 points of New York State."""
    import random

    from pyproj import CRS, Transformer
    from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext

    from stormwater_plugin.headless.crs import PYPROJ
    from stormwater_plugin.qgis_bridge.crs import scale_at_point
    from stormwater_plugin.services.site_crs import scale_at_grid

    rng = random.Random(epsg)
    crs, qcrs, context = CRS.from_epsg(epsg), QgsCoordinateReferenceSystem(f"EPSG:{epsg}"), QgsCoordinateTransformContext()
    to_grid = Transformer.from_crs(4326, crs, always_xy=True)
    for _ in range(20):
        x, y = to_grid.transform(rng.uniform(-79.5, -72.0), rng.uniform(40.5, 45.0))
        assert scale_at_point(qcrs, x, y, context) == scale_at_grid(PYPROJ, crs, x, y)


def test_both_adapters_are_site_sources() -> None:
    assert isinstance(FileSiteSource(None), SiteSource)
    assert isinstance(QgisSiteSource({}), SiteSource)


@pytest.mark.parametrize("jurisdiction", ["lgpc", "mamakating"])
def test_qgis_and_file_sources_give_the_same_findings_json_on_the_demo(qgis_new_project, jurisdiction) -> None:
    layers, dem = demo_layers()
    by_qgis = _doc(QgisSiteSource(layers, dem), jurisdiction)
    by_file = _doc(FileSiteSource(DEMO_GPKG, dem_path=DEMO_DEM), jurisdiction)
    assert by_file["findings"]
    _same(by_qgis, by_file)


@pytest.fixture(scope="module")
def north_collins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """The North Collins layers (and a dry well on the site parcel), each as its own GeoPackage, in three CRSs."""
    folder = Path(__file__).resolve().parents[2].parent / "shared" / "realdata" / "north-collins-ny"
    if not (folder / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
        pytest.skip("north-collins-ny is absent from ../shared/realdata")
    import geopandas as gpd

    parcels = gpd.read_file(folder / "Erie_2018_Tax_Parcels_SHP_1907.shp")
    site = parcels[parcels["PRINT_KEY"] == NC_SITE]
    pt = site.geometry.iloc[0].representative_point()
    devices = gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[pt], crs=parcels.crs)
    frames = {
        "parcels": parcels,
        "streams": gpd.read_file(folder / "waterways.gpkg", layer="waterways"),
        "waterbodies": gpd.read_file(folder / "water.gpkg", layer="water"),
        "devices": devices,
    }
    out: dict[str, Path] = {}
    base = tmp_path_factory.mktemp("north_collins")
    # NY West ftUS, the state-plane zone of Erie County (NY East, EPSG:2260, lies 3.06 degrees east of North Collins: beyond its
    # area of use and the policy's margin, both paths take a layer there as misplaced)
    for epsg in (2262, 32617, 4326):
        d = base / f"epsg{epsg}"
        d.mkdir()
        for role, frame in frames.items():
            frame.to_crs(epsg).to_file(d / f"{role}.gpkg", layer=role, driver="GPKG")
        out[str(epsg)] = d
    return folder / "dem_from_iso-1m_contours_2m_DERIVED.tif", out


def _nc_docs(north_collins, epsg: str) -> tuple[dict, dict]:
    import shutil

    from qgis.core import QgsRasterLayer, QgsVectorLayer

    dem_path, folders = north_collins
    folder = folders[epsg]
    roles = ("parcels", "streams", "waterbodies", "devices")
    qfolder = folder.parent / f"{folder.name}-qgis"  # QGIS rewrites a GeoPackage's header when it opens it: its own copies
    if not qfolder.exists():
        shutil.copytree(folder, qfolder)
    layers = {r: QgsVectorLayer(f"{qfolder / (r + '.gpkg')}|layername={r}", r, "ogr") for r in roles}
    assert all(lyr.isValid() for lyr in layers.values())
    dem = QgsRasterLayer(str(dem_path), "dem")
    assert dem.isValid()
    by_qgis = _doc(QgisSiteSource(layers, dem, site_parcel_id=NC_SITE), "lgpc", "major")
    by_file = _doc(FileSiteSource(None, [f"{r}={folder / (r + '.gpkg')}:{r}" for r in roles], dem_path, site_parcel_id=NC_SITE), "lgpc", "major")
    # a misplaced layer's findings name its file: the QGIS layers are copies in another folder
    by_qgis = json.loads(json.dumps(by_qgis).replace(str(qfolder), str(folder)))
    assert by_file["site_parcel"] == NC_SITE and by_file["notification"]["within_500ft"]
    assert any(f["other"] and f["other"]["layer"] == "streams" for f in by_file["findings"])
    return by_qgis, by_file


def _not_about(doc: dict, role: str) -> dict[str, dict]:
    return {f["key"]: f for f in doc["findings"] if role not in json.dumps(f)}


@pytest.mark.realdata
@pytest.mark.parametrize("epsg", ["2262", "32617", "4326"])
def test_qgis_and_file_sources_give_the_same_parcel_stream_and_device_findings_on_north_collins(qgis_new_project, north_collins, epsg) -> None:
    by_qgis, by_file = _nc_docs(north_collins, epsg)
    a, b = _not_about(by_qgis, "waterbodies"), _not_about(by_file, "waterbodies")
    assert len(a) > 5
    assert a == b
    assert by_qgis["notification"] == by_file["notification"]
    assert by_qgis["working_crs"] == by_file["working_crs"]


@pytest.mark.realdata
@pytest.mark.parametrize("epsg", ["2262", "32617", "4326"])
def test_qgis_and_file_sources_give_the_same_findings_json_on_north_collins(qgis_new_project, north_collins, epsg) -> None:
    """The whole document, warnings included; the ponds (779 ft from the site, beyond the pack's 500 ft) are misplaced on both."""
    by_qgis, by_file = _nc_docs(north_collins, epsg)
    _same(by_qgis, by_file)
    ponds = [f for f in by_qgis["findings"] if (f["subject"] or {}).get("layer") == "waterbodies"]
    assert ponds and all(f["status"] == "undetermined" and "check its CRS" in f["message"] for f in ponds)
    assert "layer_misplaced" in [w["code"] for w in by_qgis["warnings"]]


def test_a_site_by_a_utm_zone_boundary_gets_its_own_zone_on_both_paths(qgis_new_project, tmp_path) -> None:
    """Issue 23: the UTM zone is the site's, on the QGIS path as on the file path, never the layers' extents'.

    The site lies 250 m west of 78 degrees west (UTM 17N); a stream layer reaches 60 km east into 18N, so the centre
    of the layers' extents lies in 18N. Two lots, none flagged: the site is the lot holding the device (the engine's rule).
    """
    import geopandas as gpd
    from qgis.core import QgsVectorLayer
    from shapely.geometry import LineString, Point, box

    lon0, lat0 = -78.0 - 250.0 / 82_000.0, 42.6
    to_utm = gpd.GeoSeries([Point(lon0, lat0)], crs=4326).to_crs(26917)
    x0, y0 = float(to_utm.x[0]), float(to_utm.y[0])
    lots = gpd.GeoDataFrame({"id": ["A", "B"]}, geometry=[box(x0 - 160, y0 - 60, x0 - 40, y0 + 60), box(x0 - 40, y0 - 60, x0 + 80, y0 + 60)], crs=26917)
    device = gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[Point(x0 - 100, y0)], crs=26917)
    streams = gpd.GeoDataFrame({"id": ["S1", "S2"], "name": ["near", "far"]},
                               geometry=[LineString([(lon0 + 0.0015, lat0 - 0.01), (lon0 + 0.0015, lat0 + 0.01)]),
                                         LineString([(-77.30, lat0), (-77.25, lat0 + 0.01)])], crs=4326)
    frames = {"parcels": lots, "devices": device, "streams": streams}
    for role, frame in frames.items():
        frame.to_file(tmp_path / f"{role}.gpkg", layer=role, driver="GPKG")
    qdir = tmp_path / "qgis"
    qdir.mkdir()
    for role, frame in frames.items():
        frame.to_file(qdir / f"{role}.gpkg", layer=role, driver="GPKG")
    layers = {r: QgsVectorLayer(f"{qdir / (r + '.gpkg')}|layername={r}", r, "ogr") for r in frames}
    assert all(lyr.isValid() for lyr in layers.values())
    by_qgis = _doc(QgisSiteSource(layers), "lgpc", "major")
    by_file = _doc(FileSiteSource(None, [f"{r}={tmp_path / (r + '.gpkg')}:{r}" for r in frames]), "lgpc", "major")
    assert "UTM zone 17N" in by_file["working_crs"] and by_file["site_parcel"] == "A"
    assert by_qgis["working_crs"] == by_file["working_crs"]
    by_qgis = json.loads(json.dumps(by_qgis).replace(str(qdir), str(tmp_path)))
    _same(by_qgis, by_file)
