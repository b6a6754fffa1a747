"""What must be drawn: the site package's layers, their typed fields and QGIS attribute forms.

QGIS-free: the layer table is plain data and the forms are QML text written into the package's
``layer_styles`` table with :mod:`sqlite3`, so the command line (``stormwater-check new-site``) and the
dock (*New site plan…*) write the same package. Vocabularies come from the code and the packs that read
them (:data:`~stormwater_plugin.core.model.DEVICE_TYPES`, the impervious statuses of
:mod:`~stormwater_plugin.core.checks.affected`, the ``use`` values of the classification and the packs),
never retyped here.

Yes/no fields are left NULL until answered. A yes/no field a rule reads
(``vehicle_traffic``, ``high_traffic``, ``previously_developed``, ``high_transport``, ``proposed_lot``) gets a
three-way value map (yes = 1 / no = 0 / not answered = NULL, stored as an integer so QGIS shows
the stored answer by its word), not a check box: QGIS 3.22's check box saves an
untouched box as *false*, which would turn "not answered" into "no" (a silent pass). ``is_site`` gets a
check box (a false ``is_site`` only falls back to the reader's other ways of finding the site parcel).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Mapping, Sequence
from xml.sax.saxutils import quoteattr

from ..core.checks.affected import WORKED_STATUSES, impervious_status
from ..core.checks.classification import ACCESSORY_USES, SINGLE_FAMILY_USES
from ..core.checks.context import truthy
from ..core.errors import StormwaterError
from ..core.model import DEVICE_TYPES
from ..core.roles import MUST_DRAW_ROLES, ROLE_NOUN, ROLES
from ..core.rulepack import PackError, RulePack, load_pack
from .input_errors import InputError

#: Impervious statuses: the unchanged one and the worked ones, each one :func:`impervious_status` reads.
BUILDING_STATUSES: tuple[str, ...] = ("proposed", "existing", "enlarged", "removed")
IMPERVIOUS_STATUSES: tuple[str, ...] = tuple(s for s in ("existing", *WORKED_STATUSES) if impervious_status({"status": s}) == s)

#: Words the form shows for a value (the stored value stays the code's own).
_LABEL_OVERRIDES = {"single_family": "single-family residence", "other": "other (named in notes)"}


@dataclass(frozen=True)
class TemplateField:
    """One field of a role layer: name, storage type, alias with its unit, widget vocabulary.

    Types: ``str``, ``float``, ``bool`` (BOOLEAN, a check box) and ``yesno`` (INTEGER 1 / 0 / NULL, a
    three-way value map: see the module docstring).
    """

    name: str
    type: str
    alias: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class TemplateLayer:
    """One role layer: its GeoPackage geometry type and fields."""

    role: str
    geometry: str
    fields: tuple[TemplateField, ...]


def _id(noun: str) -> TemplateField:
    return TemplateField("id", "str", f"{noun} id (as on the plan, e.g. DW-1)")


def _uses(pack: RulePack | None, key: str) -> tuple[str, ...]:
    """Every ``key`` list (``road_uses``, ``lawn_uses``) the pack's classification and rules hold, in order."""
    found: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k == key and isinstance(x, list):
                    found.extend(str(u) for u in x if str(u) not in found)
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    if pack is not None:
        walk(dict(pack.raw))
    return tuple(found)


def template_layers(pack: RulePack | None = None) -> tuple[TemplateLayer, ...]:
    """The role layers of a new site package, in :data:`ROLES` order (the site-package table of docs/usage.md).

    Parameters
    ----------
    pack : RulePack, optional
        The jurisdiction's pack: its ``road_uses`` and ``lawn_uses`` join the ``use`` vocabularies.
    """
    # the canonical spelling of each use the classification reads, and "other" (read as neither)
    building_uses = tuple(sorted(u for u in SINGLE_FAMILY_USES if u == "single_family")) + tuple(sorted(u for u in ACCESSORY_USES if u == "accessory")) + ("other",)
    layers = {
        "parcels": ("MultiPolygon", (
            _id("parcel"), TemplateField("is_site", "bool", "site parcel (the parcel of the application)"),
            TemplateField("proposed_lot", "yesno", "a new lot of a proposed 2–4 lot subdivision"),
            TemplateField("PRINT_KEY", "str", "tax map print key (section-block-lot)"), TemplateField("SBL", "str", "SBL"),
            TemplateField("PARCELADDR", "str", "parcel address"), TemplateField("PRMY_OWNER", "str", "owner"),
            TemplateField("MAIL_ADDR", "str", "owner's mailing address"), TemplateField("MAIL_CITY", "str", "mailing city"),
            TemplateField("MAIL_STATE", "str", "mailing state"), TemplateField("MAIL_ZIP", "str", "mailing ZIP"))),
        "building_sites": ("MultiPolygon", (_id("building site"), TemplateField("use", "str", "use of the building", building_uses),
                                            TemplateField("status", "str", "status (blank: proposed)", BUILDING_STATUSES))),
        "devices": ("Point", (
            _id("device"), TemplateField("device_type", "str", "device type", DEVICE_TYPES),
            TemplateField("vehicle_traffic", "yesno", "serves roads, parking, driveways or other vehicle traffic"),
            TemplateField("high_traffic", "yesno", "serves high traffic areas (implies vehicle traffic)"),
            TemplateField("storage_gal", "float", "storage volume (gal)"),
            TemplateField("bottom_elev_ft", "float", "device bottom elevation (ft)"),
            TemplateField("shgw_elev_ft", "float", "seasonal high groundwater elevation at the device, from the test pit (ft)"),
            TemplateField("bedrock_elev_ft", "float", "bedrock elevation at the device, from the test pit (ft)"),
            TemplateField("drain_days", "float", "drain time (days)"))),
        "wells": ("Point", (_id("well"),)),
        "septic": ("MultiPolygon", (_id("septic system (leach field)"),)),
        "wetlands": ("MultiPolygon", (_id("wetland"),)),
        "shoreline": ("MultiLineString", (_id("shoreline"), TemplateField("waterbody", "str", "water body (e.g. Lake George)"))),
        "waterbodies": ("MultiPolygon", (_id("water body"), TemplateField("name", "str", "name"))),
        "streams": ("MultiLineString", (_id("stream"), TemplateField("name", "str", "name"),
                                        TemplateField("class", "str", "NYSDEC classification (e.g. C(T))"))),
        "clearing": ("MultiPolygon", (_id("clearing"), TemplateField("use", "str", "use after clearing", (_uses(pack, "lawn_uses") or ("lawn",)) + ("other",)))),
        "disturbance": ("MultiPolygon", (_id("disturbance"), TemplateField("use", "str", "use", (_uses(pack, "road_uses") or ("road",)) + ("other",)),
                                         TemplateField("previously_developed", "yesno", "previously developed"))),
        "impervious": ("MultiPolygon", (_id("impervious area"), TemplateField("status", "str", "status", tuple(IMPERVIOUS_STATUSES)),
                                        TemplateField("previously_developed", "yesno", "previously developed"))),
        "soils": ("MultiPolygon", (_id("soil unit"), TemplateField("high_transport", "yesno", "high pollutant-transport potential"),
                                   TemplateField("perc_min_per_in", "float", "percolation rate (min/in)"))),
    }
    assert tuple(layers) == ROLES, "the template must hold every role, in the documented order"
    return tuple(TemplateLayer(role, g, f) for role, (g, f) in layers.items())


def _label(value: str) -> str:
    return _LABEL_OVERRIDES.get(value, value.replace("_", " "))


def _value_map(values: Sequence[str], labelled: Sequence[tuple[str, str]] = ()) -> str:
    pairs = list(labelled) or [(_label(v), v) for v in values]
    items = "".join(f'<Option type="Map"><Option type="QString" name={quoteattr(k)} value={quoteattr(v)}/></Option>' for k, v in pairs)
    return f'<Option type="Map"><Option type="List" name="map">{items}</Option></Option>'


#: QGIS's value-map key for NULL (QgsValueMapFieldFormatter::NULL_VALUE).
_QGIS_NULL = "{2839923C-8B7D-419E-B84B-CA2FE9B80EC7}"
_YES_NO_UNKNOWN = (("yes", "1"), ("no", "0"), ("not answered (unknown)", _QGIS_NULL))

_CHECKBOX = ('<Option type="Map"><Option type="QString" name="CheckedState" value=""/><Option type="QString" name="UncheckedState" value=""/>'
             '<Option type="int" name="TextDisplayMethod" value="1"/><Option type="bool" name="AllowNullState" value="true"/></Option>')


def template_request(out: Path, jurisdiction: str, crs_text: str | None = None) -> tuple[tuple[TemplateLayer, ...], str]:
    """The layers of the empty site package ``out`` for ``jurisdiction`` and the CRS it is drawn in, as ``new-site`` writes them.

    The CRS is ``crs_text``, else the one the pack suggests for plans (``site_crs``, e.g. ``EPSG:2260``).
    :class:`~stormwater_plugin.services.input_errors.InputError` for a path that is not a GeoPackage's, an unknown
    jurisdiction, or no CRS given where the pack suggests none.
    """
    if out.suffix.lower() != ".gpkg":
        raise InputError(f"--out {out}: give a .gpkg path")
    try:
        pack = load_pack(jurisdiction)
    except PackError as exc:
        raise InputError(str(exc)) from exc
    text = crs_text or pack.site_crs
    if not text:
        raise InputError(f"the {jurisdiction} pack suggests no coordinate system: give --crs")
    return template_layers(pack), str(text)


def layer_qml(layer: TemplateLayer) -> str:
    """The QML of a role layer's attribute form: ValueMap for vocabularies and yes/no/unknown answers, CheckBox for is_site, aliases with units."""
    fields = []
    for f in layer.fields:
        if f.values:
            widget, config = "ValueMap", _value_map(f.values)
        elif f.type == "bool":
            widget, config = "CheckBox", _CHECKBOX
        elif f.type == "yesno":
            widget, config = "ValueMap", _value_map((), _YES_NO_UNKNOWN)
        else:
            widget, config = "TextEdit", '<Option type="Map"><Option type="bool" name="IsMultiline" value="false"/><Option type="bool" name="UseHtml" value="false"/></Option>'
        fields.append(f'<field name={quoteattr(f.name)} configurationFlags="None"><editWidget type="{widget}"><config>{config}</config></editWidget></field>')
    aliases = "".join(f'<alias field={quoteattr(f.name)} index="{i + 1}" name={quoteattr(f.alias)}/>' for i, f in enumerate(layer.fields))
    return ("<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
            '<qgis version="3.22.0" styleCategories="Fields|Forms">'
            f"<fieldConfiguration>{''.join(fields)}</fieldConfiguration><aliases>{aliases}</aliases>"
            '<editform tolerant="1"></editform><editforminit/><editforminitcodesource>0</editforminitcodesource>'
            "<editorlayout>generatedlayout</editorlayout></qgis>\n")


STYLE_NAME = "stormwater-check form"


def write_layer_styles(gpkg: Path | str, layers: Sequence[TemplateLayer], geometry_column: str = "geom") -> None:
    """Store each layer's form in the package's ``layer_styles`` table as its default style (``useAsDefault`` 1).

    The table has the columns QGIS creates; it is registered in ``gpkg_contents`` as an attributes table.
    Earlier styles of these layers named :data:`STYLE_NAME` are replaced.
    """
    con = sqlite3.connect(str(gpkg))
    try:
        con.execute(
            "CREATE TABLE IF NOT EXISTS layer_styles (id INTEGER PRIMARY KEY AUTOINCREMENT, f_table_catalog TEXT(256), f_table_schema TEXT(256), "
            "f_table_name TEXT(256), f_geometry_column TEXT(256), styleName TEXT(30), styleQML TEXT, styleSLD TEXT, useAsDefault BOOLEAN, "
            "description TEXT, owner TEXT(30), ui TEXT(30), update_time DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
        )
        con.execute("INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description, last_change) "
                    "VALUES ('layer_styles', 'attributes', 'layer_styles', '', strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
        for layer in layers:
            con.execute("DELETE FROM layer_styles WHERE f_table_name = ? AND styleName = ?", (layer.role, STYLE_NAME))
            con.execute("UPDATE layer_styles SET useAsDefault = 0 WHERE f_table_name = ?", (layer.role,))
            con.execute(
                "INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML, styleSLD, "
                "useAsDefault, description, owner, ui) VALUES ('', '', ?, ?, ?, ?, '', 1, ?, '', NULL)",
                (layer.role, geometry_column, STYLE_NAME, layer_qml(layer), f"attribute form of the {layer.role} layer (stormwater-check new-site)"),
            )
        con.commit()
    finally:
        con.close()


# --------------------------------------------------------------------------- what an empty template layer says

#: The template's table of the applicant's statements: one row per role layer (``role``), ``none_present`` 1 when
#: the applicant states there is none of that role on the site and within reach (NULL: not answered), ``note``.
#: Its presence marks the package as a template (``stormwater-check new-site``, the dock's *New site plan…*).
STATEMENTS_TABLE = "site_statements"

class TemplateError(StormwaterError, ValueError):
    """A template the check cannot read as it is (nothing drawn, or its statements unreadable): one line saying why."""


#: The statements table's fields, for its QGIS form (``none_present`` a yes / no / not answered value map).
STATEMENTS_LAYER = TemplateLayer(STATEMENTS_TABLE, "None", (
    TemplateField("role", "str", "role layer"),
    TemplateField("none_present", "yesno", "none of this role on the site and within reach (yes: the applicant states there are none)"),
    TemplateField("note", "str", "note (who states it, from what survey)"),
))


def write_site_statements(gpkg: Path | str, layers: Sequence[TemplateLayer]) -> None:
    """Add the :data:`STATEMENTS_TABLE` (one unanswered row per role layer), registered in ``gpkg_contents`` as an attributes table, with its form."""
    con = sqlite3.connect(str(gpkg))
    try:
        con.execute(f"CREATE TABLE IF NOT EXISTS {STATEMENTS_TABLE} (fid INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, "
                    "none_present INTEGER, note TEXT)")
        con.execute("INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description, last_change) "
                    f"VALUES ('{STATEMENTS_TABLE}', 'attributes', '{STATEMENTS_TABLE}', "
                    "'the applicant''s statements: none_present = 1 where there is none of a role (an empty layer of a template is read as not drawn)', "
                    "strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
        con.execute(f"DELETE FROM {STATEMENTS_TABLE}")
        con.executemany(f"INSERT INTO {STATEMENTS_TABLE} (role, none_present, note) VALUES (?, NULL, NULL)", [(layer.role,) for layer in layers])
        con.commit()
    finally:
        con.close()
    write_layer_styles(gpkg, [STATEMENTS_LAYER], geometry_column="")


def none_stated(rows: Sequence[tuple[object, object]]) -> frozenset[str]:
    """The roles whose statement row (``role``, ``none_present``) says there are none (1, yes, true)."""

    return frozenset(str(r).strip().lower() for r, v in rows if r is not None and truthy(v))


def read_statements(package: Path) -> frozenset[str] | None:
    """The roles the template's applicant states there are none of; ``None`` when ``package`` is no template (no statements table)."""
    path = Path(package)
    if path.suffix.lower() != ".gpkg" or not path.is_file():
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (STATEMENTS_TABLE,)).fetchone() is None:
                return None
            return none_stated(con.execute(f"SELECT role, none_present FROM {STATEMENTS_TABLE}").fetchall())
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise TemplateError(f"{package}: its {STATEMENTS_TABLE} table cannot be read ({exc})") from exc


def undrawn_roles(counts: Mapping[str, int], stated_none: Collection[str]) -> list[str]:
    """The template's empty role layers read as *not drawn* (absent, not "none"): empty, and the applicant states no "none".

    The guide's rule: the absence of a finding never means compliant. An empty layer of an ordinary
    package says "none"; a template is created with every layer empty, so its empty layer only says the
    layer was not drawn, until the applicant states there are none (:data:`STATEMENTS_TABLE`).
    """
    return [r for r, n in counts.items() if n == 0 and r not in stated_none]


def undrawn_note(role: str) -> str:
    """The warning saying a template's empty layer was read as not drawn."""
    return (f"the template's {role} layer is empty: read as not drawn (not supplied), never as 'no {ROLE_NOUN.get(role, role)}s'; "
            f"draw them, or state there are none (none_present = 1 for {role} in the package's {STATEMENTS_TABLE} table)")


def empty_template_problem(package: str, counts: Mapping[str, int]) -> str | None:
    """The refusal's one line for a template with nothing drawn (every role layer empty), else ``None``."""
    if any(n > 0 for n in counts.values()):
        return None
    return (f"{package} is an empty site template: nothing is drawn, nothing to check. Draw at least the site parcel (parcels, is_site) "
            f"and the proposed work ({', '.join(r for r in MUST_DRAW_ROLES if r != 'parcels')}, building_sites, disturbance…); "
            "`stormwater-check completeness` lists what the submission must show")


__all__ = ["TemplateField", "TemplateLayer", "template_layers", "layer_qml", "write_layer_styles", "STYLE_NAME", "STATEMENTS_TABLE", "STATEMENTS_LAYER", "TemplateError",
           "write_site_statements", "read_statements", "none_stated", "undrawn_roles", "undrawn_note", "empty_template_problem"]
