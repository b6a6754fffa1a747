"""What each role reads when its layer is one geometry-type part of a mixed source, and what is said of it.

Dropping a GeoPackage onto QGIS (or *Add Layer*) splits a layer of generic ``GEOMETRY`` type into one map layer per
geometry type. A role that holds one of those parts would check part of the plan and pass the rest silently, so the
plugin reads the whole source instead (``qgis_bridge.layer_parts``) and says so: the words and the per-role status are here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.model import Warning_


@dataclass(frozen=True)
class RoleLayerStatus:
    """What a role will read, for the dock's per-role line and the run summary.

    Attributes
    ----------
    name : str
        The map layer's name.
    features : int
        Features the check reads (the whole source's count for a part).
    part : str or None
        Geometry type of the part the user chose (``"Point"``…), ``None`` when
        the layer is a whole source.
    part_features : int
        Features of the chosen part alone (equal to ``features`` for a whole layer).
    source : str
        The source that is read.
    """

    name: str
    features: int
    part: str | None
    part_features: int
    source: str

    @property
    def whole(self) -> bool:
        return self.part is None

    def describe(self) -> str:
        """One line: name, count, and whether the whole source is read."""
        if self.part is None:
            return f"{self.name}: {self.features} feature(s), whole layer"
        return (f"{self.name}: the {self.part} part ({self.part_features} feature(s)) of a mixed layer; "
                f"the whole source is read ({self.features} feature(s))")


def part_warning(role: str, status: RoleLayerStatus, part_source: str, expanded: bool) -> Warning_ | None:
    """What is said of a role whose layer is a part (``status.part`` not ``None``) of the source ``part_source``.

    ``expanded``: its whole source was opened and is read (``layer_part_expanded`` when the whole holds more features
    than the part, else nothing); otherwise only the part could be read (``layer_part_only``: the rest is NOT checked).
    """
    part, n_part, n_whole = status.part, status.part_features, status.features
    if not expanded:
        return Warning_(
            "layer_part_only",
            f"only the {part} part of {part_source} could be read ({n_part} feature(s)); features of other geometry types in that "
            "source were NOT checked: choose the whole layer",
            role,
        )
    if n_whole == n_part:
        return None
    return Warning_(
        "layer_part_expanded",
        f"'{status.name}' shows only the {part} part of a mixed layer ({n_part} of {n_whole} features); "
        f"the whole source {status.source} was read, so the other {n_whole - n_part} feature(s) are checked too",
        role,
    )


__all__ = ["RoleLayerStatus", "part_warning"]
