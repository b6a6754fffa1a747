"""Generate a synthetic town for batch screening: N site parcels in a grid, a DEM and a shoreline.

The generator is ``tests/headless/synthetic_town.py`` (the batch tests build their towns with it); this
script is its command line, so the benchmark and the tests share one copy. See that module for what a
town holds (lots of about 100 x 150 ft with a device, a well, a septic field, a building site and a
disturbance each; a Lake George shoreline on the east; EPSG:32618; nothing real).

Usage::

    python benchmarks/make_synthetic_town.py --sites 1000 --out out/town1000
    # -> out/town1000/town.gpkg, out/town1000/dem.tif
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for the tests package

from tests.headless.synthetic_town import main, town_layers, write_town  # noqa: E402

__all__ = ["main", "town_layers", "write_town"]

if __name__ == "__main__":
    sys.exit(main())
