"""A large drawing (issue 35 item 6): the layers the mapping never sorts are left unread by GDAL and counted by a byte scan;
the import is the same as reading every entity (roles, ids, unmapped and dropped counts). Its speed on a million entities
is measured by benchmarks/bench_cad_import_1m.py, not here."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import fiona

from stormwater_plugin.cli import main
from stormwater_plugin.services import cad_plan

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_cad_import_1m", ROOT / "benchmarks" / "bench_cad_import_1m.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _import(dxf: Path, out: Path) -> dict:
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(out)]) == 0
    report = json.loads(out.with_suffix(".import.json").read_text(encoding="utf-8"))
    with fiona.open(out, layer="contours") as src:
        report["contour_ids"] = sorted(f.properties["id"] for f in src)
    return report


def test_a_60000_entity_drawing_read_through_the_layer_filter_imports_as_read_whole(tmp_path, monkeypatch, capsys):
    dxf = _bench().write_drawing(tmp_path / "big.dxf", 60_000, 35)
    filtered = _import(dxf, tmp_path / "filtered.gpkg")
    monkeypatch.setattr(cad_plan, "FILTER_FROM_ENTITIES", 10**9)
    whole = _import(dxf, tmp_path / "whole.gpkg")
    for key in ("counts", "unmapped_layers", "dropped_layers", "contour_ids"):
        assert filtered.get(key) == whole.get(key), key
    assert filtered["unmapped_layers"]["V-NODE-SPOT"] == 21_000 and filtered["dropped_layers"]["C-SSWR-PIPE"]["count"] == 9_000
    assert len(capsys.readouterr().out.splitlines()) < 30  # no line per entity
