"""``check --class major`` with its suggested moves, against the import floor: the demo (3 packs) and North Collins 269.00-6-11.

Each run is a fresh ``python -m stormwater_plugin check`` child of this script
under ``/usr/bin/time -v`` (CPU = user + system, which the machine's load
barely moves), and the floor is ``python -c "import geopandas, rasterio,
shapely, pyproj"`` in the same process tree, measured before the checks.
Bytecode: the machine sets ``PYTHONDONTWRITEBYTECODE=1``; the script
compiles the package and the site-packages once into a private
``PYTHONPYCACHEPREFIX`` (``out/bench/pycache``) and hands it to every child,
floor included, so no run pays for compiling. The standard library is
compiled there too: with a prefix set, Python reads no ``__pycache__`` beside
the sources, so the ~130 stdlib modules every run imports were compiled
afresh by each child (~0.4 s CPU in the floor and in each check alike, which
lowered every ratio); ``--no-stdlib`` still measures that way, to compare
with the figures taken before 2 December 2026.

Printed per run: the least CPU seconds of ``--repeat`` runs (the figure the
load disturbs least; the median beside it), its ratio to the floor's least
(targets: demo <= 2x, North Collins <= 3x), the load average, and the
moves (device, distance, verified) so that two versions can be compared
(``--json FILE`` writes them).

Usage::

    python benchmarks/bench_moves_major.py [--repeat 3] [--no-nc] [--json moves.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DEMO = ROOT / "resources" / "demo"
TARGETS = {"demo": 2.0, "nc": 3.0}


def main(argv: list[str] | None = None) -> int:
    import site
    import sysconfig

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-nc", action="store_true", help="skip North Collins")
    p.add_argument("--json", type=Path, help="write the moves of every run here")
    p.add_argument("--work", type=Path, default=ROOT / "out" / "bench")
    p.add_argument("--no-stdlib", action="store_true", help="leave the standard library out of the precompiled cache (the figures before 2 December 2026)")
    p.add_argument("--code", type=Path, default=ROOT, help="the checkout whose stormwater_plugin the children run (to compare two versions)")
    a = p.parse_args(argv)
    prefix = a.work / ("pycache-no-stdlib" if a.no_stdlib else "pycache")  # a cache of its own: never a stdlib compiled earlier
    prefix.mkdir(parents=True, exist_ok=True)
    os.environ["PYTHONPATH"] = str(a.code.resolve())
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(a.code / "stormwater_plugin"),
                    *[q for q in site.getsitepackages() if Path(q).is_dir()],
                    *([] if a.no_stdlib else [sysconfig.get_paths()["stdlib"]])], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from bench_realdata_bounds import NC_TEST_SITE, north_collins, timed  # noqa: F401 - the same placement as bench_realdata_bounds

    def cpu_of(cmd: list[str]) -> tuple[float, float, int]:
        runs = [timed(cmd, 600) for _ in range(a.repeat)]
        return min(r[4] for r in runs), statistics.median(r[4] for r in runs), runs[-1][2]

    floor_cpu, floor_med, _ = cpu_of([sys.executable, "-c", "import geopandas, rasterio, shapely, pyproj"])
    print(f"import floor: {floor_cpu:.2f} s CPU (least of {a.repeat}; median {floor_med:.2f}); load {os.getloadavg()[0]:.2f}; bytecode precompiled in {prefix}"
          f" ({'package and site-packages only' if a.no_stdlib else 'package, site-packages and the standard library'})", flush=True)
    cases: list[tuple[str, str, list[str]]] = []
    for pack in ("lgpc", "lake-george", "mamakating"):
        cases.append(("demo", f"demo {pack} major", [str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", pack]))
    if not a.no_nc:
        try:
            nc = north_collins(a.work, "269.00-6-11")
            for pack in ("lgpc", "lake-george"):
                cases.append(("nc", f"nc 269.00-6-11 {pack} major", [str(nc.package), *nc.args, "--jurisdiction", pack]))
        except (OSError, ImportError) as exc:
            print(f"North Collins skipped: {exc}")
    moves: dict[str, object] = {}
    for kind, name, args in cases:
        out = a.work / "moves" / a.code.resolve().name / name.replace(" ", "_")
        cmd = [sys.executable, "-m", "stormwater_plugin", "check", *args, "--class", "major", "--out", str(out)]
        cpu, med, code = cpu_of(cmd)
        doc = json.loads((out / "findings.json").read_text(encoding="utf-8")) if (out / "findings.json").exists() else {}
        mv = [(m.get("device", {}).get("id"), m.get("distance_ft"), m.get("verified"), m.get("possible")) for m in doc.get("moves", [])]
        moves[name] = doc.get("moves", [])
        ratio = cpu / floor_cpu
        ok = "met" if ratio <= TARGETS[kind] else "NOT met"
        print(f"{name:32s} {cpu:6.2f} s CPU (median {med:.2f}) = {ratio:4.2f}x floor (target {TARGETS[kind]:g}x: {ok}); exit {code}; load {os.getloadavg()[0]:.2f}; moves {mv}", flush=True)
    if a.json:
        a.json.write_text(json.dumps(moves, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
