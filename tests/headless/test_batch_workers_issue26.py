"""Issue 26: a batch whose workers write the sites' findings.json, and whose findings.gpkg goes in bulk, gives the same outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyproj
import pytest
import shapely
from shapely.geometry import Point, Polygon, box

from stormwater_plugin.headless.batch import _bulk_layer, run_batch
from stormwater_plugin.headless.writer import write_layer
from stormwater_plugin.services.site_source import ReviewOptions

from .synthetic_town import write_town

#: Every site a major project (``--class major``), no moves: the screening's options.
MAJOR = ReviewOptions(project_class="major", moves=False)


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("town12")
    write_town(folder, 12, cell=2.0, cols=6)
    return folder


def _outputs(out: Path) -> dict[str, object]:
    import fiona

    files: dict[str, object] = {"summary.csv": (out / "summary.csv").read_bytes()}
    for doc in sorted((out / "sites").glob("*/findings.json")):
        files[str(doc.relative_to(out))] = doc.read_bytes()
    for layer in fiona.listlayers(out / "findings.gpkg"):
        with fiona.open(out / "findings.gpkg", layer=layer) as src:
            files[layer] = (src.schema, [(dict(f["properties"]), shapely.geometry.shape(f["geometry"]).wkb) for f in src])
    return files


def test_two_workers_writing_their_sites_give_the_files_of_one_worker_and_of_a_local_dask_cluster(town: Path, tmp_path: Path) -> None:
    one = run_batch(town / "town.gpkg", town / "dem.tif", "lgpc", tmp_path / "one", options=MAJOR, workers=1, sites_per_partition=4)
    two = run_batch(town / "town.gpkg", town / "dem.tif", "lgpc", tmp_path / "two", options=MAJOR, workers=2, sites_per_partition=4)
    assert one.engine == "this process" and two.engine.startswith("ProcessPoolExecutor") and not one.errors and not two.errors
    ref = _outputs(tmp_path / "one")
    assert len([k for k in ref if k.endswith("findings.json")]) == 12
    assert _outputs(tmp_path / "two") == ref
    pytest.importorskip("distributed")
    dask = run_batch(town / "town.gpkg", town / "dem.tif", "lgpc", tmp_path / "dask", options=MAJOR, workers=2, scheduler="local",
                     sites_per_partition=4)
    assert dask.engine.startswith("Dask LocalCluster")
    assert _outputs(tmp_path / "dask") == ref


def test_bulk_geopackage_layer_reads_back_as_the_fiona_layer_singles_promoted_to_multi(tmp_path: Path) -> None:
    import fiona

    crs = pyproj.CRS.from_epsg(32618)
    geoms = [box(0, 0, 10, 10), shapely.multipolygons([box(20, 0, 30, 5), box(40, 0, 45, 5)]), Polygon([(0, 20), (5, 30), (10, 20)])]
    rows = [{"site_parcel": "A", "measured_ft": 1.5, "n": 3, "note": None}, {"site_parcel": "B", "measured_ft": None, "n": 4, "note": "x"},
            {"site_parcel": 7, "measured_ft": 2, "n": None, "note": "é"}]
    write_layer(tmp_path / "a.gpkg", "findings_areas", rows, geoms, "areas", crs)
    _bulk_layer(tmp_path / "b.gpkg", "findings_areas", rows, np.array(geoms, dtype=object), "areas", crs)

    def read(p: Path) -> tuple[object, ...]:
        with fiona.open(p, layer="findings_areas") as src:
            return src.schema, src.crs_wkt, src.bounds, [(dict(f["properties"]), shapely.geometry.shape(f["geometry"]).wkb) for f in src]

    assert read(tmp_path / "b.gpkg") == read(tmp_path / "a.gpkg")


def test_bulk_layer_with_points_in_3d_goes_through_fiona(tmp_path: Path) -> None:
    import fiona

    crs = pyproj.CRS.from_epsg(32618)
    _bulk_layer(tmp_path / "c.gpkg", "findings_points", [{"status": "pass"}], np.array([Point(1, 2, 3)], dtype=object), "points", crs)
    with fiona.open(tmp_path / "c.gpkg", layer="findings_points") as src:
        (f,) = list(src)
        assert shapely.geometry.shape(f["geometry"]).equals(shapely.multipoints([Point(1, 2, 3)]))
