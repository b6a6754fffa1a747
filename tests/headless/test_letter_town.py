"""The comment letter a town engineer signs (issue 37; issue 33 item 4): read back as the applicant receives it.

Each letter is a real `stormwater-check` run on a copy of the demo package, then `stormwater-check letter`.
The DOCX is read back with python-docx, the PDF with pdftotext (poppler), as a town would open them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.services.letter import FYI, LetterHeader, compose_letter
from stormwater_plugin.services.letter_edits import CommentEditError, edits_from
from stormwater_plugin.services.letter_words import internal_words_in
from tests.headless.sitefiles import edit_layer

docx = pytest.importorskip("docx", reason="python-docx writes the letter (Debian: python3-docx)")

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
SEPTIC_DW1 = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"
FT_PER_M = 1 / 0.3048
#: Words of the engine and the review report that an applicant must never read (issue 37.3).
INTERNAL = ("Horn", "verified by the checker", "building_sites", "(device -0.50 ft)", "taken as the reading", "DEM cell",
            "lake-george.minor", "lake-george.major", "septic-upgradient", "a reviewer row", "--frost-depth", "device_type", "the pack holds")

pytestmark = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) reads the PDF back")


def _move(fid: str, dx_ft: float = 0.0, dy_ft: float = 0.0):
    def fn(f):
        if f["properties"]["id"] != fid:
            return f
        x, y = f["geometry"]["coordinates"]
        return {"geometry": {"type": "Point", "coordinates": (x + dx_ft / FT_PER_M, y + dy_ft / FT_PER_M)}, "properties": dict(f["properties"])}

    return fn


def _move_with_its_excavation(fid: str, dx_ft: float = 0.0, dy_ft: float = 0.0):
    """The device and the disturbance drawn around it moved together (the resubmitted plan moves the dry well and its dig)."""
    import geopandas as gpd
    from shapely.affinity import translate
    from shapely.geometry import mapping, shape

    point = gpd.read_file(DEMO / "site.gpkg", layer="devices").set_index("id").geometry[fid]

    def dig(f):
        g = shape(f["geometry"])
        if not g.contains(point):
            return f
        return {"geometry": mapping(translate(g, dx_ft / FT_PER_M, dy_ft / FT_PER_M)), "properties": dict(f["properties"])}

    return [("devices", _move(fid, dx_ft, dy_ft)), ("disturbance", dig)]


def _check(tmp: Path, name: str, edits=()) -> Path:
    folder = tmp / name
    folder.mkdir()
    shutil.copy2(DEMO / "site.gpkg", folder / "site.gpkg")
    for layer, fn in edits:
        edit_layer(folder / "site.gpkg", layer, fn)
    out = folder / "out"
    assert main([str(folder / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet"]) in (0, 1)
    return out


def _letter(out: Path, *extra: str, previous: Path | None = None, date: str = "2026-12-05") -> tuple[dict, list[str]]:
    args = ["letter", str(out), "--out", str(out / "letter.docx"), "--reviewer", "A. Reviewer", "--reviewer-title", "Town Engineer",
            "--town", "Town of Lake George", "--applicant", "Jordan Doe", "--mailing-address", "PO Box 12; Bolton Landing, NY 12814",
            "--address", "12 Lake Shore Dr", "--application", "SW-2026-014", "--date", date, *extra]
    if previous is not None:
        args += ["--previous", str(previous)]
    assert main(args) in (0, 1)
    paragraphs = [p.text for p in docx.Document(str(out / "letter.docx")).paragraphs]
    return json.loads((out / "letter.json").read_text(encoding="utf-8")), paragraphs


def _pdf_pages(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


@pytest.fixture(scope="module")
def round1(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("town-letter")
    out = _check(tmp, "r1")
    letter, paragraphs = _letter(out)
    return tmp, out, letter, paragraphs


def test_the_letter_opens_with_the_date_the_addressee_the_re_line_and_the_salutation(round1):
    _tmp, _out, _letter_doc, paragraphs = round1
    text = [p for p in paragraphs if p.strip()]
    assert text[0] == "December 5, 2026"  # a US letter date, never 2026-12-05
    assert text[1].splitlines() == ["Jordan Doe", "PO Box 12", "Bolton Landing, NY 12814"]
    re_line = text[2]
    assert re_line.startswith("Re:") and "application SW-2026-014" in re_line
    assert "12 Lake Shore Dr (tax parcel 171.15-1-23)" in re_line and "Town of Lake George Code" in re_line
    assert text[3] == "Dear Jordan Doe:"
    assert "2026-12-05" not in "\n".join(paragraphs)


def test_deficiencies_come_first_then_requests_then_notes_and_notes_needing_no_reply_last(round1):
    _tmp, _out, letter, paragraphs = round1
    leads = [p for p in paragraphs if re.match(r"Comment \d+ — ", p)]
    kinds = [re.match(r"Comment \d+ — ([^,]+),", p).group(1) for p in leads]
    order = ["Not compliant", "Information requested", "Note", "Reviewer's comment"]
    assert kinds and kinds[0] == "Not compliant"
    assert [order.index(k) for k in kinds] == sorted(order.index(k) for k in kinds)
    fyi_at = paragraphs.index("For your information (no reply needed)")
    assert all(paragraphs.index(p) < fyi_at for p in leads)
    # the 24-hour cover note runs once, listing its ten features, in the notes needing no reply
    cover = [c for c in letter["fyi"] if "24 hours" in c["text"]]
    assert len(cover) == 1 and len(cover[0]["features"]) == 10 and cover[0]["part"] == FYI
    body = "\n".join(paragraphs)
    assert body.count("cleared ground must be covered or protected within 24 hours") == 1


def test_no_sentence_is_repeated_within_a_comment(round1):
    _tmp, _out, letter, _paragraphs = round1
    for c in letter["comments"] + letter["fyi"]:
        sentences = [s.strip() for s in re.split(r"(?<=[.;:])\s+", c["text"]) if len(s.strip()) > 12]
        assert len(sentences) == len(set(sentences)), c["text"]
        assert len(c["features"]) == len(set(c["features"]))


def test_no_internal_word_reaches_the_letter(round1):
    _tmp, out, letter, paragraphs = round1
    body = "\n".join(paragraphs)
    for word in INTERNAL:
        assert word not in body, word
    assert internal_words_in(body) == []
    pdf = "\n".join(_pdf_pages(out / "letter.pdf")) if shutil.which("pdftotext") else ""
    for word in INTERNAL:
        assert word not in pdf, word
    # what the report keeps: the method, referred to by the section
    assert any("set out in the review report under Town of Lake George Code §148-11I(2)(c)" in p for p in paragraphs)
    dw1 = next(c for c in letter["comments"] if SEPTIC_DW1 in c["keys"])
    assert "14.0 ft from septic system S-1" in dw1["text"] and "6.0 ft short" in dw1["text"]


def test_every_page_shows_its_number_and_the_signature_is_kept_with_the_closing_paragraph(round1):
    _tmp, out, _letter_doc, _paragraphs = round1
    d = docx.Document(str(out / "letter.docx"))
    footer_xml = d.sections[0].footer._element.xml
    assert "PAGE" in footer_xml and "NUMPAGES" in footer_xml
    paras = d.paragraphs
    closing = next(i for i, p in enumerate(paras) if "remain open" in p.text or "remains open" in p.text)
    assert [p.text for p in paras[closing + 1:] if p.text.strip()] == ["Sincerely,", "A. Reviewer", "Town Engineer", "Town of Lake George"]
    assert all(p.paragraph_format.keep_with_next for p in paras[closing:-1])


@needs_poppler
def test_the_pdfs_last_page_holds_body_text_above_the_signature(round1):
    _tmp, out, _letter_doc, _paragraphs = round1
    pages = _pdf_pages(out / "letter.pdf")
    last = pages[-1]
    assert "Sincerely," in last and "A. Reviewer" in last
    body = last[:last.index("Sincerely,")]
    assert "cannot be approved until each is resolved" in body
    assert all(f"Page {i} of {len(pages)}" in p for i, p in enumerate(pages, 1))


def _template(path: Path) -> Path:
    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "TOWN OF TESTVILLE · DEPARTMENT OF ENGINEERING"
    d.add_paragraph("{{town}} — 1 Municipal Plaza, Testville, NY 12000")
    d.add_paragraph("{{body}}")
    d.add_paragraph("Very truly yours,")
    d.add_paragraph("{{ reviewer }}, {{reviewer_title}}")
    d.sections[0].footer.paragraphs[0].text = "Application {{application}} · page {{page}} of {{pages}}"
    d.save(str(path))
    return path


@needs_poppler
def test_a_towns_template_gives_the_letterhead_and_signature_block_with_its_placeholders_filled(round1, tmp_path):
    _tmp, out, _letter_doc, _p = round1
    template = _template(tmp_path / "testville.docx")
    _letter(out, "--template", str(template))
    d = docx.Document(str(out / "letter.docx"))
    texts = [p.text for p in d.paragraphs if p.text.strip()]
    assert texts[0] == "Town of Lake George — 1 Municipal Plaza, Testville, NY 12000"
    assert texts[1] == "December 5, 2026"
    assert texts[-2:] == ["Very truly yours,", "A. Reviewer, Town Engineer"]
    assert not any("{{" in t for t in texts) and "Sincerely," not in texts
    footer = d.sections[0].footer
    assert footer.paragraphs[0].text.startswith("Application SW-2026-014 · page ") and "PAGE" in footer._element.xml
    assert d.sections[0].header.paragraphs[0].text == "TOWN OF TESTVILLE · DEPARTMENT OF ENGINEERING"
    closing = next(p for p in d.paragraphs if "remain open" in p.text)
    assert closing.paragraph_format.keep_with_next
    pages = _pdf_pages(out / "letter.pdf")
    assert "TOWN OF TESTVILLE" in pages[0] and "Very truly yours," in pages[-1] and "Sincerely," not in pages[-1]


def test_a_template_that_cannot_be_read_is_refused_in_one_line_naming_it(round1, tmp_path, capsys):
    _tmp, out, _letter_doc, _p = round1
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    before = (out / "letter.docx").read_bytes()
    assert main(["letter", str(out), "--out", str(out / "letter.docx"), "--template", str(broken)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(broken) in err[0] and "Word document" in err[0]
    assert (out / "letter.docx").read_bytes() == before  # nothing written


def test_a_control_character_in_a_name_does_not_stop_the_letter(round1):
    _tmp, out, _letter_doc, _p = round1
    assert main(["letter", str(out), "--out", str(out / "vt.docx"), "--applicant", "Jordan\x0bDoe", "--date", "2026-12-05"]) in (0, 1)
    assert "Dear Jordan Doe:" in [p.text for p in docx.Document(str(out / "vt.docx")).paragraphs]


def test_round_2_after_a_10_ft_move_that_changes_no_status_lists_no_new_comment(round1):
    tmp, r1, letter1, _p = round1
    r2 = _check(tmp, "dw2-moved", _move_with_its_excavation("DW-2", dy_ft=10.0))
    f1 = {f["key"]: f["status"] for f in json.loads((r1 / "findings.json").read_text(encoding="utf-8"))["findings"]}
    f2 = {f["key"]: f["status"] for f in json.loads((r2 / "findings.json").read_text(encoding="utf-8"))["findings"]}
    assert f1 == f2  # the move changes no status (and the class stays)
    letter2, paragraphs = _letter(r2, previous=r1, date="2027-01-08")
    assert letter2["comments"] == [] and letter2["fyi"] == []
    assert "• The revised plan raises no new comment." in paragraphs
    assert "Changes since our letter of December 5, 2026" in paragraphs
    marks = {p["comment"]["number"]: p["mark"] for p in letter2["prior"]}
    assert set(marks) == {c["number"] for c in letter1["carried"]}
    assert all(m in ("not addressed", "still applies") for m in marks.values())


def test_round_2_lists_what_changed_and_the_comments_that_remain(round1):
    tmp, r1, letter1, _p = round1
    r2 = _check(tmp, "dw1-moved", _move_with_its_excavation("DW-1", dx_ft=-15.0))
    letter2, paragraphs = _letter(r2, previous=r1, date="2027-01-08")
    n = next(c["number"] for c in letter1["comments"] if SEPTIC_DW1 in c["keys"])
    assert f"• Addressed: comment {n}." in paragraphs
    assert any(p.startswith("• Not addressed: comment") for p in paragraphs)
    assert "• The revised plan raises no new comment." in paragraphs
    remaining = [p["comment"]["number"] for p in letter2["prior"] if p["mark"] != "addressed"]
    assert remaining and all(any(t.startswith(f"Comment {r} (round 1) — ") for t in paragraphs) for r in remaining)


def test_a_request_for_information_is_asked_once_for_every_finding_it_affects():
    cite = "Town of Lake George Code §148-11I(2)(f)"
    findings = [
        {"key": f"frost|devices:{d}|-", "rule_id": "frost", "kind": "frost_depth", "status": "undetermined", "citation": cite,
         "subject": {"layer": "devices", "id": d},
         "message": f"device {d} bottom is 7.0 ft below grade: the prevailing frost depth is not known (the pack holds no sourced figure for it): "
                    "give it with --frost-depth-ft."}
        for d in ("DW-1", "DW-2", "DW-3")
    ] + [
        {"key": f"{r}|devices:DW-9|wells:W-1", "rule_id": r, "kind": "device_setback", "status": "undetermined", "citation": f"C §{r}(a)",
         "subject": {"layer": "devices", "id": "DW-9"}, "details": {"missing_fields": ["device_type"]},
         "message": "device DW-9 is 50.0 ft from well W-1 (required 100 ft); the device's type is not set: set devices.device_type."}
        for r in ("r1", "r2")
    ]
    letter = compose_letter({"findings": findings}, LetterHeader(title="T"))
    assert len(letter.comments) == 2
    frost = next(c for c in letter.comments if c.rule_id == "frost")
    assert len(frost.keys) == 3 and frost.text.count("frost depth") == 1
    assert internal_words_in(frost.text) == [] and "pack" not in frost.text
    dtype = next(c for c in letter.comments if c.rule_id != "frost")
    assert len(dtype.keys) == 2 and "device type" in dtype.text and "devices.device_type" not in dtype.text


def test_findings_that_bind_only_if_the_project_is_major_form_one_part_without_a_prefix_per_comment(tmp_path):
    head = "If the project is major (the class is not decided: minor or major):"
    findings = [
        {"key": f"m|devices:{d}|septic:S-1", "rule_id": "m", "kind": "device_setback", "status": "violation", "citation": "C §2(c)",
         "subject": {"layer": "devices", "id": d}, "other": {"layer": "septic", "id": "S-1"}, "measured_ft": 80.0, "required_ft": 100.0,
         "details": {"binds_if_class": ["major"]}, "message": f"{head} device {d} is 80.0 ft from septic system S-1 (required 100 ft): 20.0 ft short."}
        for d in ("DW-1", "DW-2")
    ] + [{"key": "n|devices:DW-1|-", "rule_id": "n", "kind": "device_setback", "status": "violation", "citation": "C §1(a)",
          "subject": {"layer": "devices", "id": "DW-1"}, "message": "device DW-1 is 5.0 ft from the lot line (required 10 ft): 5.0 ft short."}]
    letter = compose_letter({"findings": findings, "project_class": "minor"}, LetterHeader(title="T", applicant="A"))
    parts = letter.parts()
    assert [p for p, _ in parts] == ["reply", "class:major"]
    assert [c.number for _, cs in parts for c in cs] == [1, 2, 3]
    assert all(not c.text.startswith("If the project") for c in letter.comments)
    from stormwater_plugin.report.letter_docx import letter_docx_bytes

    path = tmp_path / "l.docx"
    path.write_bytes(letter_docx_bytes(letter))
    paragraphs = [p.text for p in docx.Document(str(path)).paragraphs]
    assert paragraphs.count("If the project is major") == 1
    assert sum(1 for p in paragraphs if "if the project is major" in p.lower()) == 2  # the heading and its one explanation


def test_the_reviewers_edits_reword_drop_and_add_are_in_the_docx_and_pdf_and_carried_to_round_2(round1, tmp_path):
    tmp, r1, letter1, _p = round1
    r1b = _check(tmp, "edited")
    note = next(c for c in letter1["comments"] if c["status"] == "advisory")
    edits = {"format": "stormwater-check-comment-edits", "version": 1, "round": 1, "edits": [
        {"action": "reword", "ref": SEPTIC_DW1, "text": "Move dry well DW-1 so that it is at least 20 ft from the septic system S-1."},
        {"action": "drop", "ref": note["ref"], "reason": "discussed at the pre-application meeting"},
        {"action": "add", "text": "Show the roof leaders of the house.", "feature": {"layer": "building_sites", "id": "B-1"}},
        {"action": "reword", "ref": "no-such-comment", "text": "x"},
    ]}
    ed = tmp_path / "edits.json"
    ed.write_text(json.dumps(edits), encoding="utf-8")
    back = tmp_path / "edits-out.json"
    letter, paragraphs = _letter(r1b, "--comment-edits", str(ed), "--write-edits", str(back))
    body = "\n".join(paragraphs)
    assert "Move dry well DW-1 so that it is at least 20 ft from the septic system S-1." in body
    assert note["text"] not in body and letter["dropped"][0]["reason"] == "discussed at the pre-application meeting"
    added = next(c for c in letter["comments"] if c["origin"] == "added")
    assert any(p.startswith(f"Comment {added['number']} — Reviewer's comment, building site B-1") for p in paragraphs)
    assert [e["ref"] for e in letter["stale_edits"]] == ["no-such-comment"]
    assert edits_from(json.loads(back.read_text(encoding="utf-8")))[0] == 1
    numbers = [c["number"] for c in letter["comments"]]
    assert numbers == list(range(1, len(numbers) + 1))  # the dropped comment leaves no gap
    if shutil.which("pdftotext"):
        pdf = " ".join(" ".join(_pdf_pages(r1b / "letter.pdf")).split())
        assert "Move dry well DW-1 so that it is at least 20 ft" in pdf and "Show the roof leaders of the house." in pdf
    # round 2: DW-1 moved clear; the reworded comment is addressed under its number, the added one stands until marked
    r2 = _check(tmp, "edited-r2", _move_with_its_excavation("DW-1", dx_ft=-15.0))
    dw1 = next(c for c in letter["comments"] if SEPTIC_DW1 in c["keys"])
    letter2, paragraphs2 = _letter(r2, previous=r1b, date="2027-01-08")
    marks = {p["comment"]["number"]: p for p in letter2["prior"]}
    assert marks[dw1["number"]]["mark"] == "addressed" and marks[dw1["number"]]["comment"]["origin"] == "reworded"
    assert marks[added["number"]]["mark"] == "not addressed"
    assert note["ref"] not in [c["ref"] for c in letter2["comments"]]  # a dropped note is not raised again
    assert all(c["number"] > letter["last_number"] for c in letter2["comments"])
    assert any("The comment read: Move dry well DW-1" in p for p in paragraphs2)
    # the reviewer marks the added comment answered
    mark = tmp_path / "mark.json"
    mark.write_text(json.dumps({"edits": [{"action": "mark", "number": added["number"], "mark": "addressed", "note": "shown on sheet 2"}]}))
    letter2b, _ = _letter(r2, "--comment-edits", str(mark), previous=r1b, date="2027-01-08")
    assert {p["comment"]["number"]: p["mark"] for p in letter2b["prior"]}[added["number"]] == "addressed"


@pytest.mark.parametrize("bad", [
    {"edits": [{"action": "drop", "ref": "x"}]},
    {"edits": [{"action": "rename", "ref": "x"}]},
    {"edits": [{"action": "mark", "number": 3, "mark": "done"}]},
    {"format": "something-else", "edits": []},
])
def test_an_unusable_edit_is_refused_naming_it(bad):
    with pytest.raises(CommentEditError):
        edits_from(bad)


def test_the_docx_pdf_and_letter_json_are_written_together_or_not_at_all(round1, tmp_path, monkeypatch):
    from stormwater_plugin.report import letter_files

    _tmp, out, _letter_doc, _p = round1
    letter = compose_letter(json.loads((out / "findings.json").read_text(encoding="utf-8")), LetterHeader(title="T", date="2026-12-05"))
    target = tmp_path / "letter.docx"
    written = letter_files.write_letter_files(letter, target, [tmp_path / "letter.json"])
    assert [p.name for p in written] == ["letter.docx", "letter.pdf", "letter.json"]
    before = {p.name: p.read_bytes() for p in written}

    def broken(*_a, **_k):
        raise RuntimeError("the PDF could not be laid out")

    monkeypatch.setattr(letter_files, "letter_pdf_bytes", broken)
    with pytest.raises(RuntimeError):
        letter_files.write_letter_files(compose_letter({"findings": []}, LetterHeader(title="T")), target, [tmp_path / "letter.json"])
    assert {p.name: p.read_bytes() for p in written} == before
    # no temporary left behind (the folder's output manifest and its lock are the tool's own, issue 35)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".stormwater-outputs")) == ["letter.docx", "letter.json", "letter.pdf"]


def test_a_template_without_a_body_marker_takes_the_body_after_its_text_and_the_built_in_signature(tmp_path):
    from stormwater_plugin.report.letter_docx import letter_docx_bytes
    from stormwater_plugin.report.letter_template import read_template

    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "{{town}} Engineering"
    d.add_paragraph("Office hours: Monday to Friday")
    d.save(str(tmp_path / "t.docx"))
    letter = compose_letter({"findings": []}, LetterHeader(title="T", town="Town of Testville", reviewer="R. Engineer", date="2026-12-05"))
    (tmp_path / "l.docx").write_bytes(letter_docx_bytes(letter, read_template(tmp_path / "t.docx")))
    out = docx.Document(str(tmp_path / "l.docx"))
    texts = [p.text for p in out.paragraphs if p.text.strip()]
    assert texts[0] == "Office hours: Monday to Friday" and texts[1] == "December 5, 2026"
    assert texts[-3:] == ["Sincerely,", "R. Engineer", "Town of Testville"]
    assert out.sections[0].header.paragraphs[0].text == "Town of Testville Engineering"
    assert "PAGE" in out.sections[0].footer._element.xml
