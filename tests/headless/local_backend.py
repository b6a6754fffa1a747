"""A fake site backend in local feet for tests of the one read (``services.site_read``): one CRS, nothing moved.

Each role's sources are plain lists (geometries, records); :class:`LocalLayers` answers every question of the
backend protocol the way a source already in the working CRS would. Tests override ``sources`` and ``fetch``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stormwater_plugin.services.backend import CrsInfo, SourceInfo


@dataclass
class LocalFrame:
    """A source's features as fetched; ``memo``: what the read keeps with them (``None``: nothing kept)."""

    geoms: list[Any]
    records: list[dict[str, Any]]
    columns: list[str]
    unusable: dict[int, str] = field(default_factory=dict)
    restored: list[tuple[int, str]] = field(default_factory=list)
    memo: dict[Any, Any] | None = None

    def __len__(self) -> int:
        return len(self.records)


class LocalCrs:
    """A local grid of feet: no projection, so the scale factor is 1."""

    def describe(self, crs: Any) -> CrsInfo:
        return CrsInfo("local feet", "", True, True, 0.3048)

    def projection(self, crs: Any) -> None:
        return None


class LocalLayers:
    """The backend's answers for sources in one local CRS of feet: no DEM, nothing unplaceable, boxes as they are."""

    dem = None
    crs_ops = LocalCrs()

    def to_working(self, source: SourceInfo, features: Any, working: Any) -> tuple[Any, str | None]:
        return features, None

    def fetch_records(self, source: SourceInfo, columns: Any) -> list[dict[str, Any]]:
        return [{c: r.get(c) for c in columns} for r in source.handle[1]]

    def unplaceable(self, source: SourceInfo, features: Any) -> list[int] | None:
        return []

    def box_in(self, b: Any, src: Any, dst: Any) -> Any:
        return b

    def working_crs(self, parts: Any, site_parcel_id: str | None) -> tuple[str, str]:
        return "local", "a local grid"

    def ft_per_unit(self, crs: Any) -> float:
        return 1.0

    def crs_text(self, crs: Any) -> str:
        return str(crs)

    def dem_extent(self, working: Any) -> Any:
        return None

    def read_dem(self, working: Any, b: Any, z_units: Any, warnings: Any) -> tuple[None, None]:
        return None, None
