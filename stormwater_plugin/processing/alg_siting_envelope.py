"""Processing algorithm "Siting envelope": where on the site parcel an infiltration device of one kind may go."""

from __future__ import annotations

from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterNumber,
    QgsWkbTypes,
)

from ..core.model import DEVICE_TYPES
from ..core.rulepack import load_pack
from ..qgis_bridge.compat import FIELD_DOUBLE, FIELD_INT, FIELD_STRING
from ..qgis_bridge.results import make_fields, parts_by_family
from .common import Z_UNIT_OPTIONS, SiteAlgorithm, write_rows

ENVELOPE_FIELDS = (
    ("device_type", FIELD_STRING),
    ("high_traffic", FIELD_INT),
    ("project_class", FIELD_STRING),
    ("site_parcel", FIELD_STRING),
    ("area_sqft", FIELD_DOUBLE),
    ("rules", FIELD_STRING),
    ("not_checked", FIELD_STRING),
)
EXCLUDED_FIELDS = (
    ("rule_id", FIELD_STRING),
    ("citation", FIELD_STRING),
    ("reason", FIELD_STRING),
    ("required_ft", FIELD_DOUBLE),
    ("kind", FIELD_STRING),
    ("target_layer", FIELD_STRING),
    ("target_id", FIELD_STRING),
    ("area_sqft", FIELD_DOUBLE),
)
DESIGN_FIELDS = (
    ("rule_id", FIELD_STRING),
    ("citation", FIELD_STRING),
    ("reason", FIELD_STRING),
    ("threshold_pct", FIELD_DOUBLE),
    ("status", FIELD_STRING),
    ("area_sqft", FIELD_DOUBLE),
)


class SitingEnvelope(SiteAlgorithm):
    """The site parcel minus every zone where a device of the chosen kind may not go, with the zones and the steep areas."""

    DEVICE_TYPE = "DEVICE_TYPE"
    HIGH_TRAFFIC = "HIGH_TRAFFIC"
    CELL_FT = "CELL_FT"
    ENVELOPE = "ENVELOPE"
    EXCLUDED = "EXCLUDED"
    PROFESSIONAL = "NEEDS_PROFESSIONAL_DESIGN"
    AREA = "AREA_SQFT"

    required_roles = ("parcels",)

    def name(self) -> str:
        return "sitingenvelope"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Siting envelope")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Where on the site parcel an infiltration device of the chosen type and traffic class may be placed: the parcel minus "
            "every setback zone of the rules that apply (with the rule, citation, reason and required distance of each), and the "
            "shoreline no-cut buffer where the jurisdiction has one. Gradient rules follow the DEM: the 20 ft septic zone covers only "
            "the ground upgradient of the septic system; places where the gradient is unknown (no DEM, nodata) are excluded, never "
            "allowed. Distance limits are drawn so that no point of the envelope is closer than the limit. Ground steeper than the "
            "device-slope threshold is not excluded but returned as 'needs professional design'. Rules whose layers are missing draw "
            "no zone and are listed in the envelope's not_checked field."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.add_site_parameters()
        self.addParameter(QgsProcessingParameterEnum(self.DEVICE_TYPE, self.tr("Device type"), options=list(DEVICE_TYPES), defaultValue=0))
        self.addParameter(QgsProcessingParameterBoolean(self.HIGH_TRAFFIC, self.tr("Serves roadways, parking or other vehicle areas (high traffic)"), defaultValue=False))
        self.addParameter(
            QgsProcessingParameterNumber(self.CELL_FT, self.tr("Grid cell for gradient boundaries (ft)"), QgsProcessingParameterNumber.Type.Double, 1.0, minValue=0.1, maxValue=50.0)
        )
        self.addParameter(QgsProcessingParameterFeatureSink(self.ENVELOPE, self.tr("Siting envelope"), QgsProcessing.SourceType.TypeVectorPolygon))
        self.addParameter(QgsProcessingParameterFeatureSink(self.EXCLUDED, self.tr("Excluded zones"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=True))
        self.addParameter(
            QgsProcessingParameterFeatureSink(self.PROFESSIONAL, self.tr("Needs professional design (steep ground)"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=True)
        )
        self.addOutput(QgsProcessingOutputNumber(self.AREA, self.tr("Envelope area (sq ft)")))

    def _reread_dem(self, parameters: dict, context: Any, snap: Any, pack: Any) -> None:
        """Read the DEM over the site parcel grown by the rules' reach (the snapshot reads it around the plan)."""
        import shapely

        from ..core.engine import find_site_parcels
        from ..core.geometry import clean_layer
        from ..headless.envelope_cli import reach_ft
        from ..qgis_bridge.dem import read_dem

        dem_layer = self.parameterAsRasterLayer(parameters, self.DEM, context)
        inputs = snap.inputs
        if dem_layer is None or inputs.dem is None or "parcels" not in inputs.layers:
            return
        scratch: list[Any] = []
        cleaned = {r: clean_layer(lyr, scratch) for r, lyr in inputs.layers.items()}
        idx = find_site_parcels(cleaned.get("parcels"), inputs.site_parcel_id, cleaned, scratch)
        if not idx:
            return
        site = shapely.union_all(cleaned["parcels"].geoms[idx])
        pad = (reach_ft(pack) + 20.0) / inputs.unit_to_ft
        minx, miny, maxx, maxy = site.bounds
        window = (minx - pad, miny - pad, maxx + pad, maxy + pad)
        z_units = Z_UNIT_OPTIONS[self.parameterAsEnum(parameters, self.Z_UNITS, context)][1]
        dem = read_dem(dem_layer.dataProvider().clone(), dem_layer.crs(), snap.crs, window, z_units, context.transformContext(), [], name=dem_layer.name())
        if dem is not None:
            inputs.dem = dem

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        import numpy as np

        from ..core.siting import SitingError, build_envelope

        snap, jurisdiction = self.take_snapshot(parameters, context, feedback)
        pack = load_pack(jurisdiction)
        self._reread_dem(parameters, context, snap, pack)
        feedback.setProgress(30)
        device_type = DEVICE_TYPES[self.parameterAsEnum(parameters, self.DEVICE_TYPE, context)]
        high_traffic = self.parameterAsBool(parameters, self.HIGH_TRAFFIC, context)
        cell_ft = self.parameterAsDouble(parameters, self.CELL_FT, context)
        try:
            with np.errstate(invalid="ignore"):
                env = build_envelope(snap.inputs, pack, device_type=device_type, high_traffic=high_traffic, cell_ft=cell_ft)
        except (SitingError, LookupError) as exc:
            raise QgsProcessingException(str(exc)) from exc
        feedback.setProgress(80)
        u = env.unit_to_ft
        out: dict[str, Any] = {}
        caveat = "; ".join(f"{n['rule_id']}: {n['reason']}" for n in env.not_checked) or None
        for n in env.not_checked:
            feedback.pushWarning(self.tr("Not checked [{0}]: {1}").format(n["citation"], n["reason"]))
        env_rows = [
            (
                parts_by_family(env.envelope).get("polygon") if not env.envelope.is_empty else None,
                [env.device_type, int(high_traffic), env.project_class, env.site_parcel_id, round(env.area_sqft(), 1), ", ".join(env.rule_ids), caveat],
            )
        ]
        ex_rows = [
            (
                parts_by_family(z.geometry).get("polygon"),
                [z.rule_id, z.citation, z.reason, z.required_ft, z.kind, z.target.layer if z.target else None, z.target.id if z.target else None, round(float(z.geometry.area) * u * u, 1)],
            )
            for z in env.excluded
        ]
        pd_rows = [
            (parts_by_family(z.geometry).get("polygon"), [z.rule_id, z.citation, z.reason, z.threshold_pct, z.status, round(float(z.geometry.area) * u * u, 1)])
            for z in env.needs_professional_design
        ]
        for key, specs, rows in ((self.ENVELOPE, ENVELOPE_FIELDS, env_rows), (self.EXCLUDED, EXCLUDED_FIELDS, ex_rows), (self.PROFESSIONAL, DESIGN_FIELDS, pd_rows)):
            fields = make_fields(specs)
            sink, dest = self.parameterAsSink(parameters, key, context, fields, QgsWkbTypes.Type.MultiPolygon, snap.crs)
            if sink is None:
                continue
            write_rows(sink, fields, rows)
            out[key] = dest
        out[self.AREA] = round(env.area_sqft(), 1)
        feedback.pushInfo(
            self.tr("Envelope: {0:,.0f} of {1:,.0f} sq ft of the site parcel; {2} excluded zone(s)").format(env.area_sqft(), float(env.site.area) * u * u, len(env.excluded))
        )
        return out
