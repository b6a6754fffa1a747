"""The slope mask drawn with a check's results: cells of the check's DEM window at or over the slope threshold.

The map is :func:`~stormwater_plugin.core.terrain.ring_slope_map` (the same
ring measure as the building-site check) over the DEM window the check already
read, on the DEM's own grid, certified at the rule's rounding edge (a cell
whose slope rounds to the threshold is steep, as a building site there is);
cells at or over the threshold become polygons by the front end's polygonizer
(the plugin's is GDAL's, QGIS's own ``osgeo``) and are mapped into the working
CRS. Distance, threshold and comparison are the parameters of the pack's
``building_site_slope`` rule (the LGPC pack's when the jurisdiction has no such
rule): the code holds no regulatory number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from shapely.geometry.base import BaseGeometry

from ..core.model import SiteInputs
from ..core.raster import ElevationGrid
from ..core.roles import TERRAIN_EXTENT_ROLES
from ..core.rulepack import PackError, load_pack
from ..core.terrain import ground_to_pixel_projected, local_jacobian, ring_slope_map
from .slope import certified_at, slope_params, slope_rule, steep_cells

#: Turns a boolean mask on a geotransform into polygons (WKB), e.g. ``qgis_bridge.polygonize.polygonize_mask``.
Polygonizer = Callable[[np.ndarray, tuple[float, float, float, float, float, float]], Iterable[bytes]]

#: Most DEM cells mapped on the main thread; a larger window is cropped around the plan.
MAX_MASK_CELLS: int = 4_000_000

#: Coarse azimuths of the map (docs/terrain.md: refined, exact on planes); None: automatic for the window's size.
MASK_AZIMUTHS: int | None = None

@dataclass
class MaskParams:
    """Where the mask's numbers come from."""

    distance_ft: float
    threshold_pct: float
    compare: str
    rule_id: str
    citation: str


@dataclass
class SlopeMask:
    """Steep ground of one result, in the working CRS."""

    geometry: BaseGeometry | None  # (Multi)Polygon, working CRS
    params: MaskParams
    n_cells: int
    area_sqft: float
    max_pct: float | None

    @property
    def label(self) -> str:
        """``"15% or more over 100 ft"`` (``"over 15% ..."`` for a strict rule)."""
        p = self.params
        words = f"{p.threshold_pct:g}% or more" if p.compare == "gte" else f"over {p.threshold_pct:g}%"
        return f"{words} over {p.distance_ft:g} ft"

    @property
    def layer_name(self) -> str:
        """``"15% slope mask (100 ft)"``: the layer's name in the result group."""
        return f"{self.params.threshold_pct:g}% slope mask ({self.params.distance_ft:g} ft)"


def mask_params(jurisdiction: str | None) -> MaskParams | None:
    """The ``building_site_slope`` rule's distance, threshold and comparison.

    The jurisdiction's own rule when its pack has one, else the LGPC pack's
    (the default of the slope-map command and algorithm); ``None`` if neither
    pack can be read.
    """
    for name in ([jurisdiction] if jurisdiction else []) + ["lgpc"]:
        try:
            rule = slope_rule(load_pack(name))
        except (PackError, OSError):
            # a pack that cannot be read draws no mask of its own; the LGPC default drawn instead is labelled
            # with its own rule id and citation, and the map mask is display only (the findings never read it)
            continue
        if rule is not None:
            return MaskParams(*slope_params(rule), rule.id, rule.citation.text)
    return None


def at_or_over(values: np.ndarray, threshold_pct: float, compare: str) -> np.ndarray:
    """Cells meeting the rule's test (``gte``: at or over; ``gt``: over), decided at 0.1% as the check decides (services.slope)."""
    return steep_cells(values, threshold_pct, compare)


#: Attribute of the inputs holding their plan bounds with the layers they were read from (the mapping and each layer, held):
#: the inputs of a check are never changed once read (the masks computed for them are kept with them too, ``gui.slope_mask``),
#: and the live re-check asks for the bounds of the inputs shown again at the next edit. Inputs copied and given other layers
#: have their own.
_BOUNDS = "_plan_bounds"


def _plan_bounds(inputs: SiteInputs) -> np.ndarray | None:
    """Working-CRS bounds of the plan and the wells and septic systems (``TERRAIN_EXTENT_ROLES``; else of every layer), or ``None``.

    Computed once per inputs and layers (kept with them, :data:`_BOUNDS`); each call has its own array.
    """
    layers = inputs.layers
    held = tuple(layers.values())
    kept = getattr(inputs, "__dict__", {}).get(_BOUNDS)
    if kept is None or kept[0] is not layers or len(kept[1]) != len(held) or any(a is not b for a, b in zip(kept[1], held)):
        kept = (layers, held, _bounds_of(inputs))
        if hasattr(inputs, "__dict__"):
            inputs.__dict__[_BOUNDS] = kept
    return None if kept[2] is None else kept[2].copy()


def _bounds_of(inputs: SiteInputs) -> np.ndarray | None:
    for roles in (TERRAIN_EXTENT_ROLES, tuple(inputs.layers)):
        parts = [b for b in (_layer_bounds(inputs.layers[r]) for r in roles if r in inputs.layers) if len(b)]
        if parts:
            # shapely.total_bounds of the features of these roles, neither missing nor empty, in the same order: their bounds'
            # least and greatest by numpy's fmin/fmax (NaN ignored), which total_bounds reduces with under a warnings guard that
            # costs a live task's thread ~0.1 ms (``np.nanmin`` is ``np.fmin.reduce`` and a warning when all are NaN)
            every = parts[0] if len(parts) == 1 else np.concatenate(parts)
            b = np.array([np.fmin.reduce(every[:, 0]), np.fmin.reduce(every[:, 1]), np.fmax.reduce(every[:, 2]), np.fmax.reduce(every[:, 3])])
            if np.all(np.isfinite(b)):
                return b
    return None


#: Each frozen layer's feature bounds (:func:`_layer_bounds`) by the layer object, held so its id stays its own: a frozen layer
#: (``FeatureLayer.freeze``, the live read's layer of an unedited role) never changes, so its bounds are read once; the live
#: re-check asks for the plan's bounds of two inputs at every edit (``gui.slope_mask.carry_masks``), of which only the edited
#: layer is new. At most :data:`_LAYER_BOUNDS_SIZE` layers are kept (all let go when full).
_LAYER_BOUNDS: dict[int, tuple[object, np.ndarray]] = {}
_LAYER_BOUNDS_SIZE = 64


def _layer_bounds(layer: object) -> np.ndarray:
    """The bounds (rows of ``xmin, ymin, xmax, ymax``, :func:`shapely.bounds`) of the layer's features neither missing nor empty,
    in order (none: no row); read-only."""
    import shapely

    frozen = bool(getattr(layer, "frozen", False))
    if frozen:
        held = _LAYER_BOUNDS.get(id(layer))
        if held is not None and held[0] is layer:
            return held[1]
    geoms = np.asarray(layer.geoms, dtype=object)  # type: ignore[attr-defined]
    # the missing and empty ones left out, read by shapely's array functions at once
    geoms = geoms[~(shapely.is_missing(geoms) | shapely.is_empty(geoms))] if len(geoms) else geoms
    out = shapely.bounds(geoms).reshape(-1, 4)
    out.flags.writeable = False
    if frozen:
        if len(_LAYER_BOUNDS) >= _LAYER_BOUNDS_SIZE:
            _LAYER_BOUNDS.clear()
        _LAYER_BOUNDS[id(layer)] = (layer, out)
    return out


def _crop(grid: ElevationGrid, bounds: np.ndarray | None, pad_units: float) -> tuple[int, int, int, int]:
    """Row/column window of the grid covering the plan bounds grown by ``pad_units`` (whole grid when unknown)."""
    rows, cols = grid.shape
    if bounds is None:
        return 0, rows, 0, cols
    xs = np.array([bounds[0] - pad_units, bounds[2] + pad_units, bounds[0] - pad_units, bounds[2] + pad_units])
    ys = np.array([bounds[1] - pad_units, bounds[1] - pad_units, bounds[3] + pad_units, bounds[3] + pad_units])
    rx, ry = grid.to_raster(xs, ys)
    col, row = grid.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    if not (np.all(np.isfinite(col)) and np.all(np.isfinite(row))):
        return 0, rows, 0, cols
    r0 = max(int(math.floor(np.min(row))), 0)
    r1 = min(int(math.ceil(np.max(row))), rows)
    c0 = max(int(math.floor(np.min(col))), 0)
    c1 = min(int(math.ceil(np.max(col))), cols)
    if r1 <= r0 or c1 <= c0:
        return 0, rows, 0, cols
    return r0, r1, c0, c1


def same_mask(a: SiteInputs, b: SiteInputs) -> bool:
    """Whether :func:`slope_mask` of ``a`` and ``b`` is the same: the same DEM window, unit and plan bounds (the crop and the Jacobian).

    The live re-check keeps the mask of the findings shown when an edit leaves these as they were.
    """
    from .incremental import same_dem  # lazy: the incremental run's comparison, only for the live re-check

    if a.unit_to_ft != b.unit_to_ft or not same_dem(a.dem, b.dem):
        return False
    ba, bb = _plan_bounds(a), _plan_bounds(b)
    return (ba is None and bb is None) or (ba is not None and bb is not None and bool(np.array_equal(ba, bb)))


def slope_mask(inputs: SiteInputs, jurisdiction: str | None, polygonize: Polygonizer, *, n_azimuths: int | None = MASK_AZIMUTHS,
               max_cells: int = MAX_MASK_CELLS) -> SlopeMask | None:
    """The ring-slope mask over the snapshot's DEM window, or ``None`` (no DEM, no parameters, nothing mapped).

    Parameters
    ----------
    inputs : SiteInputs
        The snapshot's inputs (``inputs.dem`` an ElevationGrid, ``inputs.unit_to_ft``).
    jurisdiction : str, optional
        Pack whose ``building_site_slope`` rule gives distance and threshold.
    polygonize : callable
        ``polygonize(mask, geotransform)`` -> WKB polygons of the ``True`` cells in the DEM's CRS.
    n_azimuths : int, optional
        Coarse azimuths of :func:`ring_slope_map` (default: automatic, 256 for windows up to 4 million cells).
    max_cells : int
        When the window holds more cells it is cropped to the plan grown by
        three ring radii (the DEM window reaches 1000 ft around the plan).

    Returns
    -------
    SlopeMask or None
        ``geometry`` is ``None`` when no cell is steep (the layer is still
        worth showing: nothing is steep).
    """
    import shapely

    grid = getattr(inputs, "dem", None)
    if grid is None:
        return None
    params = mask_params(jurisdiction)
    if params is None:
        return None
    u = float(inputs.unit_to_ft)
    bounds = _plan_bounds(inputs)
    rows, cols = grid.shape
    r0, r1, c0, c1 = 0, rows, 0, cols
    if rows * cols > max_cells:
        r0, r1, c0, c1 = _crop(grid, bounds, 3.0 * params.distance_ft / u)
        if (r1 - r0) * (c1 - c0) > max_cells:
            return None
    values = grid.values[r0:r1, c0:c1]
    if not np.isfinite(values).any():
        return None
    a, b, c, d, e, f = grid.geotransform
    gt = (a + c0 * b + r0 * c, b, c, d + c0 * e + r0 * f, e, f)
    # the Jacobian at the plan's centre: the same ground-to-pixel scale as the building-site check
    jac = None
    if bounds is not None:
        _p0, jac = local_jacobian(grid, (bounds[0] + bounds[2]) / 2.0, (bounds[1] + bounds[3]) / 2.0, u)
    if jac is None or not np.all(np.isfinite(jac)) or abs(float(np.linalg.det(jac))) < 1e-300:
        if grid.cell_size_ft is None or not b:
            return None
        jac = ground_to_pixel_projected(gt, grid.cell_size_ft[0] / abs(b))
    with np.errstate(invalid="ignore"):
        slope = ring_slope_map(values, jac, params.distance_ft, z_to_ft=grid.z_to_ft, n_azimuths=n_azimuths,
                               threshold_pct=certified_at(params.threshold_pct, params.compare))
    steep = at_or_over(slope, params.threshold_pct, params.compare)
    max_pct = float(np.nanmax(slope)) if np.isfinite(slope).any() else None
    n = int(steep.sum())
    if n == 0:
        return SlopeMask(None, params, 0, 0.0, max_pct)
    polys = [shapely.from_wkb(w) for w in polygonize(steep, gt)]
    geom = shapely.multipolygons(polys) if polys else None
    if geom is not None and grid.from_raster is not None:
        fr = grid.from_raster

        def to_working(xy: np.ndarray) -> np.ndarray:
            wx, wy = fr(xy[:, 0], xy[:, 1])
            return np.column_stack([np.asarray(wx), np.asarray(wy)])

        geom = shapely.make_valid(shapely.transform(geom, to_working))
    area = float(geom.area) * u * u if geom is not None else 0.0
    return SlopeMask(geom, params, n, area, max_pct)
