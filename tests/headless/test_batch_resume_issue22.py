"""The batch as it is really run (issue 22, item 8): interrupted and restarted, killed, given an absurd site id."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stormwater_plugin.headless.batch import MAX_FOLDER_CHARS, PROGRESS_FILE, run_batch
from stormwater_plugin.services.output_manifest import MANIFEST_FILE
from stormwater_plugin.services.site_source import ReviewOptions

from .synthetic_town import write_town

#: Every site a major project (``--class major``), no moves: the screening's options.
MAJOR = ReviewOptions(project_class="major", moves=False)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("town8")
    write_town(folder, 8, cell=2.0, cols=4)
    return folder


def _docs(out: Path) -> dict[str, str]:
    return {p.parent.name: p.read_text() for p in sorted((out / "sites").glob("*/findings.json"))}


def _batch(town: Path, out: Path, **kw):
    return run_batch(town / "town.gpkg", town / "dem.tif", kw.pop("jurisdiction", "lgpc"), out, options=MAJOR, workers=1,
                     sites_per_partition=2, **kw)


def test_interrupted_screening_is_marked_incomplete_and_a_restart_resumes_its_checked_sites(town: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    _batch(town, clean)
    out = tmp_path / "screening"

    def stop_after_two(msg: str) -> None:
        if msg.startswith("partition 2/"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _batch(town, out, progress=stop_after_two)
    meta = json.loads((out / "batch.json").read_text())
    assert meta["status"] == "incomplete" and not (out / "summary.csv").exists() and not (out / "findings.gpkg").exists()
    assert len((out / PROGRESS_FILE).read_text().splitlines()) == 1 + 4

    messages: list[str] = []
    _batch(town, out, progress=messages.append)
    assert any(m.startswith("resuming: 4 site(s)") for m in messages)
    meta = json.loads((out / "batch.json").read_text())
    assert meta["status"] == "complete" and meta["sites_resumed"] == 4
    assert _docs(out) == _docs(clean)
    assert (out / "summary.csv").read_text() == (clean / "summary.csv").read_text()


def test_a_tampered_site_file_is_checked_again_on_resume(town: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    _batch(town, out)
    first = sorted((out / "sites").glob("*/findings.json"))[0]
    good = first.read_text()
    first.write_text("{}")
    messages: list[str] = []
    _batch(town, out, progress=messages.append)
    assert any(m.startswith("resuming: 7 site(s)") for m in messages)
    assert first.read_text() == good


def test_a_screening_with_other_inputs_removes_the_earlier_screenings_files(town: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    _batch(town, out)
    stale = out / "sites" / "OLD-SITE"
    stale.mkdir()
    (stale / "findings.json").write_text("{}")
    # a site of the earlier screening the new one does not have: recorded in the folder's manifest as the batch's (issue 35)
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    manifest["files"]["sites/OLD-SITE/findings.json"] = {"command": "batch", "written": "2026-01-01T00:00:00Z"}
    (out / MANIFEST_FILE).write_text(json.dumps(manifest))
    messages: list[str] = []
    _batch(town, out, jurisdiction="lake-george", progress=messages.append)
    assert not stale.exists()
    assert not any(m.startswith("resuming") for m in messages)
    assert json.loads((out / "batch.json").read_text())["jurisdiction"] == "lake-george"


def test_a_site_id_over_255_characters_gets_a_safe_folder_and_the_batch_goes_on(town: Path, tmp_path: Path) -> None:
    import geopandas as gpd

    pkg = tmp_path / "town.gpkg"
    frames = {layer: gpd.read_file(town / "town.gpkg", layer=layer) for layer in ("parcels", "devices", "wells", "septic", "building_sites", "disturbance")}
    long_id = "T-" + "x" * 300
    col = next(c for c in ("id", "PRINT_KEY") if c in frames["parcels"].columns)
    old = frames["parcels"].loc[0, col]
    frames["parcels"].loc[0, col] = long_id
    for name, frame in frames.items():
        if "parcel" in frame.columns:
            frame.loc[frame["parcel"] == old, "parcel"] = long_id
        frame.to_file(pkg, layer=name, driver="GPKG")
    out = tmp_path / "o"
    report = run_batch(pkg, town / "dem.tif", "lgpc", out, options=MAJOR, workers=1, sites_per_partition=2)
    assert report.n_sites == 8 and not report.errors
    names = [p.name for p in (out / "sites").iterdir()]
    assert all(len(n) <= MAX_FOLDER_CHARS for n in names) and len(names) == 8


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_kill_9_of_the_batch_leaves_no_worker_running(tmp_path: Path) -> None:
    folder = tmp_path / "town"
    write_town(folder, 60, cell=2.0, cols=10)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "stormwater_plugin", "batch", str(folder / "town.gpkg"), "--dem", str(folder / "dem.tif"),
                             "--jurisdiction", "lgpc", "--workers", "2", "--sites-per-partition", "1", "--quiet", "--out", str(tmp_path / "o")],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.2)
    if proc.poll() is not None:
        pytest.skip("the batch finished before its workers could be seen")
    time.sleep(1.0)
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.2)
    left = [p for p in workers if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers still running after the batch was killed: {left}"
