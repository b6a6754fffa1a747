"""Archives are decompressed within a size and ratio budget before GDAL parses them (issue 35 item 6).

The KMZs are made to the pattern of the one that took 3.2 GB: a doc.kml whose description is one long run of
spaces, compressed about a thousand times. The 1.5 GB case is run by hand under /usr/bin/time -v (98 MB peak,
1.5 s, refused by its declared size); here a 40 MB one is refused by the stream check (it declares its size
honestly, but expands 1,000 times), and an ordinary KMZ reads.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.headless.archive_budget import archive_of, check_archive
from stormwater_plugin.headless.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "site.gpkg"

HEAD = (b'<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>W-9</name>'
        b"<description>")
TAIL = b"</description><Point><coordinates>-73.7,43.5</coordinates></Point></Placemark></Document></kml>"


def _kmz(path: Path, filler_mb: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf, zf.open("doc.kml", "w") as fh:
        fh.write(HEAD)
        for _ in range(filler_mb):
            fh.write(b" " * (1 << 20))
        fh.write(TAIL)
    return path


def test_a_kmz_expanding_a_thousand_times_is_refused_in_one_line_before_gdal_reads_it(tmp_path, capsys):
    bomb = _kmz(tmp_path / "wells.kmz", 40)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match="expands more than 200 times"):
        check_archive(bomb)
    code = main(["check", str(DEMO), "--layer", f"wells={bomb}", "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "wells.kmz" in err and "bug" not in err and len(err.strip().splitlines()) <= 2


def test_an_archive_past_the_size_budget_is_refused_by_its_declared_size(tmp_path, monkeypatch):
    monkeypatch.setenv("STORMWATER_ARCHIVE_MAX_BYTES", str(8 * 1024 * 1024))
    with pytest.raises(InputError, match="expand to 10 MiB"):
        check_archive(_kmz(tmp_path / "big.kmz", 10))


def test_an_ordinary_kmz_and_a_vsizip_path_pass_the_budget(tmp_path):
    small = _kmz(tmp_path / "wells.kmz", 0)
    check_archive(small)
    assert archive_of(tmp_path / "x.shp") is None
    assert archive_of(Path("/vsizip/a/b.zip/c.shp"), "/vsizip//data/plan.ZIP/septic.shp") == Path("/data/plan.ZIP")
