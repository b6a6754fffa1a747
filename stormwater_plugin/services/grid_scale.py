"""The grid scale factor of a projected CRS at a point: one computation for the file reader and the plugin.

Grid distances divided by the point scale factor (grid length / ellipsoidal
length) are distances on the ellipsoid, so UTM, State Plane and any other
projection report the same feet. The adapters (``headless.crs`` with pyproj,
``qgis_bridge.crs`` with QGIS) only supply the projection as a callable and
the CRS's ellipsoid and linear unit; the number is computed here.

The factor is the mean of the meridional scale ``h`` and the parallel scale
``k`` (equal for a conformal projection). Both come from the derivatives of
the projection with respect to latitude and longitude, by a seven-point
central difference (error of order step⁶) over steps of
:data:`STEP_M` on the ground, divided by the ellipsoid's meridional radius
``M`` and the parallel's radius ``N cos φ``. Against the closed form of the
ellipsoidal Mercator and PROJ's own factors this is accurate to about 1e-13
(tests/core/test_grid_scale.py); the truncation error of the difference is
below 1e-17 and the rest is the rounding of the projected coordinates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.errors import StormwaterError
from ..core.units import known_metres
from .working_crs import plausible_scale

#: The difference step on the ground, metres: long enough that the rounding of coordinates of millions of units
#: (about 1e-9 m) costs under 1e-12, short enough that the seven-point difference's truncation is below 1e-17.
STEP_M: float = 5000.0
#: Seven-point central difference: f'(x) ≈ Σ w_j (f(x + j h) - f(x - j h)) / h.
_WEIGHTS: tuple[tuple[int, float], ...] = ((1, 45.0 / 60.0), (2, -9.0 / 60.0), (3, 1.0 / 60.0))

#: Geodetic longitudes and latitudes (degrees, on the CRS's own datum) to grid x and y (the CRS's unit).
ToGrid = Callable[[Sequence[float], Sequence[float]], tuple[Sequence[float], Sequence[float]]]
#: Grid x and y (the CRS's unit) to the geodetic longitude and latitude (degrees, the CRS's own datum).
ToGeodetic = Callable[[float, float], tuple[float, float]]


@dataclass(frozen=True)
class Ellipsoid:
    """An ellipsoid by its semi-major axis and inverse flattening.

    Attributes
    ----------
    semi_major_m : float
        Equatorial radius, metres.
    inverse_flattening : float
        ``a / (a - b)``; 0 or infinite for a sphere.
    """

    semi_major_m: float
    inverse_flattening: float

    @property
    def e2(self) -> float:
        """First eccentricity squared (0 for a sphere)."""
        invf = self.inverse_flattening
        if not math.isfinite(invf) or invf == 0.0:
            return 0.0
        f = 1.0 / invf
        return f * (2.0 - f)

    def radii(self, lat_deg: float) -> tuple[float, float]:
        """Meridional radius ``M`` and the parallel's radius ``N cos φ`` at a latitude, metres."""
        phi = math.radians(lat_deg)
        s = math.sin(phi)
        w2 = 1.0 - self.e2 * s * s
        n = self.semi_major_m / math.sqrt(w2)
        return n * (1.0 - self.e2) / w2, n * math.cos(phi)


def point_scale(to_grid: ToGrid, lon: float, lat: float, unit_m: float, ellipsoid: Ellipsoid) -> float:
    """Point scale factor of a projection at a geodetic longitude/latitude (grid length / ellipsoidal length).

    Parameters
    ----------
    to_grid : callable
        The projection: geodetic longitudes and latitudes (degrees, on the
        CRS's own datum; no datum shift, which would add its own scale) to
        grid x and y in the CRS's unit.
    lon, lat : float
        The point, degrees.
    unit_m : float
        The CRS's linear unit in metres (a known unit's value one bit off is taken as its constant,
        :func:`~stormwater_plugin.core.units.known_metres`).
    ellipsoid : Ellipsoid
        The CRS's ellipsoid.

    Returns
    -------
    float
        The mean of the meridional and parallel scales; 1 (grid distances)
        when it cannot be computed or is implausible
        (:func:`~stormwater_plugin.services.working_crs.plausible_scale`).
    """
    if not (math.isfinite(lon) and math.isfinite(lat)) or abs(lat) >= 89.0 or unit_m <= 0 or ellipsoid.semi_major_m <= 0:
        return 1.0
    d = math.degrees(STEP_M / ellipsoid.semi_major_m)  # one step in degrees of latitude and of longitude
    steps = [j * d for j, _ in _WEIGHTS]
    lons = [lon + s for s in steps] + [lon - s for s in steps] + [lon] * (2 * len(steps))
    lats = [lat] * (2 * len(steps)) + [lat + s for s in steps] + [lat - s for s in steps]
    try:
        xs, ys = to_grid(lons, lats)
        unit = known_metres(unit_m)
        x = [float(v) * unit for v in xs]
        y = [float(v) * unit for v in ys]
    except StormwaterError:
        raise  # the transformation itself is unusable (TransformUnavailable): never measured as grid distances without a word
    except Exception:  # noqa: BLE001 - the adapter's library refuses the point (pyproj's ProjError, QGIS's QgsCsException): grid distances
        return 1.0
    n = len(steps)
    h_rad = math.radians(d)

    def derivative(v: list[float], plus: int) -> float:
        return sum(w * (v[plus + i] - v[plus + n + i]) for i, (_, w) in enumerate(_WEIGHTS)) / h_rad

    m_radius, p_radius = ellipsoid.radii(lat)
    parallel = math.hypot(derivative(x, 0), derivative(y, 0)) / p_radius
    meridional = math.hypot(derivative(x, 2 * n), derivative(y, 2 * n)) / m_radius
    return plausible_scale((meridional + parallel) / 2.0)


def grid_point_scale(to_geodetic: ToGeodetic, to_grid: ToGrid, x: float, y: float, unit_m: float, ellipsoid: Ellipsoid) -> float:
    """:func:`point_scale` at the grid point ``(x, y)`` (the CRS's unit), located by the inverse projection ``to_geodetic``."""
    if not (math.isfinite(x) and math.isfinite(y)):
        return 1.0
    try:
        lon, lat = to_geodetic(x, y)
    except StormwaterError:
        raise
    except Exception:  # noqa: BLE001 - the adapter's library refuses the point: grid distances
        return 1.0
    return point_scale(to_grid, float(lon), float(lat), unit_m, ellipsoid)


__all__ = ["STEP_M", "Ellipsoid", "ToGeodetic", "ToGrid", "grid_point_scale", "point_scale"]
