"""A town's context catalog: the statewide and county layers a reviewer already has, mapped to roles once.

The catalog is a small JSON document (``docs/context.md`` documents it);
this module parses and validates it (from a dict, or its file with
:func:`load_catalog`: one wording of every error for the command line and
the dock's register), with no GIS library, so the dock and the command line
share one model. Reading the sources is
:mod:`stormwater_plugin.headless.context_reader`'s.

A source names its file (``path``, ``layer``), the role it feeds, an optional
OGR ``where`` filter and field renames (role field <- source field), its
``authority`` and ``date``, and whether it is ``regulatory`` or
``informational``. A parcels source may carry ``hints``: tax-roll fields
(``SEWER_DESC``, ``WATER_DESC``) whose values say a parcel has an on-site
septic system or a private well; hints never become features (their place on
the parcel is unknown), only notes naming the parcels.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Mapping

from ..core.errors import StormwaterError
from ..core.roles import CATALOG_ROLES, PARCEL_HINT_ROLES
from ..core.units import USER_Z_UNITS

#: The statuses a source may have.
STATUSES: tuple[str, ...] = ("regulatory", "informational")
#: Keys of a source; any other key is refused (a typo would otherwise be ignored silently).
SOURCE_KEYS: frozenset[str] = frozenset(
    {"name", "path", "layer", "role", "where", "fields", "authority", "date", "status", "note", "z_units", "hints", "old_after_years"}
)
CATALOG_KEYS: frozenset[str] = frozenset({"town", "version", "sources", "flow_reach_ft", "note"})
Z_UNITS: tuple[str, ...] = USER_Z_UNITS
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


class CatalogError(StormwaterError, ValueError):
    """The catalog is not valid; the message names the source and key."""


@dataclass(frozen=True)
class Hint:
    """A tax-roll field whose values say a parcel has an on-site system (``kind``: septic or wells)."""

    kind: str
    field: str
    values: tuple[str, ...]

    def matches(self, value: object) -> bool:
        """Whether an attribute value is one of :attr:`values` (case and surrounding blanks ignored)."""
        if value is None:
            return False
        v = str(value).strip().casefold()
        return any(v == w.strip().casefold() for w in self.values)


@dataclass(frozen=True)
class ContextSource:
    """One source of the catalog (see the module's docstring)."""

    name: str
    path: str
    role: str
    layer: str | None = None
    where: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    authority: str = ""
    date: str = ""
    status: str = "informational"
    note: str = ""
    z_units: str | None = None
    hints: tuple[Hint, ...] = ()
    #: Age in years past which the source is called old in the findings (the town's setting; none: never).
    old_after_years: float | None = None

    @property
    def is_raster(self) -> bool:
        return self.role == "dem"

    def year(self) -> int | None:
        """The year of :attr:`date`, or ``None`` when the catalog gives no date."""
        return int(self.date[:4]) if self.date else None

    def describe(self) -> str:
        """The source in words for a note: name, authority, date and status."""
        bits = [self.name]
        if self.authority:
            bits.append(self.authority)
        bits.append(self.date if self.date else "undated")
        bits.append(self.status)
        return ", ".join(bits)

    def age_note(self, today: _dt.date | None = None) -> str | None:
        """A note when the source is older than :attr:`old_after_years` (or undated), else ``None``."""
        if self.old_after_years is None:
            return None
        if not self.date:
            return f"{self.name} has no date in the catalog: its currency is unknown"
        today = today or _dt.date.today()
        age = today.year - int(self.date[:4])
        if age > self.old_after_years:
            return f"{self.name} is dated {self.date} ({age} years old): features mapped or changed since are missing from it"
        return None


@dataclass(frozen=True)
class ContextCatalog:
    """A town's catalog: its sources, and how far context is read for a flow trace of no declared length."""

    town: str
    sources: tuple[ContextSource, ...]
    #: Feet of context read around the site for a rule of unlimited reach (a flow trace with no declared length).
    flow_reach_ft: float | None = None

    def roles(self) -> tuple[str, ...]:
        """The roles the catalog feeds, in :data:`CATALOG_ROLES` order."""
        have = {s.role for s in self.sources}
        return tuple(r for r in CATALOG_ROLES if r in have)

    def for_role(self, role: str) -> tuple[ContextSource, ...]:
        return tuple(s for s in self.sources if s.role == role)


def _text(value: object, where: str, key: str, required: bool = False) -> str:
    if value is None:
        if required:
            raise CatalogError(f"{where}: '{key}' is required")
        return ""
    if not isinstance(value, str):
        raise CatalogError(f"{where}: '{key}' must be text, not {type(value).__name__}")
    if required and not value.strip():
        raise CatalogError(f"{where}: '{key}' is empty")
    return value.strip()


def _number(value: object, where: str, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise CatalogError(f"{where}: '{key}' must be a positive number")
    return float(value)


def _hints(value: object, where: str, role: str) -> tuple[Hint, ...]:
    if value is None:
        return ()
    if role != "parcels":
        raise CatalogError(f"{where}: 'hints' belong to a parcels source (the tax roll), not to {role}")
    if not isinstance(value, dict):
        raise CatalogError(f"{where}: 'hints' must be an object, e.g. {{\"septic\": {{\"field\": \"SEWER_DESC\", \"values\": [\"Private\"]}}}}")
    out = []
    for kind, spec in value.items():
        if kind not in PARCEL_HINT_ROLES:
            raise CatalogError(f"{where}: unknown hint '{kind}'; hints are {', '.join(PARCEL_HINT_ROLES)}")
        if not isinstance(spec, dict) or set(spec) - {"field", "values"}:
            raise CatalogError(f"{where}: hint '{kind}' must be {{\"field\": ..., \"values\": [...]}}")
        fld = _text(spec.get("field"), where, f"hints.{kind}.field", required=True)
        values = spec.get("values")
        if not isinstance(values, list) or not values or not all(isinstance(v, str) and v.strip() for v in values):
            raise CatalogError(f"{where}: hint '{kind}' needs 'values', a list of non-empty texts")
        out.append(Hint(kind, fld, tuple(values)))
    return tuple(out)


def parse_source(data: object, index: int) -> ContextSource:
    """One source from its JSON object; :class:`CatalogError` naming the source and key."""
    where = f"source {index + 1}"
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: must be an object")
    if isinstance(data.get("name"), str) and data["name"].strip():
        where = f"source {index + 1} ({data['name'].strip()})"
    unknown = sorted(set(data) - SOURCE_KEYS)
    if unknown:
        raise CatalogError(f"{where}: unknown key(s) {', '.join(unknown)}; keys are {', '.join(sorted(SOURCE_KEYS))}")
    role = _text(data.get("role"), where, "role", required=True)
    if role not in CATALOG_ROLES:
        raise CatalogError(f"{where}: unknown role '{role}'; roles are {', '.join(CATALOG_ROLES)}")
    path = _text(data.get("path"), where, "path", required=True)
    name = _text(data.get("name"), where, "name") or PurePath(path).name
    status = _text(data.get("status"), where, "status", required=True)
    if status not in STATUSES:
        raise CatalogError(f"{where}: status '{status}' must be one of {', '.join(STATUSES)}")
    date = _text(data.get("date"), where, "date")
    if date and not _DATE.match(date):
        raise CatalogError(f"{where}: date '{date}' must be YYYY, YYYY-MM or YYYY-MM-DD")
    fields = data.get("fields") or {}
    if not isinstance(fields, dict) or not all(isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip() for k, v in fields.items()):
        raise CatalogError(f"{where}: 'fields' must map each role field to a source field, e.g. {{\"class\": \"WQ_CLASS\"}}")
    z_units = _text(data.get("z_units"), where, "z_units") or None
    if z_units is not None and role != "dem":
        raise CatalogError(f"{where}: 'z_units' belongs to a dem source")
    if z_units is not None and z_units not in Z_UNITS:
        raise CatalogError(f"{where}: z_units '{z_units}' must be one of {', '.join(Z_UNITS)}")
    if role == "dem" and (data.get("where") or fields or data.get("layer")):
        raise CatalogError(f"{where}: a dem source takes no 'where', 'fields' or 'layer'")
    return ContextSource(
        name=name,
        path=path,
        role=role,
        layer=_text(data.get("layer"), where, "layer") or None,
        where=_text(data.get("where"), where, "where") or None,
        fields={k.strip(): v.strip() for k, v in fields.items()},
        authority=_text(data.get("authority"), where, "authority", required=True),
        date=date,
        status=status,
        note=_text(data.get("note"), where, "note"),
        z_units=z_units,
        hints=_hints(data.get("hints"), where, role),
        old_after_years=_number(data.get("old_after_years"), where, "old_after_years"),
    )


def parse_catalog(data: object) -> ContextCatalog:
    """A :class:`ContextCatalog` from the parsed JSON; :class:`CatalogError` when anything is wrong.

    Examples
    --------
    >>> c = parse_catalog({"town": "North Collins", "sources": [
    ...     {"path": "parcels.shp", "role": "parcels", "authority": "NYS ITS", "date": "2018", "status": "informational"}]})
    >>> c.roles()
    ('parcels',)
    """
    if not isinstance(data, dict):
        raise CatalogError("the catalog must be a JSON object with 'town' and 'sources'")
    unknown = sorted(set(data) - CATALOG_KEYS)
    if unknown:
        raise CatalogError(f"unknown key(s) {', '.join(unknown)}; keys are {', '.join(sorted(CATALOG_KEYS))}")
    town = _text(data.get("town"), "catalog", "town", required=True)
    raw = data.get("sources")
    if not isinstance(raw, list) or not raw:
        raise CatalogError("catalog: 'sources' must be a non-empty list")
    sources = tuple(parse_source(s, i) for i, s in enumerate(raw))
    dems = [s for s in sources if s.role == "dem"]
    if len(dems) > 1:
        raise CatalogError(f"catalog: {len(dems)} dem sources; give one (a VRT or a glob over the tiles)")
    names = [s.name for s in sources]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CatalogError(f"catalog: source names must be unique ({', '.join(dup)}); give each a 'name'")
    return ContextCatalog(town, sources, _number(data.get("flow_reach_ft"), "catalog", "flow_reach_ft"))


def load_catalog(path: Path) -> ContextCatalog:
    """The catalog in the JSON file ``path``; :class:`CatalogError` naming the file when it is missing, not JSON or invalid.

    The one wording of these errors: the command line says it as its one line, the dock's register among the
    register's problems.
    """
    if not path.is_file():
        raise CatalogError(f"{path}: context catalog not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogError(f"{path}: the context catalog is not valid JSON ({exc})") from exc
    try:
        return parse_catalog(data)
    except CatalogError as exc:
        raise CatalogError(f"{path}: {exc}") from exc
