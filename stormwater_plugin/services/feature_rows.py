"""A layer's features as the read keeps them (geometry, attributes, feature id), read in batches with the collector paused.

A county's parcel layer is 100,000 features and millions of coordinate tuples: Python's cyclic garbage collector,
run every few hundred allocations, walks them all again and again (half the read's time). None of them can form a
cycle the read must free before it ends, so it is paused while the features are read (:func:`collector_paused`), and
their geometries are made shapely in batches (:func:`~stormwater_plugin.services.feature_geometry.feature_geometries`).
"""

from __future__ import annotations

import collections
import contextlib
import gc
from typing import Iterable, Iterator, Mapping, Protocol, Sequence, cast

from shapely.geometry.base import BaseGeometry

from .feature_geometry import feature_geometries

#: Features whose geometries are built together: large enough for the vectorised constructors, small enough that the
#: backend's own coordinate lists of one batch (some 1.5 kB a parcel) never add up.
BATCH: int = 4096


class Feature(Protocol):
    """A feature as the backend reads it (fiona's): its geometry (GeoJSON-like), its attributes and its id."""

    @property
    def geometry(self) -> object: ...

    @property
    def properties(self) -> object: ...

    @property
    def id(self) -> object: ...


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block (left as it was when it was already paused)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def plain_properties(props: object) -> dict[str, object]:
    """A feature's attributes as a dict, in their order: fiona's own mapping read from its dict without a lookup a field."""
    data = getattr(props, "_data", None)
    fionas = type(props).__name__ == "Properties" and type(props).__module__ == "fiona.model"
    if fionas and isinstance(data, (dict, collections.OrderedDict)) and type(data) in (dict, collections.OrderedDict) \
            and not getattr(props, "_delegated_properties", True):
        return dict(data)  # what dict(props) gives: fiona's Properties delegate nothing, every value lives in _data
    return dict(cast(Mapping[str, object], props))


def feature_rows(features: Iterable[Feature], skipped: Sequence[str] = ()) -> tuple[list[BaseGeometry | None], list[dict[str, object]], list[object]]:
    """The geometries (shapely, ``None`` when absent or unreadable), attributes (without ``skipped``) and ids of ``features``."""
    geoms: list[BaseGeometry | None] = []
    records: list[dict[str, object]] = []
    fids: list[object] = []
    pending: list[object] = []
    with collector_paused():
        for feat in features:
            pending.append(feat.geometry)
            props = plain_properties(feat.properties)
            records.append({k: v for k, v in props.items() if k not in skipped} if skipped else props)
            fids.append(feat.id)
            if len(pending) == BATCH:
                geoms.extend(feature_geometries(pending))
                pending.clear()
        geoms.extend(feature_geometries(pending))
    return geoms, records, fids
