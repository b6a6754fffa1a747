"""Issue 26: the cost of a check (with moves) and of an envelope must not grow with features beyond every rule's reach.

Writes the demo site package with N extra wetlands placed 1,000-6,000 ft from the site (beyond every
setback and every siting reach; the Lake George packs' rules do not trace flow), then runs
``stormwater-check check --class major`` (violations, so moves are searched) and ``envelope`` as fresh
processes under ``/usr/bin/time -v`` and prints CPU seconds, peak RSS and the ratio to the run with no
far wetlands. Seed printed. Target: at most 2x the CPU of the run without them, under 500 MB.

Usage: python benchmarks/bench_far_features.py [--counts 0 1000 10000] [--seed 26]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import fiona
import numpy as np
from shapely.geometry import Polygon, mapping

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo"


def write_site(path: Path, n_far: int, rng: np.random.Generator) -> None:
    """Copy the demo package to ``path`` and add ``n_far`` small wetlands far from the site."""
    for layer in fiona.listlayers(str(DEMO / "site.gpkg")):
        with fiona.open(str(DEMO / "site.gpkg"), layer=layer) as src:
            meta = src.meta
            feats = list(src)
            if layer == "wetlands":
                cx, cy = 608260.0, 4817210.0  # the demo site parcel's neighbourhood (UTM 18N metres)
                for k in range(n_far):
                    r = rng.uniform(1000.0, 6000.0) * 0.3048
                    a = rng.uniform(0.0, 2.0 * math.pi)
                    x, y = cx + r * math.cos(a), cy + r * math.sin(a)
                    s = rng.uniform(3.0, 15.0)
                    poly = Polygon([(x, y), (x + s, y), (x + s, y + s * 0.7), (x, y + s)])
                    feats.append({"type": "Feature", "geometry": mapping(poly), "properties": {"id": f"FAR-{k}", "name": None}})
        with fiona.open(str(path), "w", layer=layer, **meta) as dst:
            dst.writerecords(feats)


def timed(cmd: list[str]) -> tuple[float, float, int]:
    """(CPU seconds, peak RSS MB, exit code) of one fresh process."""
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env={**os.environ})
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", proc.stderr).group(1))  # type: ignore[union-attr]
    sys_t = float(re.search(r"System time \(seconds\): ([\d.]+)", proc.stderr).group(1))  # type: ignore[union-attr]
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024  # type: ignore[union-attr]
    return user + sys_t, rss, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", type=int, nargs="+", default=[0, 1000, 10000])
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()
    print(f"seed {args.seed}; load average {os.getloadavg()[0]:.2f}")
    exe = [sys.executable, "-m", "stormwater_plugin"]
    base: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.counts:
            site = Path(tmp) / f"site_{n}.gpkg"
            write_site(site, n, np.random.default_rng(args.seed))
            runs = {
                "check --class major (moves)": [*exe, "check", str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--class", "major", "--out", f"{tmp}/c{n}"],
                "envelope dry_well": [*exe, "envelope", str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", f"{tmp}/e{n}"],
            }
            for name, cmd in runs.items():
                cpu, rss, code = timed(cmd)
                if n == args.counts[0]:
                    base[name] = cpu
                ratio = cpu / base[name] if base.get(name) else float("nan")
                flag = "" if (ratio <= 2.0 and rss < 500) else "  <-- over target"
                print(f"{n:>7} far wetlands  {name:<28} cpu {cpu:6.2f} s  peak {rss:6.0f} MB  x{ratio:4.2f}  exit {code}{flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
