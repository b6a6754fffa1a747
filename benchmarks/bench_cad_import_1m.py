"""Issue 35 item 6: ``stormwater-check import-cad`` on a drawing of 1,000,000 entities, under 30 s.

The drawing is the demo site plan (``tests/headless/cad_drawings.py``, written by ezdxf) with N further
entities in the proportions a civil drawing has them: survey points and topographic lines on layers the
mapping drops (``V-NODE-SPOT``, ``C-TOPO-GRID``), utility lines on layers it does not know
(``E-LITE-WIRE``, ``C-SSWR-PIPE``), and contour polylines (``V-TOPO-MINR``), spread over the site's
neighbourhood. ezdxf writes the base plan; the bulk entities are appended to its ENTITIES section as
group-code text (ezdxf would hold a million entity objects in memory to write them). Cached in /tmp.
The import runs as a fresh process under ``/usr/bin/time -v``; wall, CPU and peak RSS are printed with
the time ``python -c "import fiona, shapely, pyproj"`` takes in the same run.

Usage: python benchmarks/bench_cad_import_1m.py [--entities 1000000] [--seed 35]
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

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (layer, kind, share): what the bulk entities are.
BULK = (("V-NODE-SPOT", "POINT", 0.35), ("C-TOPO-GRID", "LINE", 0.25), ("E-LITE-WIRE", "LINE", 0.15), ("C-SSWR-PIPE", "LINE", 0.15),
        ("V-TOPO-MINR", "LWPOLYLINE", 0.10))


def _entity(kind: str, layer: str, handle: int, x: float, y: float, owner: str) -> str:
    head = f"  0\n{kind}\n  5\n{handle:X}\n330\n{owner}\n100\nAcDbEntity\n  8\n{layer}\n"
    if kind == "POINT":
        return head + f"100\nAcDbPoint\n 10\n{x:.3f}\n 20\n{y:.3f}\n 30\n0.0\n"
    if kind == "LINE":
        return head + f"100\nAcDbLine\n 10\n{x:.3f}\n 20\n{y:.3f}\n 30\n0.0\n 11\n{x + 7.5:.3f}\n 21\n{y + 3.0:.3f}\n 31\n0.0\n"
    pts = "".join(f" 10\n{x + 5.0 * k:.3f}\n 20\n{y + 2.0 * (k % 2):.3f}\n" for k in range(4))
    return head + f"100\nAcDbPolyline\n 90\n4\n 70\n0\n 38\n{100.0 + (handle % 50):.1f}\n" + pts


def write_drawing(path: Path, n: int, seed: int) -> Path:
    """The demo plan with ``n`` bulk entities appended (see the module docstring)."""
    import ezdxf

    from tests.headless.cad_drawings import demo_plan_dxf

    base = demo_plan_dxf(path.with_suffix(".base.dxf"))
    doc = ezdxf.readfile(base)
    owner = doc.modelspace().block_record_handle
    xs = [p[0] for e in doc.modelspace().query("LWPOLYLINE[layer=='C-PROP-LINE']") for p in e.get_points("xy")]
    ys = [p[1] for e in doc.modelspace().query("LWPOLYLINE[layer=='C-PROP-LINE']") for p in e.get_points("xy")]
    cx, cy = float(np.mean(xs)), float(np.mean(ys))
    handle = int(doc.header.get("$HANDSEED", "FFFF"), 16) + 16
    seed_text = f"$HANDSEED\n  5\n{doc.header.get('$HANDSEED')}\n"
    text = base.read_text(encoding="utf-8").replace(seed_text, f"$HANDSEED\n  5\n{handle + n + 16:X}\n")
    m = re.search(r"\n  0\nSECTION\n  2\nENTITIES\n", text)
    assert m is not None
    end = text.index("\n  0\nENDSEC\n", m.end())
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text[: end + 1])
        for layer, kind, share in BULK:
            k = int(round(n * share))
            px = cx + rng.uniform(-1500.0, 1500.0, k)
            py = cy + rng.uniform(-1500.0, 1500.0, k)
            fh.write("".join(_entity(kind, layer, handle + i, float(x), float(y), owner) for i, (x, y) in enumerate(zip(px, py))))
            handle += k
        fh.write(text[end + 1:])
    return path


def timed(cmd: list[str]) -> dict[str, float]:
    """Wall, CPU seconds and peak RSS (MB) of ``cmd`` under /usr/bin/time -v."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        print(p.stdout[-2000:], p.stderr[-3000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    f = {k: float(v) for k, v in re.findall(r"\s*(User time \(seconds\)|System time \(seconds\)|Maximum resident set size \(kbytes\)): ([\d.]+)", p.stderr)}
    return {"wall": wall, "cpu": f["User time (seconds)"] + f["System time (seconds)"], "rss_mb": f["Maximum resident set size (kbytes)"] / 1024,
            "lines": float(len(p.stdout.splitlines()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args()
    drawing = Path(tempfile.gettempdir()) / f"stormwater_bench_cad_{args.entities}_{args.seed}.dxf"
    if not drawing.is_file():
        t = time.perf_counter()
        write_drawing(drawing, args.entities, args.seed)
        print(f"wrote {drawing} ({drawing.stat().st_size / 2**20:,.0f} MB) in {time.perf_counter() - t:.1f} s")
    env_py = sys.executable
    floor = timed([env_py, "-c", "import fiona, shapely, pyproj"])
    out = Path(tempfile.mkdtemp()) / "site.gpkg"
    run = timed([env_py, "-m", "stormwater_plugin", "import-cad", str(drawing), "--crs", "EPSG:2260", "--out", str(out)])
    print(f"import floor: {floor['wall']:.2f} s wall, {floor['cpu']:.2f} s CPU")
    print(f"import-cad, {args.entities:,} entities (seed {args.seed}): {run['wall']:.1f} s wall, {run['cpu']:.1f} s CPU, "
          f"{run['rss_mb']:,.0f} MB peak, {run['lines']:.0f} lines printed; load average {os.getloadavg()[0]:.1f}; target under 30 s")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
