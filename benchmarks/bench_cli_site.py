"""One site end to end through the CLI, against the bare cost of importing the libraries it stands on.

The floor is ``python -c "import geopandas, rasterio, shapely, pyproj"``,
measured in the same run. Each command runs ``--repeat`` times, round-robin
(so drift in the machine's load hits every command alike); the script prints
each median wall time and its ratio to the floor's median. Target: within 2x.

Commands (the bundled demo site, ``resources/demo``):

- ``check`` on the demo (Lake George, class computed): findings.json,
  findings.gpkg and the move suggestions, the default;
- the same with ``--class major`` (a major project: 500 ft notification list,
  wider setbacks, more moves to compute);
- the demo with ``--report`` as ``make demo`` runs it (adds the HTML/PDF review
  report, its maps and the notification package) — outside the target, shown
  for information.

Usage::

    python benchmarks/bench_cli_site.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo"
TARGET = 2.0


def _wall(cmd: list[str]) -> tuple[float, int]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[:300]}")
    return dt, proc.returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args(argv)
    py = sys.executable
    if not (DEMO / "site.gpkg").exists() or not (DEMO / "dem.tif").exists():
        subprocess.run([py, str(ROOT / "scripts" / "make_demo_site.py"), "--out", str(DEMO)], check=True, cwd=ROOT)
    help_text = subprocess.run([py, "-m", "stormwater_plugin", "check", "--help"], cwd=ROOT, capture_output=True, text=True).stdout
    out = Path(tempfile.mkdtemp(prefix="bench_cli_"))
    base = [py, "-m", "stormwater_plugin", "check", str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--quiet"]
    commands: dict[str, list[str]] = {
        "floor: import geopandas, rasterio, shapely, pyproj": [py, "-c", "import geopandas, rasterio, shapely, pyproj"],
        "demo site (findings)": base + ["--out", str(out / "a")],
        "demo site --class major": base + ["--class", "major", "--out", str(out / "b")],
    }
    if "--report" in help_text:
        commands["demo site --report (make demo; not in the target)"] = base + ["--report", "--out", str(out / "c")]
    for cmd in commands.values():  # warm the file cache and byte-code
        _wall(cmd)
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(a.repeat):
        for name, cmd in commands.items():
            times[name].append(_wall(cmd)[0])
    floor_name = next(iter(commands))
    floor = statistics.median(times[floor_name])
    print(f"median of {a.repeat} runs each, {py}")
    for name, ts in times.items():
        med = statistics.median(ts)
        verdict = "" if name == floor_name else f" -> {med / floor:.2f} x floor ({'within' if med / floor <= TARGET else 'over'} the {TARGET:g}x target)"
        print(f"{name:<52} {med:6.3f} s (min {min(ts):.3f}){verdict}")
    for name in list(commands)[1:]:
        _phases(name, commands[name], out)
    return 0


#: Stages of ``run_check_command`` worth naming (function name -> label); absent ones are skipped.
PHASES = {
    "run_check_command": "whole command (after start-up)",
    "read_site": "read layers + DEM",
    "run_check": "run_check (the engine)",
    "suggest_moves": "move suggestions (siting)",
    "write_document": "write findings.json",
    "write_gpkg": "write findings.gpkg",
    "finish_check": "review report package",
}


def _phases(name: str, cmd: list[str], out: Path) -> None:
    """One profiled run of a command: cumulative seconds of its main stages."""
    prof = out / "phases.prof"
    prof_cmd = [cmd[0], "-m", "cProfile", "-o", str(prof)] + cmd[1:]
    subprocess.run(prof_cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not prof.exists():
        return
    stats = pstats.Stats(str(prof)).stats  # type: ignore[attr-defined]
    got: dict[str, float] = {}
    for (filename, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.items():
        if func in PHASES and "stormwater_plugin" in filename:
            got[func] = max(got.get(func, 0.0), ct)
    parts = ", ".join(f"{PHASES[f]} {got[f]:.2f} s" for f in PHASES if f in got)
    print(f"  where the time goes, {name} (one profiled run, cProfile adds overhead): {parts}")
    prof.unlink()


if __name__ == "__main__":
    sys.exit(main())
