"""How a DEM band becomes elevations: one policy for every place a DEM is read.

The headless reader, its windowed source, the batch (through the reader),
the slope map and the plugin's raster-provider reads all call the three
functions here, so a DEM means the same thing wherever it is read:

* :func:`refuse_non_elevation` – a raster that is not an elevation band
  (several bands, or an 8-bit colour raster: palette, RGB) is refused.
* :func:`decide_z_unit` – the elevation unit and how it was decided: the
  user's declaration, else a unit the band declares (any spelling GDAL
  writes: metre, foot, US survey foot, decimetre, centimetre, millimetre…),
  else the horizontal unit, *assumed* (a band unit no one recognises is
  treated as undeclared and named in the note).
* :func:`clean_elevations` – band values to elevations in the band's unit:
  the declared nodata, the usual fill values (which a clip or mosaic leaves
  without a nodata tag) and every value outside the Earth's surface range
  become ``NaN``, and the band's scale and offset are applied.

No GDAL here: the edges hand over plain numbers (dtype, colour
interpretation names, scale, offset, the unit string).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .errors import StormwaterError
from .units import FT_PER_METRE, METRE_PER_FT, METRE_PER_US_FT, USER_Z_UNITS

#: Lowest and highest ground on Earth with slack, metres (Dead Sea shore about -430 m, Everest 8,849 m).
EARTH_SURFACE_RANGE_M: tuple[float, float] = (-500.0, 9000.0)

#: Raw band values that data producers write for "no data" (a clip, mosaic or format
#: conversion often drops the nodata tag and leaves them in place).
FILL_VALUES: tuple[float, ...] = (-9999.0, -99999.0, -32768.0, 32767.0, -32767.0, 65535.0, -3.4028234663852886e38,
                                  3.4028234663852886e38, -1e38, 1e38, -1.7976931348623157e308, 1.7976931348623157e308)

_SMALLEST_FILL: float = min(abs(v) for v in FILL_VALUES) * (1 - 1e-6)

#: Elevation units (the ``--dem-z-units`` choices and what a band may declare) and their size in metres.
Z_UNIT_METRES: dict[str, float] = {
    "m": 1.0,
    "ft": METRE_PER_FT,
    "us-ft": METRE_PER_US_FT,
    "dm": 0.1,
    "cm": 0.01,
    "mm": 0.001,
}

#: How units are spelt in GDAL band metadata, GeoTIFF keys and producers' files (lower case, trimmed).
Z_UNIT_SPELLINGS: dict[str, str] = {
    **{s: "m" for s in ("m", "metre", "meter", "metres", "meters", "metre (m)", "meters (m)", "linear_meter", "linear_metre", "9001", "epsg:9001")},
    **{s: "ft" for s in ("ft", "foot", "feet", "international foot", "ft_intl", "foot (international)", "international feet", "linear_foot", "9002", "epsg:9002")},
    **{s: "us-ft" for s in ("us-ft", "us_ft", "ftus", "ft_us", "foot_us", "us foot", "us feet", "us survey foot", "us survey feet", "survey foot", "us-foot",
                            "foot (us survey)", "linear_foot_us_survey", "9003", "epsg:9003")},
    **{s: "dm" for s in ("dm", "decimetre", "decimeter", "decimetres", "decimeters")},
    **{s: "cm" for s in ("cm", "centimetre", "centimeter", "centimetres", "centimeters")},
    **{s: "mm" for s in ("mm", "millimetre", "millimeter", "millimetres", "millimeters")},
}

Z_UNIT_LABELS: dict[str, str] = {"m": "metres", "ft": "feet", "us-ft": "US survey feet", "dm": "decimetres", "cm": "centimetres", "mm": "millimetres"}


#: Metadata keys under which a DEM file may declare its elevation unit, besides the band's unit type (GDAL ``GetUnitType``,
#: GeoTIFF ``Unit Type``): looked up in the dataset's metadata, then in the band's.
Z_UNIT_TAGS: tuple[str, ...] = ("VERTICAL_UNITS",)


def file_z_unit(unit_type: str | None, dataset_tags: Mapping[str, str] | None, band_tags: Mapping[str, str] | None) -> str | None:
    """The elevation unit a DEM file declares, as written (trimmed); ``None`` when it declares none.

    One reading for every reader of a DEM file (rasterio on the command line,
    GDAL inside QGIS): the band's unit type, else a :data:`Z_UNIT_TAGS` key of
    the dataset's metadata, else of the band's. What the string means is
    :func:`decide_z_unit`'s (through :data:`Z_UNIT_SPELLINGS`).

    Parameters
    ----------
    unit_type : str or None
        The band's unit type (GDAL ``GetUnitType``, rasterio ``units[0]``).
    dataset_tags, band_tags : mapping or None
        The dataset's and the band's metadata (default domain).
    """
    candidates = [unit_type] + [tags.get(key) for tags in (dataset_tags, band_tags) if tags for key in Z_UNIT_TAGS]
    for value in candidates:
        text = str(value).strip() if value is not None else ""
        if text:
            return text
    return None


class NotAnElevationBand(ValueError, StormwaterError):
    """The raster is not an elevation band (the message names why, in one line)."""


class UnknownZUnit(ValueError, StormwaterError):
    """A declared elevation unit that is none of :data:`Z_UNIT_SPELLINGS`."""


def z_unit_to_ft(unit: str) -> float:
    """Feet per elevation unit ``unit`` (a key of :data:`Z_UNIT_METRES`)."""
    return Z_UNIT_METRES[unit] / METRE_PER_FT


def length_unit_key(metres: float) -> str | None:
    """The key of :data:`USER_Z_UNITS` one unit of which is ``metres`` long (to 1e-9 m); ``None`` for any other length."""
    return next((k for k in USER_Z_UNITS if abs(Z_UNIT_METRES[k] - metres) < 1e-9), None)


def normalise_band_unit(name: str | None) -> str | None:
    """The unit key (``m``, ``ft``, ``us-ft``, ``dm``, ``cm``, ``mm``) of a band's unit string; ``None`` when empty or unknown."""
    if name is None:
        return None
    return Z_UNIT_SPELLINGS.get(" ".join(str(name).strip().lower().split()))


@dataclass(frozen=True)
class ZUnit:
    """The elevation unit decided for a DEM.

    Attributes
    ----------
    unit : str
        Key of :data:`Z_UNIT_METRES`.
    z_to_ft : float
        Feet per band unit.
    note : str
        How it was decided, in words (carried into findings.json and messages).
    declared : bool
        ``True`` when declared by the user or by the band; ``False`` when assumed
        (unit-dependent findings are then decided under every candidate unit).
    """

    unit: str
    z_to_ft: float
    note: str
    declared: bool


#: How the reviewer declares a DEM's elevation unit, named in an assumed unit's note: one wording whichever front end
#: read the DEM, so findings.json is the same document from the command line and the plugin.
HOW_TO_DECLARE_Z_UNIT: str = "--dem-z-units on the command line, the DEM elevation-unit setting in the plugin"


def decide_z_unit(declared: str | None, band_unit: str | None, horizontal_m: float | None, *, how_to_declare: str = "--dem-z-units") -> ZUnit:
    """The elevation unit of a DEM: the user's, else the band's, else its horizontal unit (assumed).

    Parameters
    ----------
    declared : str or None
        The user's declaration (``--dem-z-units`` or the plugin's setting), any spelling of :data:`Z_UNIT_SPELLINGS`.
    band_unit : str or None
        The unit string the band declares (GDAL ``GetUnitType``, ``VERTICAL_UNITS``…).
    horizontal_m : float or None
        Metres per horizontal unit of a projected DEM; ``None`` for a geographic one.
    how_to_declare : str
        How the user declared the unit (named in a declared unit's note; an assumed unit's names both ways,
        :data:`HOW_TO_DECLARE_Z_UNIT`).

    Raises
    ------
    UnknownZUnit
        When ``declared`` names no known unit (a ``ValueError``).
    """
    if declared:
        unit = normalise_band_unit(declared)
        if unit is None:
            raise UnknownZUnit(f"unknown elevation unit '{declared}': choose one of {', '.join(Z_UNIT_METRES)}")
        return ZUnit(unit, z_unit_to_ft(unit), f"elevations in {unit} (declared with {how_to_declare})", True)
    unit = normalise_band_unit(band_unit)
    if unit is not None:
        return ZUnit(unit, z_unit_to_ft(unit), f"elevations in {unit} (read from the band's declared unit '{band_unit}')", True)
    unknown = f"the band's unit '{band_unit}' is not a unit the checker knows, so it is treated as undeclared; " if band_unit and str(band_unit).strip() else ""
    if horizontal_m is not None:
        key = length_unit_key(horizontal_m)
        unit = key or "m"
        basis = "the DEM's horizontal unit" if key else "metres (the DEM's horizontal unit is none of m, ft, US ft)"
    else:
        unit, basis = "m", "metres (the DEM is in degrees)"
    note = (
        f"{unknown}elevations assumed in {unit}, {basis}: every finding that would change were they in metres or feet is "
        f"undetermined; declare the unit ({HOW_TO_DECLARE_Z_UNIT})"
    )
    return ZUnit(unit, z_unit_to_ft(unit), note, False)


#: Colour interpretations of a band that is a picture, not a measurement (GDAL names, lower case).
COLOUR_INTERPRETATIONS: frozenset[str] = frozenset({"palette", "red", "green", "blue", "alpha", "hue", "saturation", "lightness", "cyan", "magenta",
                                                    "yellow", "black", "ycbcr_y", "ycbcr_cb", "ycbcr_cr"})


def refuse_non_elevation(name: str, band_count: int, dtype: str, colour: Sequence[str], has_palette: bool = False) -> None:
    """Raise :class:`NotAnElevationBand` unless the raster can be a DEM.

    Parameters
    ----------
    name : str
        The DEM's name (file), for the message.
    band_count : int
        Number of bands.
    dtype : str
        The first band's data type, lower case numpy/GDAL name (``uint8``, ``byte``, ``float32``…).
    colour : sequence of str
        Each band's colour interpretation (GDAL names, any case).
    has_palette : bool
        Whether the first band carries a colour table.
    """
    if band_count < 1:
        raise NotAnElevationBand(f"{name}: the raster has no band")
    if band_count > 1:
        kinds = ", ".join(str(c).lower() for c in colour[:4])
        raise NotAnElevationBand(
            f"{name}: {band_count} bands ({kinds}) is not an elevation model; give a single-band DEM (an orthophoto or hillshade cannot be one)"
        )
    ci = str(colour[0]).lower() if colour else ""
    eight_bit = str(dtype).lower() in ("uint8", "byte", "int8")
    if has_palette or ci == "palette" or (eight_bit and ci in COLOUR_INTERPRETATIONS):
        raise NotAnElevationBand(f"{name}: an 8-bit colour raster ({ci or 'palette'}) is not an elevation model; give the DEM itself")


@dataclass
class CleanStats:
    """What :func:`clean_elevations` set to nodata (pixel counts) and which fill values it met."""

    fill: int = 0
    implausible: int = 0
    fill_values: tuple[float, ...] = ()

    def add(self, other: CleanStats) -> None:
        self.fill += other.fill
        self.implausible += other.implausible
        self.fill_values = tuple(sorted(set(self.fill_values) | set(other.fill_values)))


def clean_elevations(
    raw: np.ndarray,
    *,
    nodata: float | None = None,
    mask: np.ndarray | None = None,
    scale: float | None = 1.0,
    offset: float | None = 0.0,
    z_to_ft: float,
    stats: CleanStats | None = None,
    count_rows: tuple[int, int] | None = None,
) -> np.ndarray:
    """Band values to elevations in the band's unit (float64, ``NaN`` for nodata).

    Parameters
    ----------
    raw : numpy.ndarray
        The band as stored (any numeric type).
    nodata : float, optional
        The band's declared nodata value (``NaN`` or ``None``: none).
    mask : numpy.ndarray of bool, optional
        Pixels the reader already knows to be nodata (a GDAL mask band).
    scale, offset : float
        The band's declared scale and offset: elevation = raw × scale + offset.
    z_to_ft : float
        Feet per band unit, to test elevations against the Earth's surface range.
    stats : CleanStats, optional
        Filled with what was set to nodata.
    count_rows : (int, int), optional
        Count into ``stats`` only rows ``[first, last)`` (a strip read with a halo).

    Notes
    -----
    Nodata: the declared value, every value of :data:`FILL_VALUES` (raw, before
    scale and offset), non-finite values, and elevations outside
    :data:`EARTH_SURFACE_RANGE_M` once scaled and converted. A point on such a
    pixel then has no elevation, so what depends on it is undetermined.
    """
    values = np.array(raw, dtype=np.float64, copy=True)
    bad = ~np.isfinite(values)
    if mask is not None:
        bad |= np.asarray(mask, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        if nodata is not None and math.isfinite(float(nodata)):
            bad |= values == float(nodata)
            nd32 = float(np.float32(nodata))
            if math.isfinite(nd32) and nd32 != float(nodata):  # a float32 band holds its nodata rounded to float32
                bad |= values == nd32
        declared = bad.copy()
        met: list[float] = []
        # every fill value has a magnitude of 9,999 or more: test only those pixels (one pass over the band)
        big = (np.abs(values) >= _SMALLEST_FILL) & ~declared
        if big.any():
            idx = np.nonzero(big)
            sub = values[idx]
            for fv in FILL_VALUES:
                hit_sub = np.abs(sub - fv) <= abs(fv) * 1e-7
                if hit_sub.any():
                    hit = np.zeros(values.shape, dtype=bool)
                    hit[tuple(i[hit_sub] for i in idx)] = True
                    bad |= hit
                    if _rows(hit, count_rows).any():
                        met.append(fv)
    n_fill = int(np.count_nonzero(_rows(bad & ~declared, count_rows)))
    s, o = band_scale_offset(scale, offset)
    if s != 1.0 or o != 0.0:
        values = values * s + o
    lo_m, hi_m = EARTH_SURFACE_RANGE_M
    with np.errstate(invalid="ignore", over="ignore"):
        metres = values * (z_to_ft / FT_PER_METRE)
        out = (metres < lo_m) | (metres > hi_m)
    out &= ~bad
    n_out = int(np.count_nonzero(_rows(out, count_rows)))
    bad |= out
    values[bad] = np.nan
    if stats is not None:
        stats.add(CleanStats(n_fill, n_out, tuple(met)))
    return values


def band_scale_offset(scale: float | None, offset: float | None) -> tuple[float, float]:
    """The scale and offset applied to a band (elevation = raw × scale + offset): a missing, non-finite or zero scale is 1, a
    missing or non-finite offset 0."""
    s = 1.0 if scale is None or not math.isfinite(float(scale)) or float(scale) == 0.0 else float(scale)
    o = 0.0 if offset is None or not math.isfinite(float(offset)) else float(offset)
    return s, o


def scale_offset_note(scale: float | None, offset: float | None) -> str:
    """What an elevation unit's note adds when the band's scale or offset is applied (:func:`band_scale_offset`); ``""`` otherwise."""
    s, o = band_scale_offset(scale, offset)
    return f"; band scale {s:g} and offset {o:g} applied" if s != 1.0 or o != 0.0 else ""


def _rows(a: np.ndarray, rows: tuple[int, int] | None) -> np.ndarray:
    return a if rows is None or a.ndim != 2 else a[rows[0] : rows[1]]


def cleaning_warning(name: str, stats: CleanStats) -> str | None:
    """One sentence naming the DEM and what :func:`clean_elevations` treated as nodata; ``None`` when nothing."""
    if stats.fill == 0 and stats.implausible == 0:
        return None
    parts = []
    if stats.fill:
        vals = ", ".join(f"{v:g}" for v in stats.fill_values)
        parts.append(f"{stats.fill:,} pixel(s) hold a fill value ({vals}) the file does not declare as nodata")
    if stats.implausible:
        lo, hi = EARTH_SURFACE_RANGE_M
        parts.append(f"{stats.implausible:,} pixel(s) lie outside any ground elevation on Earth ({lo:g} to {hi:g} m) in the unit used")
    return (
        f"the DEM {name}: {' and '.join(parts)}; they are read as nodata, so every check that samples them is undetermined "
        "(set the DEM's nodata value, or fill the gaps, and run again)"
    )
