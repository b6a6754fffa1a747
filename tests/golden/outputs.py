"""The golden outputs: what the command line writes for the demo and the North Collins site, in three packs.

One function, :func:`produce`, runs a case (the check with its report, then the letter) into a folder and
returns the outputs as normalised text, file name -> text: ``findings.json`` (keys sorted), ``stdout.txt`` (the
printed summary), ``report.txt`` (report.html's words), ``notification.csv``, ``letter.txt`` (the DOCX's words)
and ``findings_gpkg.txt`` (every layer's rows and geometry). Paths, today's date and the tool's version are
replaced by placeholders; numbers are compared by :func:`same_text` within the last printed digit, so a GEOS or
PROJ release that moves a distance by 1e-9 ft does not fail the guard while a changed figure does.

``scripts/update_golden.py`` writes them under ``tests/golden/expected``; ``test_golden_outputs.py`` compares.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata"
EXPECTED = Path(__file__).resolve().parent / "expected"
DEMO = ROOT / "resources" / "demo"
NORTH_COLLINS = REALDATA / "north-collins-ny"
NORTH_COLLINS_KEY = "269.00-6-5"
PACKS = ("lgpc", "lake-george", "mamakating")
LETTER_DATE = "2026-12-01"


@dataclass(frozen=True)
class Case:
    """One site in one pack."""

    site: str
    jurisdiction: str

    @property
    def name(self) -> str:
        return f"{self.site}-{self.jurisdiction}"

    def available(self) -> str | None:
        """Why the case cannot run here (``None``: it can)."""
        if self.site == "demo" and not (DEMO / "site.gpkg").is_file():
            return "resources/demo/site.gpkg is built by scripts/make_demo_site.py"
        if self.site == "north-collins" and not (NORTH_COLLINS / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
            return f"{NORTH_COLLINS} is absent (real data ships beside the repo as ../shared/realdata)"
        return None


CASES = tuple(Case(site, j) for site in ("demo", "north-collins") for j in PACKS)


def _north_collins_devices(folder: Path) -> Path:
    """One dry well at the site parcel's representative point, in EPSG:4326 (a fourth CRS), as the real-data test draws it."""
    import geopandas as gpd

    parcels = gpd.read_file(NORTH_COLLINS / "Erie_2018_Tax_Parcels_SHP_1907.shp")
    site = parcels[parcels["PRINT_KEY"] == NORTH_COLLINS_KEY]
    pt = site.geometry.iloc[0].representative_point()
    dev = gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[pt], crs=parcels.crs)
    path = folder / "devices.gpkg"
    dev.to_crs("EPSG:4326").to_file(path, layer="devices", driver="GPKG")
    return path


def _check_args(case: Case, work: Path, out: Path) -> list[str]:
    common = [
        "--jurisdiction",
        case.jurisdiction,
        "--out",
        str(out),
        "--report",
        "--reviewer",
        "Golden reviewer",
        "--reference",
        "GOLDEN-1",
    ]
    if case.site == "demo":
        return [str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), *common]
    devices = _north_collins_devices(work)
    return [
        "--layer", f"parcels={NORTH_COLLINS / 'Erie_2018_Tax_Parcels_SHP_1907.shp'}",
        "--layer", f"streams={NORTH_COLLINS / 'waterways.gpkg'}:waterways",
        "--layer", f"waterbodies={NORTH_COLLINS / 'water.gpkg'}:water",
        "--layer", f"devices={devices}:devices",
        "--dem", str(NORTH_COLLINS / "dem_from_iso-1m_contours_2m_DERIVED.tif"),
        "--site-parcel", NORTH_COLLINS_KEY,
        *common,
    ]  # fmt: skip


def _run(argv: list[str]) -> tuple[int, str]:
    from stormwater_plugin.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return code, buf.getvalue()


def _normalise(text: str, work: Path) -> str:
    for path, token in ((work, "<WORK>"), (REALDATA, "<REALDATA>"), (ROOT, "<ROOT>")):
        text = text.replace(str(path), token)
    text = text.replace(_dt.date.today().isoformat(), "<TODAY>")
    text = text.replace(_dt.date.today().strftime("%B %-d, %Y"), "<TODAY>")
    return re.sub(r"stormwater-check \d+(\.\d+)*\S*", "stormwater-check <VERSION>", text)


def _findings_json(path: Path) -> str:
    doc = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc.get("tool"), dict):
        doc["tool"] = {k: ("<VERSION>" if k == "version" else v) for k, v in doc["tool"].items()}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _report_text(path: Path) -> str:
    html = path.read_text(encoding="utf-8")
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<img\b[^>]*>", " [image] ", html)
    text = re.sub(r"<[^>]+>", " ", html)
    import html as _html

    text = _html.unescape(text)
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line) + "\n"


def _docx_text(path: Path) -> str:
    import docx

    document = docx.Document(str(path))
    out: list[str] = []
    for section in document.sections:
        out += [f"[header] {p.text}" for p in section.header.paragraphs if p.text.strip()]
        out += [f"[footer] {p.text}" for p in section.footer.paragraphs if p.text.strip()]
    out += [p.text for p in document.paragraphs if p.text.strip()]
    for table in document.tables:
        for row in table.rows:
            out.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(out) + "\n"


_WKT = re.compile(r"\b((?:MULTI)?(?:POINT|LINESTRING|POLYGON)|GEOMETRYCOLLECTION)(?: Z)? (\([-0-9.eE ,()]*\)|EMPTY)")


def canonical_wkt(text: str) -> str:
    """One spelling of a geometry's WKT: normalised (ring start and orientation, part order), 6 decimals, MULTIPOINT's parts bare.

    GEOS releases start a ring at different vertices and spell MULTIPOINT with or without inner brackets.
    """
    import shapely

    g = shapely.normalize(shapely.from_wkt(text))
    wkt = shapely.to_wkt(g, rounding_precision=6, trim=True)
    if wkt.startswith("MULTIPOINT"):
        wkt = "MULTIPOINT " + "(" + wkt[len("MULTIPOINT ") :].strip("()").replace("(", "").replace(")", "") + ")"
    return wkt


def _canonical_wkts(text: str) -> str:
    return _WKT.sub(lambda m: canonical_wkt(m.group(0)), text)


def _gpkg_text(path: Path) -> str:
    import fiona
    from shapely.geometry import shape

    out: list[str] = []
    for layer in fiona.listlayers(str(path)):
        with fiona.open(str(path), layer=layer) as src:
            out.append(f"## {layer} ({len(src)} rows; {src.crs.to_string() if src.crs else 'no CRS'})")
            for feat in src:
                props = json.dumps(dict(feat["properties"]), sort_keys=True, ensure_ascii=False, default=str)
                geom = canonical_wkt(shape(feat["geometry"]).wkt) if feat["geometry"] is not None else "NULL"
                if len(geom) > 2000:  # a long ring: its bounds and area say whether it moved
                    g = shape(feat["geometry"])
                    geom = f"{g.geom_type} bounds={tuple(round(v, 3) for v in g.bounds)} area={g.area:.3f} length={g.length:.3f}"
                out.append(f"{props} GEOMETRY {geom}")
    return "\n".join(out) + "\n"


def produce(case: Case, work: Path) -> dict[str, str]:
    """Run ``case`` in ``work`` (a fresh folder) and return its outputs as normalised text, file name -> text."""
    out = work / "out"
    code, stdout = _run(_check_args(case, work, out))
    assert code in (0, 1), f"check exited {code}:\n{stdout}"
    letter = work / "letter" / "letter.docx"
    lcode, lout = _run(
        ["letter", str(out), "--out", str(letter), "--town", "Golden Town", "--application", "GOLDEN-1", "--applicant", "A. Applicant",
         "--address", "1 Golden Way", "--reviewer", "Golden reviewer", "--reviewer-title", "Town Engineer", "--date", LETTER_DATE]
    )  # fmt: skip
    assert lcode in (0, 1), f"letter exited {lcode}:\n{lout}"
    texts = {
        "findings.json": _canonical_wkts(_findings_json(out / "findings.json")),
        "stdout.txt": stdout,
        "report.txt": _report_text(out / "report.html"),
        "notification.csv": (out / "notification.csv").read_text(encoding="utf-8"),
        "letter.txt": _docx_text(letter),
        "findings_gpkg.txt": _gpkg_text(out / "findings.gpkg"),
    }
    return {name: _normalise(text, work) for name, text in texts.items()}


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _close(a: str, b: str) -> bool:
    if a == b:
        return True
    x, y = float(a), float(b)
    decimals = max(len(s.split(".")[1].split("e")[0].split("E")[0]) if "." in s else 0 for s in (a, b))
    return math.isclose(x, y, rel_tol=1e-7, abs_tol=max(10.0**-decimals, 1e-6) * 1.0001)


def platform() -> dict[str, object]:
    """Where geometry is compared exactly: the GEOS release and numpy's major (the reference: Debian 12, where CI runs)."""
    import numpy
    import shapely

    return {"geos": shapely.geos_version_string, "numpy": int(numpy.__version__.split(".")[0])}


def recorded_platform() -> dict[str, object]:
    path = EXPECTED / "platform.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _without_geometry(line: str) -> str:
    """A line with each geometry reduced to its type (another GEOS or numpy may start a ring or a traced path elsewhere)."""
    head, sep, geom = line.partition(" GEOMETRY ")
    if sep:
        line = head + sep + geom.split(" ", 1)[0].split("(", 1)[0]
    return _WKT.sub(lambda m: m.group(1), line)


def same_text(expected: str, actual: str, *, geometry: bool = True) -> str | None:
    """``None`` when ``actual`` reads as ``expected`` (numbers within their last printed digit); else the first difference.

    ``geometry=False`` (a platform other than the one the golden outputs were recorded on): geometries are compared
    by their type only; every status, figure and word still is.
    """
    e_lines, a_lines = expected.splitlines(), actual.splitlines()
    if not geometry:
        e_lines, a_lines = [_without_geometry(s) for s in e_lines], [_without_geometry(s) for s in a_lines]
    for i, (e, a) in enumerate(zip(e_lines, a_lines), 1):
        if e == a:
            continue
        e_words, a_words = _NUMBER.split(e), _NUMBER.split(a)
        e_nums, a_nums = _NUMBER.findall(e), _NUMBER.findall(a)
        if e_words != a_words or len(e_nums) != len(a_nums) or not all(_close(x, y) for x, y in zip(e_nums, a_nums)):
            return f"line {i}:\n  expected: {e[:400]}\n  actual:   {a[:400]}"
    if len(e_lines) != len(a_lines):
        return f"{len(e_lines)} lines expected, {len(a_lines)} written; first extra: {(e_lines + a_lines)[min(len(e_lines), len(a_lines))][:400]}"
    return None
