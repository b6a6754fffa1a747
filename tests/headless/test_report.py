"""The review report and the notification package, end to end through the CLI.

The PDFs are rendered to PNG with pdftoppm and their text read with
pdftotext (poppler-utils), as a reader would see them.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from shapely.geometry import box

from stormwater_plugin.cli import main
from tests.headless.sitefiles import X0, Y0, write_dem, write_site

pytestmark = pytest.mark.skipif(not (shutil.which("pdftoppm") and shutil.which("pdftotext")), reason="poppler-utils is not installed")

EVIL = "Zoë <script>alert(1)</script> Ménard"
FILES = ("findings.json", "findings.gpkg", "report.html", "report.pdf", "notification.csv", "labels.pdf")


def _parcels(path: Path) -> Path:
    """Site, four neighbours (one owner holding two parcels, one owner without an address) and a far parcel, UTM 18N metres."""
    import geopandas as gpd

    rows = [
        (
            box(X0 - 60, Y0 - 40, X0 + 60, Y0 + 40),
            {"id": "P1", "PRINT_KEY": "171.15-1-23", "is_site": 1, "PRMY_OWNER": "Site Owner", "MAIL_ADDR": "1 Main St"},
        ),
        (
            box(X0 - 60, Y0 + 40, X0 + 60, Y0 + 100),
            {
                "id": "P2",
                "PRINT_KEY": "171.15-1-24",
                "is_site": 0,
                "PRMY_OWNER": EVIL,
                "MAIL_ADDR": "5 Rue Saint-Denis",
                "MAIL_CITY": "Montréal",
                "MAIL_STATE": "QC",
                "MAIL_ZIP": "H2X 1K4",
                "PARCELADDR": "4504 Lake Shore Dr",
            },
        ),
        (
            box(X0 - 160, Y0 - 40, X0 - 60, Y0 + 40),
            {
                "id": "P3",
                "PRINT_KEY": "171.15-1-30",
                "is_site": 0,
                "PRMY_OWNER": "Abbott, Jane",
                "MAIL_ADDR": "12 Shore Rd",
                "MAIL_CITY": "Bolton Landing",
                "MAIL_STATE": "NY",
                "MAIL_ZIP": "12814",
                "PARCELADDR": "12 Shore Rd",
            },
        ),
        (
            box(X0 - 160, Y0 - 140, X0 - 60, Y0 - 60),
            {
                "id": "P4",
                "PRINT_KEY": "171.15-1-31",
                "is_site": 0,
                "PRMY_OWNER": "ABBOTT JANE",
                "MAIL_ADDR": "12 Shore Rd.",
                "MAIL_CITY": "Bolton Landing",
                "MAIL_STATE": "NY",
                "MAIL_ZIP": "12814",
                "PARCELADDR": "14 Shore Rd",
            },
        ),
        (
            box(X0 - 60, Y0 - 140, X0 + 60, Y0 - 60),
            {"id": "P5", "PRINT_KEY": None, "is_site": 0, "PRMY_OWNER": "Nomail Owner", "MAIL_ADDR": None},
        ),
        (
            box(X0 - 60, Y0 - 400, X0 + 60, Y0 - 300),
            {"id": "P6", "PRINT_KEY": "171.15-1-99", "is_site": 0, "PRMY_OWNER": "Far Away", "MAIL_ADDR": "9 Elm"},
        ),
    ]
    gpd.GeoDataFrame([a for _, a in rows], geometry=[g for g, _ in rows], crs="EPSG:32618").to_file(path, layer="parcels", driver="GPKG")
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    pkg = write_site(d, "EPSG:32618", roles=["septic", "devices", "wells", "shoreline", "clearing", "disturbance", "impervious"])
    dem = write_dem(d / "dem.tif", "EPSG:32618", 2.0)
    parcels = _parcels(d / "parcels.gpkg")
    return d, ["--dem", str(dem), "--jurisdiction", "lgpc", "--class", "major", "--layer", f"parcels={parcels}"], pkg


def _run(site, out: Path, *extra: str) -> int:
    _, args, pkg = site
    return main([str(pkg), *args, "--out", str(out), *extra])


@pytest.fixture(scope="module")
def report(site, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    code = _run(site, out, "--reviewer", "J. Smith", "--reference", "SP-2026-014")
    return out, code


def _pages(pdf: Path, folder: Path, dpi: int = 40) -> list[Path]:
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(folder / pdf.stem)], check=True)
    return sorted(folder.glob(f"{pdf.stem}*.png"))


def _text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout.decode("utf-8")


def test_cli_writes_the_four_report_files_beside_the_findings(report):
    out, code = report
    assert code == 1  # a violation and no override
    for name in FILES:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name


def test_report_pdf_has_several_non_blank_pages(report, tmp_path):
    from PIL import Image

    out, _ = report
    pages = _pages(out / "report.pdf", tmp_path)
    assert len(pages) > 1
    for p in pages:
        a = np.asarray(Image.open(p).convert("L"), dtype=float)
        assert a.std() > 5.0, p.name  # not a blank page
        assert (a < 128).mean() > 0.0005, p.name  # some ink
    text = _text(out / "report.pdf")
    for needle in (
        "SP-2026-014",
        "J. Smith",
        "6 NYCRR",
        "Site map",
        "Inventory within 100 ft",
        "Neighbour notification",
        "Data warnings",
        "Zoë",
    ):
        assert needle in text, needle


def test_html_escapes_owner_names_and_keeps_them_readable(report):
    out, _ = report
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "Zoë &lt;script&gt;alert(1)&lt;/script&gt; Ménard" in html
    assert 'src="data:image/png;base64,' in html  # maps embedded: one self-contained file
    assert "SP-2026-014" in html and "J. Smith" in html


def test_template_escapes_attribute_text(report):
    from stormwater_plugin.report.html import render_html

    out, _ = report
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    from stormwater_plugin.report.model import _rule_groups, review_document

    groups = _rule_groups(review_document(doc).findings)
    groups[0]["findings"][0]["key"] = '"><script>x()</script>'
    model = _minimal_model(groups)
    html = render_html(model, {})
    assert 'title="&#34;&gt;&lt;script&gt;x()&lt;/script&gt;"' in html
    assert "<script>x()" not in html


def _minimal_model(groups):
    from stormwater_plugin.report.model import STATUS_LABELS

    header = {
        k: "h"
        for k in (
            "jurisdiction",
            "jurisdiction_name",
            "pack_title",
            "pack_version",
            "site_parcel",
            "site_owner",
            "site_address",
            "reviewer",
            "reference",
            "date",
            "tool",
            "working_crs",
            "site_package",
            "dem",
            "dem_z",
        )
    }
    return {
        "title": "t",
        "header": header,
        "summary": {
            "counts": {"violation": 0, "undetermined": 0, "advisory": 0, "pass": 0},
            "overridden": 0,
            "violations_overridden": 0,
            "violations_unresolved": 0,
            "stale_overrides": 0,
            "verdict": "",
            "note": "",
        },
        "classification": {
            "project_class": "minor",
            "class_source": "computed",
            "computed_class": "minor",
            "disturbed_sqft": None,
            "new_impervious_sqft": None,
            "reasons": [],
        },
        "rule_groups": groups,
        "building_sites": [],
        "inventory": {"radius_ft": 100.0, "computed": False, "reason": "x", "rows": [], "counts": {}, "absent": [], "empty": []},
        "notification": {"computed": False, "not_computed_reason": "no parcels layer"},
        "rules_not_checked": [],
        "rules_for_reviewer": [],
        "rules_not_applicable": [],
        "warnings": [],
        "overrides": {"applied": [], "stale": []},
        "figures": [],
        "status_labels": STATUS_LABELS,
    }


def test_notification_csv_rows_order_and_names(report):
    out, _ = report
    with open(out / "notification.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0].keys()) == ["owner", "mailing_address", "parcel_address", "parcel_id", "distance_ft"]
    assert [r["owner"] for r in rows] == [
        "Abbott, Jane",
        "Nomail Owner",
        EVIL,
    ]  # sorted by owner; the site and the far parcel are not listed
    abbott = rows[0]
    assert abbott["mailing_address"] == "12 Shore Rd, Bolton Landing, NY 12814"
    assert abbott["parcel_id"] == "171.15-1-30; 171.15-1-31"  # PRINT_KEY, not the id field; one row for one owner and address
    assert abbott["parcel_address"] == "12 Shore Rd; 14 Shore Rd"
    assert abbott["distance_ft"] == "0.0"
    assert rows[1]["mailing_address"] == "" and rows[1]["parcel_id"] == "P5"  # no PRINT_KEY: the id
    assert float(rows[1]["distance_ft"]) == pytest.approx(20 / 0.3048, abs=0.2)
    assert rows[2]["mailing_address"] == "5 Rue Saint-Denis, Montréal, QC H2X 1K4"


def test_labels_pdf_holds_owner_and_address_lines_with_accents_intact(report):
    out, _ = report
    text = _text(out / "labels.pdf")
    assert "Zoë <script>alert(1)</script> Ménard" in " ".join(text.split())
    assert "Montréal, QC H2X 1K4" in text
    assert "Abbott, Jane" in text and "12 Shore Rd" in text
    _assert_words_inside_labels(out / "labels.pdf")
    assert "Nomail Owner" not in text  # no address, no label (the report says so)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "No mailing address recorded" in html and "Nomail Owner" in html


def test_avery_5160_geometry():
    from stormwater_plugin.report.labels import AVERY_5160, address_lines

    s = AVERY_5160
    assert (s.cols, s.rows, s.label_w, s.label_h) == (3, 10, 2.625, 1.0)
    assert s.origin(0) == pytest.approx((0.1875, 11.0 - 0.5 - 1.0))
    assert s.origin(2) == pytest.approx((0.1875 + 2 * 2.75, 9.5))
    assert s.origin(29) == pytest.approx((5.6875, 0.5))  # bottom right: 0.5" bottom margin, 0.1875" right margin
    assert s.origin(30) == s.origin(0)
    assert s.origin(2)[0] + s.label_w == pytest.approx(8.5 - 0.1875)
    assert address_lines("PO Box 218, Bolton Landing, NY 12814") == ["PO Box 218", "Bolton Landing, NY 12814"]
    assert address_lines("1 Main St") == ["1 Main St"]


def test_labels_run_onto_a_second_sheet_and_long_names_shrink_to_fit(tmp_path):
    from stormwater_plugin.report.labels import write_labels

    rows = [
        {
            "owner": f"Owner {i} " + "Very Long Family Trust Name " * (3 if i == 0 else 0),
            "mailing_address": f"{i} Main St, Lake George, NY 12845",
        }
        for i in range(31)
    ]
    info = write_labels(rows, tmp_path / "labels.pdf")
    assert info == {"labels": 31, "pages": 2, "skipped": []}
    assert len(_pages(tmp_path / "labels.pdf", tmp_path, 20)) == 2
    assert "Owner 0 " + "Very Long Family Trust Name " * 3 in " ".join(_text(tmp_path / "labels.pdf").split()) + " "
    _assert_words_inside_labels(tmp_path / "labels.pdf")


def _assert_words_inside_labels(pdf: Path) -> None:
    """Every word pdftotext finds lies inside one label of the sheet, none across an edge."""
    import re

    from stormwater_plugin.report.labels import AVERY_5160 as s

    bbox = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, check=True).stdout.decode("utf-8")
    words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">', bbox)
    assert words
    rects = [
        (x * 72, (s.page_h - y - s.label_h) * 72, (x + s.label_w) * 72, (s.page_h - y) * 72) for x, y in (s.origin(k) for k in range(30))
    ]
    for w in words:
        x0, y0, x1, y1 = map(float, w)  # y from the top of the page
        assert any(r[0] <= x0 and x1 <= r[2] and r[1] <= y0 and y1 <= r[3] for r in rects), w


def test_report_lists_the_100_ft_inventory_and_data_warnings(report):
    out, _ = report
    html = (out / "report.html").read_text(encoding="utf-8")
    inv = html.split("Inventory within 100 ft")[1].split("<h2>")[0]
    for fid in ("W1", "S1", "D1", "D2", "D3", "MHW"):
        assert f"<td>{fid}</td>" in inv, fid
    assert "Unknown</strong> (layer not supplied)" in inv and "Wetland" in inv
    assert "slope not computed" in html or "Building sites: slope" in html


def test_overrides_round_trip_through_the_cli(site, report, tmp_path):
    out, _ = report
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    violations = [f for f in doc["findings"] if f["status"] == "violation"]
    assert violations and all("key" in f and f["effective_status"] == "violation" for f in violations)
    entries = [
        {
            "key": f["key"],
            "decision": "waived",
            "reason": "Variance ZBA-2026-14 <granted>",
            "reviewer": "Zoë Ménard",
            "date": "2026-03-05",
            "status_when_made": "violation",
        }
        for f in violations
    ]
    entries.append(
        {
            "key": "lgpc.minor.septic-upgradient-20|devices:GONE|septic:S1",
            "decision": "accepted",
            "reason": "device removed",
            "reviewer": "J. Smith",
        }
    )
    ov = tmp_path / "overrides.json"
    ov.write_text(
        json.dumps({"format": "stormwater-check-overrides", "version": 1, "overrides": entries}, ensure_ascii=False), encoding="utf-8"
    )

    out2 = tmp_path / "o2"
    code = _run(site, out2, "--overrides", str(ov), "--reviewer", "J. Smith")
    assert code == 0  # every violation waived by the reviewer
    doc2 = json.loads((out2 / "findings.json").read_text(encoding="utf-8"))
    for f in doc2["findings"]:
        if f["status"] == "violation":
            assert f["effective_status"] == "waived"
            assert f["override"]["reviewer"] == "Zoë Ménard" and f["override"]["reason"] == "Variance ZBA-2026-14 <granted>"
    assert doc2["counts"] == doc["counts"]  # computed statuses unchanged
    assert [s["key"] for s in doc2["stale_overrides"]] == ["lgpc.minor.septic-upgradient-20|devices:GONE|septic:S1"]
    html = (out2 / "report.html").read_text(encoding="utf-8")
    assert "Stale overrides" in html and "devices:GONE" in html
    assert "Variance ZBA-2026-14 &lt;granted&gt;" in html
    assert "Waived by reviewer" in html
    assert "Stale overrides" in _text(out2 / "report.pdf")

    # one violation left without a decision: exit 1 again
    ov.write_text(json.dumps({"overrides": entries[1:]}, ensure_ascii=False), encoding="utf-8")
    assert _run(site, tmp_path / "o3", "--overrides", str(ov), "--no-report") == 1


def test_bad_overrides_file_exits_2_naming_it(site, tmp_path, capsys):
    ov = tmp_path / "ov.json"
    ov.write_text(json.dumps({"overrides": [{"key": "k", "decision": "maybe", "reason": "r", "reviewer": "x"}]}), encoding="utf-8")
    assert _run(site, tmp_path / "o", "--overrides", str(ov)) == 2
    err = capsys.readouterr().err
    assert "ov.json" in err and "decision" in err and "Traceback" not in err
    assert _run(site, tmp_path / "o", "--overrides", str(tmp_path / "missing.json")) == 2
    assert "missing.json" in capsys.readouterr().err


def test_no_report_skips_the_report_files(site, tmp_path):
    out = tmp_path / "o"
    assert _run(site, out, "--no-report", "--quiet") == 1
    assert (out / "findings.json").is_file()
    assert not any((out / n).exists() for n in ("report.html", "report.pdf", "notification.csv", "labels.pdf"))


def test_report_model_is_json_ready_and_free_of_plotting_libraries():
    import subprocess as sp
    import sys

    code = (
        "import sys; import stormwater_plugin.report.model, stormwater_plugin.core.overrides;"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('matplotlib','reportlab','qgis','PyQt5','osgeo','geopandas')]; print(','.join(bad))"
    )
    res = sp.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    assert res.stdout.strip() == ""


def test_building_site_without_a_profile_says_slope_not_computed():
    from stormwater_plugin.report.model import _building_sites, review_document

    doc = {
        "building_sites": [
            {"id": "B1", "slope_100ft_pct": None, "azimuth_deg": None, "status": "undetermined", "message": "", "profile": []}
        ],
        "findings": [],
    }
    (b,) = _building_sites(review_document(doc), {})
    assert b["figure"] is None and b["computed"] is False
    model = _minimal_model([])
    model["building_sites"] = [b]
    from stormwater_plugin.report.html import render_html

    assert "slope not computed" in render_html(model, {})


def test_a_plain_check_writes_findings_only_and_report_is_on_request(site, tmp_path):
    plain, asked = tmp_path / "plain", tmp_path / "asked"
    assert _run(site, plain, "--quiet") == 1
    assert (plain / "findings.json").is_file() and not (plain / "report.pdf").exists()
    assert _run(site, asked, "--quiet", "--report") == 1
    assert all((asked / n).is_file() for n in ("report.html", "report.pdf", "notification.csv", "labels.pdf"))


def test_a_finding_message_taller_than_a_page_splits_across_pages_instead_of_failing(tmp_path):
    """A very long findings table (or one enormous message) paginates; ReportLab's LayoutError never ends the report."""
    import dataclasses

    from stormwater_plugin.core.serialize import result_to_dict
    from stormwater_plugin.report.package import write_report_package
    from tests.sitebuilder import device, layer, plane_dem, run, septic_square

    g, a = device(24, 0)
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    result = run("lgpc", layers, plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0))
    result.findings[0] = dataclasses.replace(result.findings[0], message="a very long message " * 1500)
    info = write_report_package(result, layers, 1.0, tmp_path, doc=result_to_dict(result))
    pdf = tmp_path / "report.pdf"
    assert pdf.is_file() and info["files"]
    pages = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    assert int(next(ln.split()[-1] for ln in pages.splitlines() if ln.startswith("Pages:"))) >= 4
