"""Measure the windowed Mamakating flow trace on a 20,000 x 20,000 DEM (issue 13/14).

Usage::

    python benchmarks/flow_trace_windows.py write DIR      # the DEM (tiled GeoTIFF, written in pieces) and the site
    /usr/bin/time -v python benchmarks/flow_trace_windows.py check DIR

``check`` runs the Mamakating pack on the site (a wetland 1 km downstream)
and prints the finding and every window the trace read.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

N = 20_000

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    what, folder = sys.argv[1], Path(sys.argv[2])
    if what == "write":
        from tests.headless.test_flow_trace_windows_cli import write_dem, write_site

        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        write_dem(folder / "dem.tif", N)
        write_site(folder / "site.gpkg", N)
        print(f"wrote {N} x {N} in {time.perf_counter() - t:.1f} s")
    else:
        from stormwater_plugin.core.engine import run_check
        from stormwater_plugin.core.rulepack import load_pack
        from stormwater_plugin.headless.reader import read_site

        t = time.perf_counter()
        pack = load_pack("mamakating")
        loaded = read_site(folder / "site.gpkg", [], folder / "dem.tif", None, None, None, pack=pack)
        t_read = time.perf_counter() - t
        result = run_check(loaded.inputs, pack)
        t_all = time.perf_counter() - t
        (f,) = [x for x in result.findings if x.rule_id == "mamakating.upstream-of-wetland"]
        src = loaded.inputs.dem_source
        assert loaded.inputs.dem is not None and src is not None
        print(f"finding: {f.status.value}: {f.message}")
        print(f"reader's fixed window: {loaded.inputs.dem.shape} ({loaded.inputs.dem.values.size:,} cells) of {src.shape}")
        for w in src.reads:
            print(f"trace window: rows {w.row0}-{w.row1}, cols {w.col0}-{w.col1} ({w.cells:,} cells)")
        total = src.shape[0] * src.shape[1]
        print(f"largest window {max(w.cells for w in src.reads) / total:.2%} of the raster; read {t_read:.2f} s, total {t_all:.2f} s")
