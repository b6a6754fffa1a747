"""One layer as read (:class:`VectorFrame`, without pandas)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from pyproj import Transformer

from ..services.feature_geometry import NOT_PLACEABLE, non_finite_rows


@dataclass
class VectorFrame:
    """One layer as read: geometries, attribute records and CRS (a light stand-in for a GeoDataFrame).

    Reading through fiona directly keeps pandas and geopandas out of a plain
    check (a fifth of a second at start-up). ``unusable`` holds the rows whose
    geometry cannot be measured (a NaN coordinate, a point the working CRS
    cannot hold) with the reason, in words that follow the feature's name.
    """

    geoms: np.ndarray
    records: list[dict[str, Any]]
    columns: list[str]
    crs: Any  # pyproj.CRS or None
    unusable: dict[int, str] = field(default_factory=dict)
    #: Values read again from the file because GDAL cut them at a NUL: (row, field), for a warning.
    restored: list[tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    def to_crs(self, crs: Any) -> VectorFrame:
        """The same features in ``crs`` (always x, y order; Z kept out, as the engine measures in plan)."""
        tf = Transformer.from_crs(self.crs, crs, always_xy=True)

        def move(xy: np.ndarray) -> np.ndarray:
            x, y = tf.transform(xy[:, 0], xy[:, 1])
            return np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])

        out = np.empty(len(self.geoms), dtype=object)
        for i, g in enumerate(self.geoms):
            out[i] = None if g is None else shapely.transform(g, move)
        moved = VectorFrame(out, self.records, self.columns, crs, dict(self.unusable), list(self.restored))
        _mark_non_finite(moved, NOT_PLACEABLE)
        return moved


def _mark_non_finite(frame: VectorFrame, why: str) -> None:
    """Move geometries holding a non-finite coordinate (:func:`~stormwater_plugin.services.feature_geometry.non_finite_rows`)
    out of ``frame.geoms`` into ``frame.unusable`` with ``why``."""
    for i in non_finite_rows(frame.geoms):
        frame.geoms[i] = None
        frame.unusable.setdefault(i, why)
