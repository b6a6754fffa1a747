"""DXF site plans built with ezdxf in the shapes real drawings have: the demo plan as a civil engineer would draw it.

National CAD Standard layers; dry wells as DRYWELL blocks with attributes; outlines as closed
LWPOLYLINEs (the site line with a bulge-free arc-less outline, a wetland with bulges); ids as TEXT and
MTEXT labels on the group's -IDEN layer or as data-tag blocks; the lake as a hatch over its outline;
INSUNITS feet; model space only. Coordinates in NAD83 / New York East (ftUS), or shifted to local ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fiona
import numpy as np
from pyproj import Transformer
from shapely.geometry import shape

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"

DEVICE_LAYERS = {
    "dry_well": "C-STRM-DRYW",
    "infiltration_trench": "C-STRM-TRNC",
    "porous_pavement": "C-STRM-PORP",
    "vegetated_depression": "C-STRM-VEGD",
    "infiltration_basin": "C-STRM-BASN",
}
DEVICE_FIELDS = ("device_type", "vehicle_traffic", "high_traffic", "storage_gal", "bottom_elev_ft", "shgw_elev_ft", "bedrock_elev_ft", "drain_days")
AREA_LAYERS = {
    "building_sites": "C-BLDG-OTLN",
    "septic": "C-SSWR-SEPT",
    "wetlands": "V-HYDR-WETL",
    "clearing": "L-CLRG-OTLN",
    "disturbance": "C-ESCL-LOD",
    "soils": "C-SOIL-BNDY",
}


def _demo(layer: str) -> list[tuple[Any, dict[str, Any]]]:
    with fiona.open(str(DEMO / "site.gpkg"), layer=layer) as src:
        return [(shape(f.geometry), dict(f.properties)) for f in src]


def demo_plan_dxf(path: Path, *, crs: str = "EPSG:2260", offset: tuple[float, float] = (0.0, 0.0), insunits: int = 2, scale: float = 1.0,
                  device_type_tags: bool = True) -> Path:
    """Write the demo site plan as a DXF; ``offset`` shifts it (local coordinates), ``scale`` converts units (e.g. 0.3048006 for metres)."""
    import ezdxf

    to = Transformer.from_crs("EPSG:26918", crs, always_xy=True)

    def xy(g: Any) -> list[tuple[float, float]]:
        c = np.asarray(g.coords)
        x, y = to.transform(c[:, 0], c[:, 1])
        return [((float(a) + offset[0]) * scale, (float(b) + offset[1]) * scale) for a, b in zip(x, y)]

    doc = ezdxf.new("R2010")
    doc.header["$INSUNITS"] = insunits
    msp = doc.modelspace()
    dw = doc.blocks.new(name="DRYWELL")
    dw.add_circle((0, 0), 2.0)
    for tag in ("ID",) + DEVICE_FIELDS:
        dw.add_attdef(tag, (0, 0), dxfattribs={"height": 0.5})
    tag_blk = doc.blocks.new(name="SW-TAG")
    tag_blk.add_circle((0, 0), 0.5)
    well = doc.blocks.new(name="WELL")
    well.add_circle((0, 0), 1.0)

    def tagged(layer: str, at: tuple[float, float], values: dict[str, Any]) -> None:
        ref = msp.add_blockref("SW-TAG", at, dxfattribs={"layer": layer})
        for k, v in values.items():
            if v is not None:
                ref.add_attrib(k.upper(), str(v), insert=at)

    site = next(g for g, a in _demo("parcels") if a.get("is_site"))
    msp.add_lwpolyline(xy(site.exterior)[:-1], close=True, dxfattribs={"layer": "C-PROP-LINE"})
    for g, a in _demo("devices"):
        values = {k: a.get(k) for k in DEVICE_FIELDS if k != "device_type" or device_type_tags}
        if g.geom_type == "Point":
            ref = msp.add_blockref("DRYWELL", xy(g)[0], dxfattribs={"layer": DEVICE_LAYERS[a["device_type"]]})
            ref.add_attrib("ID", a["id"], insert=xy(g)[0])
            for k, v in values.items():
                ref.add_attrib(k.upper(), str(v), insert=xy(g)[0])
        else:
            layer = DEVICE_LAYERS[a["device_type"]]
            msp.add_lwpolyline(xy(g.exterior)[:-1], close=True, dxfattribs={"layer": layer})
            p = g.representative_point()
            tagged(layer, xy(p)[0], {"id": a["id"], **values})
    for role, layer in AREA_LAYERS.items():
        group = "-".join(layer.split("-")[:2])
        for g, a in _demo(role):
            msp.add_lwpolyline(xy(g.exterior)[:-1], close=True, dxfattribs={"layer": layer})
            extra = {k: a.get(k) for k in ("use", "status", "high_transport", "perc_min_per_in", "name") if a.get(k) is not None}
            p = xy(g.representative_point())[0]
            if extra:
                tagged(layer, p, {"id": a["id"], **extra})
            elif role == "septic":
                msp.add_mtext(a["id"], dxfattribs={"layer": f"{group}-IDEN", "insert": p, "char_height": 2.0})
            else:
                msp.add_text(a["id"], dxfattribs={"layer": f"{group}-IDEN", "insert": p, "height": 2.0})
    for g, a in _demo("impervious"):
        layer = "C-PVMT-OTLN" if a.get("status") == "proposed" else "V-PVMT-OTLN"
        msp.add_lwpolyline(xy(g.exterior)[:-1], close=True, dxfattribs={"layer": layer})
        msp.add_text(a["id"], dxfattribs={"layer": layer.replace("-OTLN", "-IDEN"), "insert": xy(g.representative_point())[0], "height": 2.0})
    for g, a in _demo("wells"):
        at = xy(g)[0]
        msp.add_blockref("WELL", at, dxfattribs={"layer": "C-WATR-WELL"})
        msp.add_text(a["id"], dxfattribs={"layer": "C-WATR-IDEN", "insert": (at[0] + 2.0 * scale, at[1] + 1.0 * scale), "height": 2.0})
    for g, a in _demo("shoreline"):
        pts = xy(g)
        msp.add_lwpolyline(pts, dxfattribs={"layer": "V-HYDR-MHWL"})
        mid = pts[len(pts) // 2]
        tagged("V-HYDR-MHWL", mid, {"id": a["id"], "waterbody": a.get("waterbody")})
    for g, a in _demo("streams"):
        pts = xy(g)
        msp.add_lwpolyline(pts, dxfattribs={"layer": "V-HYDR-STRM"})
        tagged("V-HYDR-STRM", pts[len(pts) // 2], {"id": a["id"], "name": a.get("name")})
    for g, a in _demo("waterbodies"):
        ring = xy(g.exterior)[:-1]
        msp.add_lwpolyline(ring, close=True, dxfattribs={"layer": "V-HYDR-LAKE"})
        hatch = msp.add_hatch(dxfattribs={"layer": "V-HYDR-LAKE"})
        hatch.paths.add_polyline_path(ring, is_closed=True)
        tagged("V-HYDR-LAKE", xy(g.representative_point())[0], {"id": a["id"], "name": a.get("name")})
    # Sheet furniture and layers no rule maps.
    msp.add_text("SITE PLAN - NOT FOR CONSTRUCTION", dxfattribs={"layer": "G-ANNO-TTLB", "insert": xy(site.centroid)[0], "height": 5.0})
    c = xy(site.centroid)[0]
    msp.add_line(c, (c[0] + 30 * scale, c[1]), dxfattribs={"layer": "C-STRM-PIPE"})
    msp.add_circle(c, 3.0, dxfattribs={"layer": "E-LITE-POLE"})
    doc.saveas(str(path))
    return path
