"""Generate the demo lakeside site: ``resources/demo/site.gpkg`` and ``resources/demo/dem.tif``.

The scene is fictional (no real parcel, owner or terrain data) but shaped like a
lot on the west shore of Lake George, NY, between Diamond Point and Bolton
Landing (around lon -73.66, lat 43.50). Local coordinates are metres from an
origin on the mean high-water line: +x east (towards the lake), +y north.

* Lake George lies east of a gently curving shoreline; its surface is 97.5 m
  (about 320 ft). Land rises westward at ~7 % with smooth undulation and a few
  seeded knolls; a steep riser (>15 % over 100 ft) crosses the rear of the site
  just below Lake Shore Dr. Mud Pond sits in a flat basin ~170 m inland and
  drains by a brook that crosses the second lot north of the site to the lake.
* Site: parcel 171.15-1-23 (60 m frontage x 120 m deep) with an old camp near
  the shore, a proposed house on gentle ground, a garage site on the steep
  riser, a porous driveway from the road down to a parking pad, two dry wells,
  an infiltration trench, a vegetated depression and a septic leach field.
* Neighbours: a lakefront row, a row across the 15 m road right-of-way and a
  rear row; some lie beyond the 500 ft notification radius.

Intended findings (minor project, ~10,800 sq ft disturbed):
  DW-1 is 14 ft UPgradient of the site leach field S-1 (20 ft rule: violation);
  IT-1's nearest point is 12 ft DOWNgradient of S-1, but its west edge, 16.5 ft from the field, stands level with it
    within the pack's 0.5 ft tolerance, so the 20 ft rule applies there (violation since the whole-device reading);
  PP-1, a high-traffic porous pavement, is ~80 ft from the shoreline (100 ft);
  lawn clearing C-1 reaches ~20 ft of the mean high-water line (35 ft no-cut);
  DW-2 is 80 ft upgradient of neighbour well W-2 (major-project 100 ft rule).
  VD-1 is downgradient of well W-1 and wetland WL-1 at 60-90 ft: passes as a minor project; under LGPC major a part
    level with WL-1 within 0.5 ft at 88 ft breaks the 100 ft downgradient rule.

Vectors and the DEM are in EPSG:26918, NAD83 / UTM 18N (one datum, so QGIS asks for no datum transformation; the DEM is 1 m, elevations in metres)
so that readers must reproject. Run: ``python scripts/make_demo_site.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

import fiona
import geopandas as gpd
import numpy as np
import rasterio
import shapely
from pyproj import Transformer
from rasterio.transform import from_origin
from shapely import affinity
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

SEED = 1873  # fixed: the knolls of the terrain
# Reproducible GeoPackages: GDAL stamps the write time into gpkg_contents unless told a date.
os.environ.setdefault("OGR_CURRENT_DATE", "2026-11-30T00:00:00.000Z")
VEC_CRS, DEM_CRS = "EPSG:26918", "EPSG:26918"
ORIGIN_E, ORIGIN_N = 608330.0, 4817210.0  # EPSG:26918 of about (-73.66, 43.50)
LAKE_M = 97.5  # Lake George surface, metres
FT = 0.3048  # metres per international foot
DEM_BOX = (-420, -310, 200, 310)  # local x0, y0, x1, y1 of the DEM (1 m pixels)
SITE_Y = (-30.0, 30.0)
ROAD_X = (-135.0, -120.0)  # 15 m right-of-way of Lake Shore Dr


def shore_x(y):
    """x of the mean high-water line at northing ``y`` (local metres)."""
    y = np.asarray(y, dtype=float)
    return 2.5 * np.sin(y / 75 + 0.5) - 2.5 * math.sin(0.5) + 10 * (y / 340) ** 2


def smoothstep(t):
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3 - 2 * t)


class Terrain:
    """Analytic ground surface in metres at local (x, y); exactly ``LAKE_M`` on the lake."""

    POND_C, POND_AX, POND_ROT = (-265.0, 150.0), (28.0, 18.0), math.radians(20)

    def __init__(self, seed: int = SEED):
        rng = np.random.default_rng(seed)
        n = 14
        self.knolls = np.column_stack([rng.uniform(-400, -20, n), rng.uniform(-300, 300, n),
                                       rng.uniform(-0.5, 0.8, n), rng.uniform(22, 50, n)])
        t = np.linspace(0, 2 * np.pi, 720)
        bx, by = self._pond_xy(t)
        self.pond_level = float(self._base(bx, by).min()) - 0.25

    def _pond_xy(self, t):
        (cx, cy), (a, b), r = self.POND_C, self.POND_AX, self.POND_ROT
        u, v = a * np.cos(t), b * np.sin(t)
        return cx + u * math.cos(r) - v * math.sin(r), cy + u * math.sin(r) + v * math.cos(r)

    def pond_k(self, x, y):
        """Normalised ellipse radius of Mud Pond (<= 1 inside)."""
        (cx, cy), (a, b), r = self.POND_C, self.POND_AX, self.POND_ROT
        dx, dy = np.asarray(x) - cx, np.asarray(y) - cy
        u, v = dx * math.cos(r) + dy * math.sin(r), -dx * math.sin(r) + dy * math.cos(r)
        return np.sqrt((u / a) ** 2 + (v / b) ** 2)

    def _base(self, x, y):
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        d = np.maximum(shore_x(y) - x, 0.0)  # distance inland; 0 on the lake
        ramp = 1 - np.exp(-d / 25)
        riser_h = 2 + 5 * np.exp(-((y / 80) ** 2))  # steepest behind the site
        riser = riser_h * (1 / (1 + np.exp(-(d - 110) / 7)) - 1 / (1 + math.exp(110 / 7)))
        undul = 0.5 * np.sin(2 * np.pi * y / 140 + 0.7) + 0.35 * np.sin(2 * np.pi * (x + 0.3 * y) / 190 + 1.3)
        kx, ky, ka, ks = (c[:, None] for c in self.knolls.T)
        knolls = (ka * np.exp(-((x.ravel() - kx) ** 2 + (y.ravel() - ky) ** 2) / (2 * ks**2))).sum(0).reshape(x.shape)
        return LAKE_M + 0.8 * (1 - np.exp(-d / 4)) + 0.07 * d + riser + ramp * (undul + knolls)

    def __call__(self, x, y):
        base, k, lvl = self._base(x, y), self.pond_k(x, y), self.pond_level
        banks = np.minimum(base, lvl + (base - lvl) * smoothstep((k - 1) / 0.5))
        return np.where(k <= 1, lvl, banks)

    def pond_polygon(self) -> Polygon:
        return Polygon(np.column_stack(self._pond_xy(np.linspace(0, 2 * np.pi, 73)[:-1])))


def slope_100ft(terrain: Terrain, c: Point) -> float:
    """Steepest grade (%) across a 100 ft span centred on ``c``, over 36 directions."""
    a = np.radians(np.arange(0, 180, 5))
    h = 50 * FT
    dz = terrain(c.x + h * np.cos(a), c.y + h * np.sin(a)) - terrain(c.x - h * np.cos(a), c.y - h * np.sin(a))
    return float(np.abs(dz).max() / (100 * FT) * 100)


def lakefront_lot(y0: float, y1: float, x_west: float = ROAD_X[1]) -> Polygon:
    ys = np.linspace(y1, y0, max(int((y1 - y0) / 5), 2) + 1)
    return Polygon([(x_west, y0), (x_west, y1), *zip(shore_x(ys), ys)])


def offset_to(geom, target, want_m: float, move=lambda g, s: affinity.translate(g, xoff=s)):
    """Shift ``geom`` (by ``move``) until its distance to ``target`` is ``want_m``."""
    shift = 0.0
    for _ in range(20):
        err = move(geom, shift).distance(target) - want_m
        if abs(err) < 1e-6:
            break
        shift += err
    return move(geom, shift)


# Owners: (PRMY_OWNER, MAIL_ADDR, MAIL_CITY, MAIL_STATE, MAIL_ZIP); None mail = the parcel address.
LOCAL = ("Bolton Landing", "NY", "12814")
HARTWELL = ("Hartwell Family Trust", "PO Box 218", "Bolton Landing", "NY", "12814")
LAKEFRONT = [  # south to north: (y0, y1, house number, owner)
    (-345, -295, 4448, ("Gerald Tremblay", None)), (-295, -245, 4456, ("Patricia O'Keefe", None)),
    (-245, -200, 4466, ("Sandpiper Point LLC", "22 Maple St", "Glens Falls", "NY", "12801")),
    (-200, -160, 4478, ("Harold & Joan Brunelle", None)), (-160, -118, 4486, ("Kathleen Doherty", None)),
    (-118, -80, 4494, ("Peter Vanderwerker", "PO Box 77", "Diamond Point", "NY", "12824")),
    (-80, -30, 4504, ("Zoë Ménard", None)),
    (-30, 30, 4512, ("Daniel & Erin Whitcomb", "88 Bay Rd", "Queensbury", "NY", "12804")),  # the site
    (30, 95, 4520, HARTWELL),
    (95, 125, 4528, ("Raymond & Linda Kessler", "118 Ridgewood Ave", "Glen Ridge", "NJ", "07028")),
    (125, 170, 4536, ("Marjorie Hollister", None)), (170, 215, 4544, ("Thomas J. Gaffney", None)),
    (215, 262, 4552, ("Beverly Stanton", None)), (262, 310, 4560, ("Loon Cove Association Inc", None)),
    (310, 350, 4568, ("Alan Pettit", None)),
]
ROADSIDE = [  # west of the road, x -235..-135
    (-345, -270, 4451, ("Robert Ostrander", None)), (-270, -200, 4467, ("Nancy Fiorillo", None)),
    (-200, -130, 4481, ("Michael & Sue Lavallee", None)), (-130, -65, 4495, ("Donna Baertschi", None)),
    (-65, 0, 4507, ("Christopher Reyes", None)), (0, 60, 4519, HARTWELL),
    (60, 125, 4531, ("Eileen Carswell", None)), (125, 195, 4541, ("Francis Duprey", None)),
    (195, 265, 4553, ("Walter Lindqvist", None)), (265, 345, 4565, ("Janet Ruggiero", None)),
]
REAR = [  # along Mud Pond Rd, x -400..-235
    (-300, -150, 61, ("Town of Bolton", "4949 Lake Shore Dr", "Bolton Landing", "NY", "12814")),
    (-150, -40, 48, ("Gary & Ann Mosher", None)), (-40, 70, 35, ("Helen Birchwood", None)),
    (70, 200, 22, ("Mud Pond Preserve Inc", "PO Box 1031", "Lake George", "NY", "12845")),
    (200, 320, 9, ("Stephen Kowalczyk", None)),
]


def parcels() -> gpd.GeoDataFrame:
    rows = []
    for (sec, blk, lot0, street, x0, x1, table) in ((15, 1, 16, "Lake Shore Dr", None, None, LAKEFRONT),
                                                    (15, 2, 5, "Lake Shore Dr", -235, -135, ROADSIDE),
                                                    (11, 1, 30, "Mud Pond Rd", -400, -235, REAR)):
        for i, (y0, y1, num, owner) in enumerate(table):
            key = f"171.{sec}-{blk}-{lot0 + i}"
            addr = f"{num} {street}"
            mail = owner[1:] if owner[1] else (addr, *LOCAL)
            geom = lakefront_lot(y0, y1) if x0 is None else box(x0, y0, x1, y1)
            rows.append(dict(id=key, is_site=int(x0 is None and y0 == SITE_Y[0]), PRINT_KEY=key,
                             SBL=f"171{sec:03d}0000{blk:03d}{lot0 + i:03d}0000000", PARCELADDR=addr,
                             PRMY_OWNER=owner[0], MAIL_ADDR=mail[0], MAIL_CITY=mail[1], MAIL_STATE=mail[2],
                             MAIL_ZIP=mail[3], geometry=geom))
    return gpd.GeoDataFrame(rows, crs=VEC_CRS)


def build(terrain: Terrain) -> dict[str, gpd.GeoDataFrame]:
    """All vector layers, laid out in local metres and shifted to EPSG:26918."""
    ys = np.arange(-360, 361, 5.0)
    shore = LineString(np.column_stack([shore_x(ys), ys]))
    lake = Polygon([*shore.coords, (900, 360), (900, -360)])
    pond = terrain.pond_polygon()
    site = lakefront_lot(*SITE_Y)

    # Site works (local metres). Leach field first; devices placed from it.
    septic_site = box(-44, -22, -32, -12)
    dw1 = Point(-44 - 14 * FT, -15)  # 14 ft west (uphill) of the field
    it1 = box(-32 + 12 * FT, -22, -32 + 12 * FT + 1.5, -12)  # 10 x 1.5 m, 12 ft east (downhill)
    dw2 = Point(-68, -26.5)
    u = np.array([12.0, -21.5]) / math.hypot(12.0, -21.5)
    well_n = Point(dw2.x + 80 * FT * u[0], dw2.y + 80 * FT * u[1])  # Ménard well, 80 ft downhill of DW-2
    house = box(-58, -6, -43, 6)
    camp = box(-20, -6, -12, 4)
    dw_y0, dw_y1 = 25.4, 28.4  # 3 m driveway along the north line
    apron = box(ROAD_X[1], dw_y0, -103, dw_y1)  # asphalt apron at the road
    pad = offset_to(box(-9.6, 19.0, 0, dw_y1), shore, 80 * FT)  # parking pad 80 ft from the MHW line
    porous = unary_union([box(-103, dw_y0, pad.bounds[0] + 0.5, dw_y1), pad])
    vd1 = affinity.scale(Point(-80, 6).buffer(1, quad_segs=16), 4.5, 2.5)
    wetland = affinity.scale(Point(-96, -23).buffer(1, quad_segs=16), 5.5, 8)
    garage = box(-116, 13, -108, 21)
    lawn = box(-41, -1, 5, 6).difference(lake.buffer(20 * FT, quad_segs=32)).difference(camp)
    clear_house = house.buffer(1.5, join_style=2)
    clear_drive = unary_union([apron, porous]).buffer(0.5, join_style=2).intersection(site)
    disturbed = unary_union([lawn, clear_house, clear_drive, dw1.buffer(1.0), it1.buffer(0.75),
                             vd1.buffer(0.5), dw2.buffer(1.0)])

    # Brook: from Mud Pond's outlet (its lowest rim point) to the lake, meandering gently.
    ring = np.asarray(pond.exterior.coords)
    outlet = ring[np.argmax(ring[:, 0] - 0.3 * ring[:, 1])]
    bx = np.linspace(outlet[0], 0, 120)
    by = np.interp(bx, [outlet[0], -190, -140, -90, -40, 0], [outlet[1], 121, 101, 87, 80, 78])
    by += 2.0 * np.sin(bx / 13) * smoothstep((bx - outlet[0]) / 20) * smoothstep(-bx / 20)
    bx[-1] = float(shore_x(by[-1]))
    brook = LineString(np.column_stack([bx, by]))

    def dev(id_, kind, geom, ht, storage_gal, depth_ft, sep_gw, sep_rock, days):
        ground_ft = float(terrain(geom.centroid.x, geom.centroid.y)) / FT
        bottom = round(ground_ft - depth_ft, 1)
        return dict(id=id_, device_type=kind, high_traffic=ht, vehicle_traffic=ht, storage_gal=float(round(storage_gal)),
                    bottom_elev_ft=bottom, shgw_elev_ft=round(bottom - sep_gw, 1),
                    bedrock_elev_ft=round(bottom - sep_rock, 1), drain_days=days, geometry=geom)

    gal = 264.172  # US gallons per m3

    def dw_gal(dia_ft: float) -> float:  # a 6 ft deep precast ring
        return math.pi * (dia_ft * FT / 2) ** 2 * 6 * FT * gal

    parts = list(getattr(disturbed, "geoms", [disturbed]))
    L = {
        "parcels": parcels(),
        "shoreline": [dict(id="SH-1", waterbody="Lake George", geometry=shore)],
        "waterbodies": [dict(id="WB-1", name="Lake George", geometry=lake),
                        dict(id="WB-2", name="Mud Pond", geometry=pond)],
        "streams": [dict(id="ST-1", name="Pine Hollow Brook", geometry=brook)],
        "wetlands": [dict(id="WL-1", name="Hillside seep (APA wetland)", geometry=wetland)],
        "wells": [dict(id="W-1", parcel="171.15-1-23", geometry=Point(-105, -8)),
                  dict(id="W-2", parcel="171.15-1-22", geometry=well_n),
                  dict(id="W-3", parcel="171.15-2-10", geometry=Point(-160, 20)),
                  dict(id="W-4", parcel="171.15-1-24", geometry=Point(-80, 62))],
        "septic": [dict(id="S-1", parcel="171.15-1-23", geometry=septic_site),
                   dict(id="S-2", parcel="171.15-1-24", geometry=box(-50, 45, -40, 55)),
                   dict(id="S-3", parcel="171.15-1-22", geometry=box(-32, -78, -22, -68))],
        "building_sites": [dict(id="B-1", name="Proposed house", geometry=house),
                           dict(id="B-2", name="Garage (alternative site)", geometry=garage)],
        "devices": [dev("DW-1", "dry_well", dw1, 0, dw_gal(6), 7.0, 3.0, 8.0, 1.5),
                    dev("IT-1", "infiltration_trench", it1, 0, it1.area * 0.9 * 0.4 * gal, 3.5, 3.0, 10.0, 2.0),
                    dev("PP-1", "porous_pavement", porous, 1, porous.area * 0.15 * 0.4 * gal, 1.5, 4.0, 12.0, 1.0),
                    dev("VD-1", "vegetated_depression", vd1, 0, vd1.area * 0.15 * gal, 1.0, 5.0, 15.0, 1.0),
                    dev("DW-2", "dry_well", dw2, 0, dw_gal(4), 7.0, 4.0, 6.0, 2.0)],
        "clearing": [dict(id="C-1", use="lawn", geometry=lawn),
                     dict(id="C-2", use="construction", geometry=clear_house),
                     dict(id="C-3", use="construction", geometry=clear_drive)],
        "disturbance": [dict(id=f"D-{i + 1}", geometry=g) for i, g in enumerate(parts)],
        "impervious": [dict(id="I-1", status="existing", geometry=camp),
                       dict(id="I-2", status="proposed", geometry=house),
                       dict(id="I-3", status="proposed", geometry=apron)],
        "soils": [],
    }
    land = box(-260, -130, 20, 130).difference(lake)
    for sid, sym, name, grp, perc, ht, (x0, x1) in (
        ("SO-1", "HkB", "Hinckley gravelly loamy sand, 3-8% slopes", "A", 2.0, 1, (-30, 20)),
        ("SO-2", "CrC", "Charlton fine sandy loam, 8-15% slopes", "B", 12.0, 0, (-92, -30)),
        ("SO-3", "TuD", "Tunbridge-Lyman complex, rocky, 15-35% slopes", "C", 35.0, 0, (-260, -92))):
        L["soils"].append(dict(id=sid, musym=sym, muname=name, hydgrp=grp, perc_min_per_in=perc, high_transport=ht,
                               geometry=land.intersection(box(x0, -130, x1, 130))))
    out = {}
    for name, rows in L.items():
        gdf = rows if isinstance(rows, gpd.GeoDataFrame) else gpd.GeoDataFrame(rows, crs=VEC_CRS)
        out[name] = gdf.set_geometry(gdf.geometry.translate(ORIGIN_E, ORIGIN_N))
    return out


def write_dem(path: Path, terrain: Terrain) -> None:
    to_vec = Transformer.from_crs(DEM_CRS, VEC_CRS, always_xy=True)
    to_dem = Transformer.from_crs(VEC_CRS, DEM_CRS, always_xy=True)
    x0, y0, x1, y1 = DEM_BOX
    west, north = to_dem.transform(ORIGIN_E + x0, ORIGIN_N + y1)
    west, north = math.floor(west), math.ceil(north)
    width, height = x1 - x0, y1 - y0
    cols, rows = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    ex, ny = to_vec.transform(west + cols, north - rows)
    lx, ly = ex - ORIGIN_E, ny - ORIGIN_N
    z = np.round(terrain(lx, ly), 2).astype("float32")
    z[(lx > 120) & (ly > 230)] = -9999  # a lidar void far out on the lake (outside the area of interest)
    profile = dict(driver="GTiff", width=width, height=height, count=1, dtype="float32", crs=DEM_CRS,
                   transform=from_origin(west, north, 1.0, 1.0), nodata=-9999.0, compress="deflate",
                   predictor=3, tiled=True, blockxsize=256, blockysize=256)
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(z, 1)
        dst.units = ("metre",)
        dst.set_band_description(1, "elevation (NAVD88 metres, synthetic)")
        dst.update_tags(SOURCE="scripts/make_demo_site.py (synthetic; not survey data)", VERTICAL_UNITS="metre")


def dem_sampler(path: Path):
    """Bilinear sampler of the written DEM at EPSG:26918 points; feet."""
    with rasterio.open(path) as src:
        band, tf, nod = src.read(1).astype(float), src.transform, src.nodata
    band[band == nod] = np.nan
    to_dem = Transformer.from_crs(VEC_CRS, DEM_CRS, always_xy=True)

    def sample(x, y):
        col, row = ~tf * to_dem.transform(x, y)
        c, r = col - 0.5, row - 0.5
        c0, r0 = int(math.floor(c)), int(math.floor(r))
        tc, tr = c - c0, r - r0
        q = band[r0:r0 + 2, c0:c0 + 2]
        return float(((1 - tr) * ((1 - tc) * q[0, 0] + tc * q[0, 1]) + tr * ((1 - tc) * q[1, 0] + tc * q[1, 1])) / FT)

    return sample


def _union_all(frame: Any) -> Any:
    """The union of a GeoDataFrame's geometries (``union_all()`` from geopandas 1.0; ``unary_union`` before, as on Debian 12)."""
    return frame.union_all() if hasattr(frame, "union_all") else frame.unary_union


def self_check(out: Path, terrain: Terrain) -> None:
    gpkg, tif = out / "site.gpkg", out / "dem.tif"
    L = {n: gpd.read_file(gpkg, layer=n) for n in fiona.listlayers(gpkg)}
    expect = dict(parcels=30, shoreline=1, waterbodies=2, streams=1, wetlands=1, wells=4, septic=3,
                  building_sites=2, devices=5, clearing=3, impervious=3, soils=3)
    for name, gdf in L.items():
        assert gdf.crs is not None and gdf.crs.to_epsg() == 26918, name
        assert name not in expect or len(gdf) == expect[name], (name, len(gdf))
    g = {n: dict(zip(df["id"], df.geometry)) for n, df in L.items()}
    sqft = 1 / FT**2
    disturbed = _union_all(L["disturbance"]).area * sqft
    new_imp = _union_all(L["impervious"].query("status == 'proposed'")).area * sqft
    assert 9000 <= disturbed <= 12000 and 2300 <= new_imp <= 2700, (disturbed, new_imp)
    parcels = L["parcels"]
    site = parcels.loc[parcels.is_site == 1].geometry.iloc[0]
    near = parcels[(parcels.is_site == 0) & (parcels.distance(site) <= 500 * FT)]
    margins = np.abs(parcels[parcels.is_site == 0].distance(site) / FT - 500)
    assert 6000 <= site.area <= 8000 and margins.min() > 20 and 10 <= len(near) < len(parcels) - 1

    with rasterio.open(tif) as src:
        assert src.crs.to_epsg() == 26918 and src.units == ("metre",) and src.nodata == -9999
        assert max(src.width, src.height) <= 700 and src.res == (1.0, 1.0)
        b = site.bounds  # area of interest: the site plus 150 m
        win = src.window(b[0] - 150, b[1] - 150, b[2] + 150, b[3] + 150)
        aoi = src.read(1, window=win)
        assert aoi.shape[0] >= 360 and aoi.shape[1] >= 420 and not (aoi == -9999).any()
    assert tif.stat().st_size < 2_000_000
    dem_ft = dem_sampler(tif)

    def dz(dev_geom, other):  # device ground minus feature ground at the nearest points (ft), analytic and DEM
        (ax, ay), (bx, by) = np.asarray(shapely.shortest_line(dev_geom, other).coords)
        ana = float(terrain(ax - ORIGIN_E, ay - ORIGIN_N) - terrain(bx - ORIGIN_E, by - ORIGIN_N)) / FT
        return ana, dem_ft(ax, ay) - dem_ft(bx, by)

    dv, sh, s1, wl = g["devices"], g["shoreline"]["SH-1"], g["septic"]["S-1"], g["wetlands"]["WL-1"]
    print("\nIntended relationships (edge to edge; dz = device ground minus feature ground, analytic and DEM):")
    for label, a, b, lo, hi, sign in (
        ("DW-1 vs septic S-1 (20 ft upgradient rule: VIOLATION)", dv["DW-1"], s1, 13.9, 14.1, +1),
        ("IT-1 vs septic S-1 (nearest points downgradient; the whole device is read by the checker)", dv["IT-1"], s1, 11.9, 12.1, -1),
        ("PP-1 (high traffic) vs shoreline (100 ft: VIOLATION)", dv["PP-1"], sh, 70, 90, 0),
        ("lawn C-1 vs shoreline (35 ft no-cut buffer: VIOLATION)", g["clearing"]["C-1"], sh, 19.5, 21, 0),
        ("DW-2 vs neighbour well W-2 (major 100 ft: VIOLATION)", dv["DW-2"], g["wells"]["W-2"], 79.9, 80.1, +1),
        ("DW-2 vs wetland WL-1 (upslope: n/a, PASS)", dv["DW-2"], wl, 60, 90, -1),
        ("VD-1 vs well W-1 (upslope, > 50 ft: PASS)", dv["VD-1"], g["wells"]["W-1"], 60, 90, -1),
        ("VD-1 vs wetland WL-1 (upslope: PASS)", dv["VD-1"], wl, 60, 100, -1),
        ("PP-1 vs brook ST-1 (40-70 m)", dv["PP-1"], g["streams"]["ST-1"], 40 / FT, 70 / FT, 0),
    ):
        dist = a.distance(b) / FT
        ana, dem = dz(a, b)
        print(f"  {label:56s} {dist:6.1f} ft   dz {ana:+6.2f} ft (DEM {dem:+6.2f})")
        assert lo <= dist <= hi, (label, dist)
        assert sign == 0 or (sign * ana > 0.5 and sign * dem > 0.5), (label, ana, dem)
    for role in ("wells", "wetlands", "streams"):  # PP-1 breaks the vehicle-area rule only at the lake
        assert min(x.distance(dv["PP-1"]) for x in g[role].values()) > 100 * FT, role
    pond_m = g["waterbodies"]["WB-2"].distance(site)
    assert 150 <= pond_m <= 250 and abs(dem_ft(ORIGIN_E + 60, ORIGIN_N) * FT - LAKE_M) < 1e-4, pond_m
    slopes = {k: slope_100ft(terrain, Point(v.centroid.x - ORIGIN_E, v.centroid.y - ORIGIN_N))
              for k, v in g["building_sites"].items()}
    assert slopes["B-1"] < 12 and slopes["B-2"] > 15, slopes
    print(f"\nDisturbed {disturbed:,.0f} sq ft (minor: < 15,000); new impervious {new_imp:,.0f} sq ft; "
          f"site {site.area / 4046.86:.2f} ac; {len(near)} neighbour parcels within 500 ft, "
          f"{len(parcels) - 1 - len(near)} beyond.")
    print("Slope over 100 ft: " + ", ".join(f"{k} {v:.1f}%" for k, v in slopes.items()))
    print(f"Mud Pond is {pond_m:.0f} m from the site (level {terrain.pond_level:.2f} m); lake {LAKE_M} m.")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "resources" / "demo")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    terrain = Terrain()
    layers = build(terrain)
    gpkg = args.out / "site.gpkg"
    gpkg.unlink(missing_ok=True)
    for name, gdf in layers.items():
        gdf.to_file(gpkg, layer=name, driver="GPKG")
    tif = args.out / "dem.tif"
    write_dem(tif, terrain)
    print(f"Wrote {gpkg} ({gpkg.stat().st_size / 1e3:.0f} kB) and {tif.name} ({tif.stat().st_size / 1e3:.0f} kB)")
    print("  " + ", ".join(f"{n}: {len(g)}" for n, g in layers.items()))
    self_check(args.out, terrain)
    print("Self-check passed.")


if __name__ == "__main__":
    main()
