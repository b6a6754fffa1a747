"""The ground at the two ends of a setback's shortest line (``checks.setbacks._elevations``), sampled without arrays
since #39, is the former reading's bit for bit: the ends sampled together through ``ElevationGrid.sample``."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks.context import CheckContext
from stormwater_plugin.core.checks.setbacks import _elevations
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.services.packs import load_pack

_VALUES = np.random.default_rng(11).normal(320.0, 25.0, (8, 10))
_VALUES[3, 4] = np.nan
_PACK = load_pack("lake-george")


def _former(dem: ElevationGrid, line) -> tuple[float | None, float | None, float | None]:
    coords = shapely.get_coordinates(line)
    z = dem.sample(coords[[0, -1], 0], coords[[0, -1], 1])
    z_dev = float(z[0]) if math.isfinite(z[0]) else None
    z_tgt = float(z[1]) if math.isfinite(z[1]) else None
    if z_dev is None or z_tgt is None:
        return z_dev, z_tgt, None
    return z_dev, z_tgt, z_dev - z_tgt


_coord = st.one_of(st.floats(-1.0, 11.0, allow_nan=False), st.integers(-1, 22).map(lambda k: k / 2))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=200, deadline=None)
@given(ends=st.tuples(_coord, _coord, _coord, _coord), z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), origin=st.sampled_from([(0.0, 8.0), (608_171.0, 4_817_304.0)]),
       shifted=st.booleans())
def test_the_ends_ground_is_the_former_readings_bit_for_bit(ends, z_to_ft, origin, shifted):
    x0, y0 = origin
    gt = (x0, 1.0, 0.0, y0, 0.0, -1.0)
    kw = {"to_raster": lambda x, y: (np.asarray(x) + 0.25, np.asarray(y) - 0.5)} if shifted else {}
    dem = ElevationGrid(_VALUES, gt, z_to_ft=z_to_ft, **kw)
    ctx = CheckContext({}, dem, 1.0, "minor", _PACK)
    line = shapely.LineString([(x0 + ends[0], y0 - ends[1]), (x0 + ends[2], y0 - ends[3])])
    got, former = _elevations(ctx, line), _former(dem, line)
    assert [None if v is None else np.float64(v).tobytes() for v in got] == [None if v is None else np.float64(v).tobytes() for v in former]
    assert all(v is None or type(v) is float for v in got)
