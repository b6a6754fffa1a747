"""In-process check time (what the plugin waits for): ``run_check`` on a 20-feature site with a 400 x 400 m, 1 m DEM.

The site is synthetic, in a metres working CRS: a site parcel and 5
neighbours, 4 devices, 2 wells, 2 septic fields, the Lake George shoreline, 2
building sites, a lawn clearing, a disturbance and a proposed house (20
features), over a 400 x 400 pixel :class:`ElevationGrid` of tilted, undulating
ground. Each pack runs once to warm up, then ``--repeat`` times; the script
prints the median and its ratio to the 0.5 s target (ratio < 1 meets it).

Usage::

    python benchmarks/bench_in_process.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_S = 0.5
FT = 0.3048


def synthetic_site() -> tuple[object, int]:
    """SiteInputs of the 20-feature site (metres), and its feature count."""
    from shapely.geometry import LineString, Point, box

    from stormwater_plugin.core.model import FeatureLayer, SiteInputs
    from stormwater_plugin.core.raster import ElevationGrid

    size, cell = 400.0, 1.0
    n = int(size / cell)
    cx = (np.arange(n) + 0.5) * cell
    cy = size - (np.arange(n) + 0.5) * cell
    gx, gy = np.meshgrid(cx, cy)
    z = 98.5 + 0.07 * (330.0 - gx) + 1.5 * np.sin(gx / 31.0) * np.cos(gy / 43.0)  # metres, down to the lake in the east
    dem = ElevationGrid(z, (0.0, cell, 0.0, size, 0.0, -cell), z_to_ft=1 / FT, cell_size_ft=(cell / FT, cell / FT), name="synthetic 1 m DEM")

    def fl(role: str, items: list[tuple[object, dict]]) -> FeatureLayer:
        return FeatureLayer.from_sequences(role, [g for g, _ in items], [a["id"] for _, a in items], [a for _, a in items])

    owner = {"owner": "A. Owner", "mailing_address": "1 Lake Shore Dr, Bolton Landing, NY"}
    layers = {
        "parcels": fl(
            "parcels",
            [(box(200, 170, 300, 230), {"id": "SITE", "is_site": 1, **owner})]
            + [(box(x, y, x + 100, y + 60), {"id": f"N{k}", **owner}) for k, (x, y) in enumerate([(200, 230), (200, 110), (100, 170), (100, 230), (100, 110)])],
        ),
        "devices": fl(
            "devices",
            [
                (Point(240, 200), {"id": "DW-1", "device_type": "dry_well", "high_traffic": 0, "storage_gal": 600}),
                (Point(262, 185), {"id": "IT-1", "device_type": "infiltration_trench", "high_traffic": 1}),
                (box(270, 210, 285, 222), {"id": "PP-1", "device_type": "porous_pavement", "high_traffic": 0}),
                (Point(225, 215), {"id": "VD-1", "device_type": "vegetated_depression", "high_traffic": 0}),
            ],
        ),
        "wells": fl("wells", [(Point(215, 180), {"id": "W-1"}), (Point(250, 250), {"id": "W-2"})]),
        "septic": fl("septic", [(box(248, 190, 256, 198), {"id": "S-1"}), (box(150, 200, 160, 210), {"id": "S-2"})]),
        "shoreline": fl("shoreline", [(LineString([(330, 0), (334, 200), (330, 400)]), {"id": "MHW", "waterbody": "Lake George"})]),
        "building_sites": fl("building_sites", [(box(220, 190, 235, 205), {"id": "B-1", "use": "single_family"}), (box(205, 210, 215, 222), {"id": "B-2", "use": "accessory"})]),
        "clearing": fl("clearing", [(box(290, 175, 300, 225), {"id": "C-1", "use": "lawn"})]),
        "disturbance": fl("disturbance", [(box(215, 185, 250, 215), {"id": "DIST"})]),  # 11,300 sq ft: minor
        "impervious": fl("impervious", [(box(222, 192, 233, 203), {"id": "HOUSE", "status": "proposed"})]),
    }
    count = sum(len(v) for v in layers.values())
    return SiteInputs(layers=layers, dem=dem, unit_to_ft=1 / FT, crs_name="synthetic metres"), count


def main(argv: list[str] | None = None) -> int:
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.rulepack import load_pack

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args(argv)
    notes: set[str] = set()
    warnings.showwarning = lambda message, category, *_a, **_k: notes.add(f"{category.__name__}: {message}")  # once each, at the end
    inputs, count = synthetic_site()
    print(f"site: {count} features, DEM {inputs.dem.shape[1]} x {inputs.dem.shape[0]} pixels of 1 m; target {TARGET_S} s")
    worst = 0.0
    for jurisdiction, cls in (("lake-george", None), ("lgpc", "major"), ("lake-george", "major"), ("mamakating", None)):
        inputs.class_override = cls
        pack = load_pack(jurisdiction)
        result = run_check(inputs, pack)  # warm-up (imports, caches)
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            run_check(inputs, pack)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        worst = max(worst, med)
        c = result.counts()
        print(
            f"{jurisdiction:<12} class {result.project_class:<6} median {med * 1000:7.1f} ms (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}; "
            f"{len(result.findings)} findings, {c['violation']} violation) -> {med / TARGET_S:.2f} x target"
        )
    for note in sorted(notes):
        print(f"(seen while checking: {note})")
    print(f"worst median {worst * 1000:.1f} ms = {worst / TARGET_S:.2f} x the {TARGET_S} s target: {'MET' if worst < TARGET_S else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
