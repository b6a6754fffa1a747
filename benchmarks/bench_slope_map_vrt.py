"""Benchmark: the slope-map CLI on a 30000 × 30000 VRT mosaic of real terrain: peak memory (not a test; minutes).

DEM: East Chatham (realdata, 2.5 m from 10 ft contours) upsampled to 1 m
(``gdal_translate -r cubic``), cropped to its full-data part (2261 × 1450)
and repeated as the tiles of a VRT of ``--size``² cells (900 M by default).
Runs the CLI (file to file, certified at the pack's 15 %) under
``/usr/bin/time -v`` and prints its wall time and peak resident memory
(target under 2 GB), and ``gdaldem slope -p`` on the same VRT for scale
(``--no-gdaldem`` skips it). The output GeoTIFF (3.6 GB at 30000²) is written
to a temporary folder and deleted.

Usage::

    .venv/bin/python benchmarks/bench_slope_map_vrt.py [--size 30000] [--no-gdaldem]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata" / "east-chatham-ny" / "dem_from_iso-10ft_contours_2.5m_DERIVED.tif"


def vrt_xml(tile: Path, tw: int, th: int, size: int, srs_wkt: str) -> str:
    parts = [f'<VRTDataset rasterXSize="{size}" rasterYSize="{size}">',
             f"  <SRS>{srs_wkt.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</SRS>",
             "  <GeoTransform>600000, 1, 0, 4700000, 0, -1</GeoTransform>",
             '  <VRTRasterBand dataType="Float32" band="1">', "    <NoDataValue>-9999</NoDataValue>"]
    for y0 in range(0, size, th):
        for x0 in range(0, size, tw):
            w, h = min(tw, size - x0), min(th, size - y0)
            parts.append(f'    <SimpleSource><SourceFilename relativeToVRT="0">{tile}</SourceFilename><SourceBand>1</SourceBand>'
                         f'<SrcRect xOff="0" yOff="0" xSize="{w}" ySize="{h}"/><DstRect xOff="{x0}" yOff="{y0}" xSize="{w}" ySize="{h}"/></SimpleSource>')
    parts += ["  </VRTRasterBand>", "</VRTDataset>"]
    return "\n".join(parts)


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) from /usr/bin/time -v, and the command's stderr/stdout tail."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return wall, (int(m.group(1)) / 1024.0 if m else float("nan")), (p.stdout + p.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=30000)
    ap.add_argument("--no-gdaldem", action="store_true")
    args = ap.parse_args()
    if not REAL.exists() or not Path("/usr/bin/time").exists():
        print("needs ../shared/realdata and /usr/bin/time")
        return 2
    import rasterio

    with tempfile.TemporaryDirectory() as tmp:
        up = Path(tmp) / "up.tif"
        tile = Path(tmp) / "tile.tif"
        subprocess.run(["gdal_translate", "-q", "-r", "cubic", "-tr", "1", "1", str(REAL), str(up)], check=True)
        subprocess.run(["gdal_translate", "-q", "-srcwin", "102", "130", "2261", "1450", "-co", "TILED=YES", str(up), str(tile)], check=True)
        with rasterio.open(tile) as s:
            tw, th, wkt = s.width, s.height, s.crs.to_wkt()
        vrt = Path(tmp) / "mosaic.vrt"
        vrt.write_text(vrt_xml(tile, tw, th, args.size, wkt))
        out = Path(tmp) / "slope.tif"
        cli = [sys.executable, "-m", "stormwater_plugin.cli", "slope-map", str(vrt), "--out", str(out), "--dem-z-units", "m"]
        t_ours, rss, log = timed(cli)
        lines = [ln for ln in log.splitlines() if "cells have a value" in ln]
        os.remove(out)
        t_gd = rss_gd = float("nan")
        if not args.no_gdaldem:
            gd_out = Path(tmp) / "gd.tif"
            t_gd, rss_gd, _ = timed(["gdaldem", "slope", "-p", "-q", str(vrt), str(gd_out)])
    print(f"VRT mosaic of real terrain (East Chatham 1 m tile {tw} x {th}) {args.size} x {args.size} = {args.size * args.size / 1e6:.0f} M cells, "
          f"{os.cpu_count()} CPU(s)")
    print(f"slope-map CLI    : {t_ours:7.1f} s   peak RSS {rss:7.0f} MB (target < 2048)")
    if lines:
        print(f"  {lines[-1].strip()}")
    if not args.no_gdaldem:
        print(f"gdaldem slope -p : {t_gd:7.1f} s   peak RSS {rss_gd:7.0f} MB   ratio {t_ours / t_gd:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
