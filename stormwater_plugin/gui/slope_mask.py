"""The slope mask drawn with a check's results, computed once per check (``services.slope_mask``).

The mask itself (which cells, which rule, the crop) is the service's; here the
plugin gives it GDAL's polygonizer (QGIS's own ``osgeo``, in
``qgis_bridge.polygonize``) and keeps the mask with the check's inputs so that
drawing the result layers only reads it. Nothing here imports ``qgis.gui``.
"""

from __future__ import annotations

from typing import Any

from ..qgis_bridge.polygonize import polygonize_mask
from ..services.slope_mask import MASK_AZIMUTHS, MAX_MASK_CELLS, MaskParams, SlopeMask, at_or_over, mask_params, same_mask, slope_mask

__all__ = ["MASK_AZIMUTHS", "MAX_MASK_CELLS", "MaskParams", "SlopeMask", "at_or_over", "carry_masks", "compute_slope_mask", "mask_params",
           "precompute_slope_mask"]

#: Attribute of the engine's inputs holding the masks computed for them (key: jurisdiction, azimuths, cells).
_CACHE = "_slope_masks"


def carry_masks(shown: Any, inputs: Any) -> bool:
    """Give ``inputs`` the masks computed for ``shown`` when both give the same mask (``services.slope_mask.same_mask``).

    The live re-check: an edit that leaves the DEM window and the plan's bounds as they were keeps the mask drawn.
    Returns whether the masks were carried.
    """
    kept = getattr(shown, "__dict__", {}).get(_CACHE)
    if not kept or not hasattr(inputs, "__dict__") or not same_mask(shown, inputs):
        return False
    inputs.__dict__.setdefault(_CACHE, {}).update(kept)
    return True


def precompute_slope_mask(inputs: Any, jurisdiction: str | None = None) -> None:
    """Compute the mask of ``inputs`` now (in the check's ``QgsTask``), so drawing the result layers only reads it.

    Plain numpy and shapely work on plain data: safe off the main thread. A
    failure is left for :func:`compute_slope_mask` to meet on the main thread,
    where it is handled as before.
    """
    try:
        compute_slope_mask(inputs, jurisdiction)
    except Exception:  # noqa: BLE001 - the result layers report it
        pass


def compute_slope_mask(inputs: Any, jurisdiction: str | None = None, *, n_azimuths: int | None = MASK_AZIMUTHS, max_cells: int = MAX_MASK_CELLS) -> SlopeMask | None:
    """The ring-slope mask over the snapshot's DEM window, or ``None``; computed once per inputs (see :func:`precompute_slope_mask`)."""
    cache = inputs.__dict__.setdefault(_CACHE, {}) if hasattr(inputs, "__dict__") else {}
    key = (jurisdiction, n_azimuths, max_cells)
    if key not in cache:
        cache[key] = slope_mask(inputs, jurisdiction, polygonize_mask, n_azimuths=n_azimuths, max_cells=max_cells)
    mask: SlopeMask | None = cache[key]
    return mask
