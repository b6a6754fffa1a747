"""``stormwater-check batch``: a town of sites, each checked as if alone, on a process pool or Dask."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.core.model import FeatureLayer, SiteInputs
from stormwater_plugin.core.roles import PLAN_ROLES
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.batch import SUMMARY_COLUMNS, pack_reach_ft, plan_batch, run_batch
from stormwater_plugin.headless.reader import read_site, site_units
from stormwater_plugin.services.review import check
from stormwater_plugin.services.site_source import ReviewOptions

from .synthetic_town import write_town

#: Every site a major project (``--class major``), no moves: the screening's options.
MAJOR = ReviewOptions(project_class="major", moves=False)


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 site parcels in 2 rows of 10 (300 x 90 m): the far ends lie beyond each other's 500 ft halo."""
    folder = tmp_path_factory.mktemp("town20")
    write_town(folder, 20, cell=2.0, cols=10)
    return folder


@pytest.fixture(scope="module")
def pool_run(town: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("batch_pool")
    report = run_batch(town / "town.gpkg", town / "dem.tif", "lgpc", out, options=MAJOR, workers=2, sites_per_partition=3)
    return out, report


def _alone(town: Path, jurisdiction: str, project_class: str | None) -> dict[str, dict]:
    """Each site checked on its own: its plan features, and every context feature of the town."""
    pack = load_pack(jurisdiction)
    loaded = read_site(town / "town.gpkg", [], town / "dem.tif", None, None, project_class, pack=pack)
    units = site_units(loaded)
    docs = {}
    for pid in loaded.inputs.layers["parcels"].ids:
        layers = {}
        for role, layer in loaded.inputs.layers.items():
            if role in PLAN_ROLES:
                k = [i for i, a in enumerate(layer.attrs) if a.get("lot") == pid]
                layers[role] = FeatureLayer(role, layer.geoms[k], [layer.ids[i] for i in k], [layer.attrs[i] for i in k])
            else:
                layers[role] = layer
        unit_to_ft, crs_name = units[pid]  # the scale factor at the site, as `stormwater-check --site-parcel` takes it
        inputs = SiteInputs(layers, loaded.inputs.dem, unit_to_ft, crs_name, pid, project_class, list(loaded.inputs.warnings))
        # the single-site use case every front end calls (moves off: a screening suggests none)
        doc = check(inputs, pack, crs_name=crs_name, moves=False).doc
        doc.pop("inputs")
        docs[pid] = doc
    return docs


def _batch_docs(out: Path) -> dict[str, dict]:
    docs = {}
    for path in sorted((out / "sites").glob("*/findings.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["inputs"]["site_parcel"] == doc["site_parcel"]
        doc.pop("inputs")
        docs[doc["site_parcel"]] = doc
    return docs


def test_pack_reach_is_the_largest_rule_distance() -> None:
    assert pack_reach_ft(load_pack("lgpc")) == 500.0
    assert pack_reach_ft(load_pack("lake-george")) == 500.0


def test_batch_equals_each_site_checked_alone(town: Path, pool_run: tuple[Path, object]) -> None:
    out, report = pool_run
    assert report.n_partitions > 2 and "ProcessPool" in report.engine
    assert not report.errors and not report.unassigned
    got = _batch_docs(out)
    want = _alone(town, "lgpc", "major")
    assert sorted(got) == sorted(want) and len(got) == 20
    for pid in want:
        assert got[pid] == want[pid], pid
    # the review's document, as a single-site check writes it: each finding keyed, the override counts there
    assert all(f["key"] and f["effective_status"] == f["status"] for d in got.values() for f in d["findings"])
    assert all(d["override_counts"]["violations_unresolved"] == d["counts"]["violation"] for d in got.values())
    # the 500 ft notification lists are there, and the halo did leave far features out
    assert any(d["notification"]["within_500ft"] for d in got.values())
    loaded = read_site(town / "town.gpkg", [], town / "dem.tif")
    plan = plan_batch(loaded.inputs.layers, loaded.inputs.dem, load_pack("lgpc"), loaded.inputs.unit_to_ft, sites_per_partition=3)
    n_wells = len(loaded.inputs.layers["wells"])
    assert min(len(idx["wells"]) for p in plan.partitions for _, idx in p.sites) < n_wells


def test_minor_and_mamakating_runs_equal_alone_too(town: Path, tmp_path: Path) -> None:
    for jurisdiction in ("lake-george", "mamakating"):
        out = tmp_path / jurisdiction
        report = run_batch(town / "town.gpkg", town / "dem.tif", jurisdiction, out, workers=1, sites_per_partition=7)
        assert report.engine == "this process" and not report.errors
        assert _batch_docs(out) == _alone(town, jurisdiction, None)


def test_summary_csv_and_findings_gpkg(pool_run: tuple[Path, object]) -> None:
    import fiona
    import geopandas as gpd

    out, report = pool_run
    with (out / "summary.csv").open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == SUMMARY_COLUMNS
        rows = list(reader)
    assert len(rows) == 20
    assert [r["site_parcel"] for r in rows] == sorted(r["site_parcel"] for r in rows)  # the parcels' order
    docs = _batch_docs(out)
    for r in rows:
        doc = docs[r["site_parcel"]]
        assert r["project_class"] == doc["project_class"] == "major" and r["class_source"] == "override"
        assert {k: int(r[k]) for k in ("violation", "undetermined", "advisory", "pass")} == doc["counts"]
        worst = next(f for s in ("violation", "undetermined", "advisory", "pass") for f in doc["findings"] if f["status"] == s)
        assert r["worst_status"] == worst["status"]
        assert any(f["rule_id"] == r["worst_rule_id"] and f["citation"] == r["worst_citation"] and f["message"] == r["worst_message"] for f in doc["findings"])
        assert (out / r["findings_json"]).is_file() and r["error"] == ""
    assert report.exit_code == 1 and report.with_violation == sum(1 for r in rows if int(r["violation"]))
    layers = set(fiona.listlayers(out / "findings.gpkg"))
    assert {"findings_lines", "site_parcels"} <= layers
    lines = gpd.read_file(out / "findings.gpkg", layer="findings_lines")
    assert {"site_parcel", "status", "rule_id", "citation", "measured_ft", "required_ft", "message", "label"} <= set(lines.columns)
    # distance lines, and the building sites' steepest rays (the slope is measured on a major project too)
    n_lines = sum(1 for d in docs.values() for f in d["findings"]
                  if (f["measured_ft"] is not None and f["other"] is not None) or (f["rule_id"] == "lgpc.minor.may-be-major-slope-15" and f["details"].get("azimuth_deg") is not None))
    assert len(lines) == n_lines
    assert set(lines["site_parcel"]) <= set(docs)
    sites = gpd.read_file(out / "findings.gpkg", layer="site_parcels")
    assert len(sites) == 20 and set(sites["worst_status"]) <= {"violation", "undetermined", "advisory", "pass"}
    meta = json.loads((out / "batch.json").read_text(encoding="utf-8"))
    assert meta["sites"] == 20 and meta["halo_ft"] == 500.0 and sum(meta["sites_per_partition"]) == 20


def test_local_cluster_equals_the_process_pool(town: Path, pool_run: tuple[Path, object], tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            by_client = run_batch(town / "town.gpkg", town / "dem.tif", "lgpc", tmp_path / "client", options=MAJOR, scheduler=client, sites_per_partition=5)
        by_address = run_batch(
            town / "town.gpkg", town / "dem.tif", "lgpc", tmp_path / "address", options=MAJOR, scheduler=cluster.scheduler_address, sites_per_partition=5
        )
    assert by_client.engine.startswith("Dask") and by_address.engine.startswith("Dask")
    pool_out = pool_run[0]
    for out in (tmp_path / "client", tmp_path / "address"):
        assert _batch_docs(out) == _batch_docs(pool_out)
        assert (out / "summary.csv").read_text(encoding="utf-8") == (pool_out / "summary.csv").read_text(encoding="utf-8")


def test_cli_exit_codes_and_messages(town: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["batch", str(tmp_path / "nowhere.gpkg"), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o1")])
    err = capsys.readouterr().err
    assert code == 2 and "nowhere.gpkg" in err and "not found" in err and "Traceback" not in err
    code = main(["batch", str(town / "town.gpkg"), "--dem", str(tmp_path / "no_dem.tif"), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o2")])
    assert code == 2 and "no_dem.tif" in capsys.readouterr().err
    code = main(["batch", str(town / "town.gpkg"), "--jurisdiction", "nowhere", "--out", str(tmp_path / "o3")])
    assert code == 2
    capsys.readouterr()
    code = main(["batch", str(town / "town.gpkg"), "--dem", str(town / "dem.tif"), "--jurisdiction", "lgpc", "--class", "major", "--workers", "1", "--quiet", "--out", str(tmp_path / "o4")])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("20 sites:")


def test_no_site_parcel_and_stray_features(town: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import geopandas as gpd
    from shapely.geometry import Point

    parcels = gpd.read_file(town / "town.gpkg", layer="parcels")
    plain = tmp_path / "plain.gpkg"
    parcels.assign(is_site=0).to_file(plain, layer="parcels", driver="GPKG")
    assert main(["batch", str(plain), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o1")]) == 2
    assert "is_site" in capsys.readouterr().err

    # Two sites only, and a device that lies in no site parcel: reported, not checked, no crash.
    two = tmp_path / "two.gpkg"
    parcels.assign(is_site=[1, 1] + [0] * (len(parcels) - 2)).to_file(two, layer="parcels", driver="GPKG")
    devices = gpd.read_file(town / "town.gpkg", layer="devices")
    stray = gpd.GeoDataFrame([{"id": "STRAY", "device_type": "dry_well", "high_traffic": 0}], geometry=[Point(0, 0)], crs=devices.crs)
    gpd.GeoDataFrame(np.concatenate([devices.to_dict("records"), stray.to_dict("records")]).tolist(), crs=devices.crs).to_file(two, layer="devices", driver="GPKG")
    messages: list[str] = []
    report = run_batch(two, None, "lake-george", tmp_path / "o2", workers=1, progress=messages.append)
    assert report.n_sites == 2 and report.unassigned["devices"][-1] == "STRAY"
    assert any("19 devices feature(s) lie in no site parcel" in m for m in messages)  # 18 on other parcels, and STRAY
    docs = _batch_docs(tmp_path / "o2")
    assert sorted(docs) == sorted(parcels["id"][:2])
    assert all(w["code"] == "no_dem" for d in docs.values() for w in d["warnings"] if w["code"].startswith("no_"))
