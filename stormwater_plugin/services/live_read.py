"""The live re-check's partial read (issue 39): a read reuses what the last read converted of the same inputs.

A read of the site converts each role's source into a :class:`~stormwater_plugin.core.model.FeatureLayer`
(its features in the working CRS, over its window), judges whether the source's coordinates fit its CRS, and
reads the DEM over the window the rules need. After an edit of one layer, the others hold the same features:
the live re-check keeps each unedited layer's feature source of the previous read (``gui.live_plan``), so the
same source converted into the same working CRS over the same window gives the same layer. A :class:`ReadMemo`
keeps each conversion of the last complete read under the whole of its inputs (the source object, the role,
the working CRS, the window; for the DEM its source, its CRS, the working CRS, the window, the elevation unit)
with the warnings it gave, and the next read takes the conversion when its inputs are the same, and converts
anew otherwise.

Everything the read *decides* is decided again at every read, from the layers as they now are: the working
CRS, the site parcel and the scale factor, which sources and features are misplaced or stray, each context
layer's window, the DEM window. So when an edit changes any of them (a device moved across a UTM zone or far
from the site, a new site parcel, a DEM window that grows), the conversions whose inputs changed are made
anew, and the read equals a full read by construction: only a conversion of identical inputs is reused.

QGIS-free: the keys and the conversions are the adapter's (``gui.live_read``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Mapping, TypeVar, cast

from ..core.model import Warning_

_T = TypeVar("_T")


@dataclass(frozen=True)
class Conversion:
    """One conversion a read made: what it gave and the warnings it added, in their order."""

    value: object
    warnings: tuple[Warning_, ...]


class ReadMemo:
    """The conversions of one read, with those of the last complete read to reuse.

    Parameters
    ----------
    kept : mapping, optional
        Key to :class:`Conversion`: what the last complete read made (:attr:`made` of its memo).

    Notes
    -----
    One memo serves one read in one thread; a read that completes hands its :attr:`made` to the next memo,
    so a conversion no longer used (a source replaced after its layer's edit) is dropped after one read.
    """

    def __init__(self, kept: Mapping[Hashable, Conversion] | None = None) -> None:
        self._kept = dict(kept or {})
        #: What this read made or reused: the next read's ``kept``.
        self.made: dict[Hashable, Conversion] = {}
        #: The labels of the conversions reused and of those made anew, in order (the benchmark and the tests read them).
        self.reused: list[str] = []
        self.converted: list[str] = []

    def convert(self, key: Hashable, label: str, make: Callable[[], _T], warnings: list[Warning_], complete: Callable[[], bool]) -> _T:
        """``make()``, or what it gave the last read for the same ``key``; its warnings are added to ``warnings`` either way.

        Parameters
        ----------
        key : hashable
            The whole of the conversion's inputs.
        label : str
            Names the conversion in :attr:`reused` and :attr:`converted`.
        make : callable
            Converts (it adds its warnings to ``warnings``).
        warnings : list of Warning_
            The read's warnings.
        complete : callable
            Whether the conversion just made is whole (``False`` once the read is cancelled: a part is never kept).
        """
        hit = self._kept.get(key)
        if hit is not None:
            warnings.extend(hit.warnings)
            self.made[key] = hit
            self.reused.append(label)
            return cast(_T, hit.value)
        mark = len(warnings)
        value = make()
        if complete():
            self.made[key] = Conversion(value, tuple(warnings[mark:]))
        self.converted.append(label)
        return value

    def earlier(self, key: Hashable) -> Conversion | None:
        """What the last complete read converted for ``key`` (``None``: nothing), without reusing it: a conversion made from it
        (an edited layer's features from those before the edit) is made anew under its own key."""
        return self._kept.get(key)

    def remember(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """``make()``, or what it gave this read or the last for the same ``key``: a value the conversions' keys are made of
        (a CRS's text), never counted among the conversions."""
        hit = self.made.get(key) or self._kept.get(key)
        if hit is None:
            hit = Conversion(make(), ())
        self.made[key] = hit
        return cast(_T, hit.value)


__all__ = ["Conversion", "ReadMemo"]
