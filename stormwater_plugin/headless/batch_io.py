"""Batch screening, the files: site folders, the progress record and resume, summary.csv, findings.gpkg.

The outputs are described in :mod:`.batch`. Every file is written whole or
not at all (:func:`replace_text`); a site's findings.json is written by the
worker that checked it when it shares this file system
(:func:`write_site`), and findings.gpkg in bulk at the end
(:func:`_bulk_layer`).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import shapely

from ..__about__ import __version__
from ..core.model import FeatureLayer, Finding
from ..core.rulepack import PACK_DIR
from ..services import safe_files
from ..services.batch_plan import BatchError, BatchPlan
from ..services.batch_run import SiteOutcome
from ..services.output_manifest import OutputFolderError, Part, publish, read_manifest
from .writer import FAMILY, finding_row, layer_schema, write_layer

#: Columns of ``summary.csv``.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "site_parcel",
    "project_class",
    "class_source",
    "violation",
    "undetermined",
    "advisory",
    "pass",
    "worst_status",
    "worst_rule_id",
    "worst_citation",
    "worst_message",
    "findings_json",
    "error",
)


def map_row(site_id: str, f: Finding) -> tuple[str, dict[str, Any], bytes] | None:
    """A finding's row of the town's findings.gpkg (family, columns with ``site_parcel``, WKB); ``None`` without a geometry."""
    g = f.geometry
    fam = FAMILY.get(g.geom_type) if g is not None and not g.is_empty else None
    if fam is None:
        return None
    return fam, {"site_parcel": site_id, **finding_row(f)}, shapely.to_wkb(g)


#: Longest site folder name, characters (file systems allow 255 bytes; the rest of the path needs room too).
MAX_FOLDER_CHARS: int = 96


def safe_name(site_id: str, taken: set[str]) -> str:
    """A unique, file-system-safe folder name for a site id (a long id is cut and keeps a hash of the whole)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", site_id).strip("._") or "site"
    if len(base) > MAX_FOLDER_CHARS:
        base = f"{base[: MAX_FOLDER_CHARS - 13].rstrip('._')}_{hashlib.sha256(site_id.encode('utf-8')).hexdigest()[:12]}"
    name, k = base, 2
    while name.lower() in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name.lower())
    return name


#: The screening's input hash and one line per site checked (see the module docstring).
PROGRESS_FILE = "progress.jsonl"
#: Files of a screening (an earlier screening's are removed before a screening with other inputs starts).
BATCH_FILES: tuple[str, ...] = ("summary.csv", "findings.gpkg", "batch.json", PROGRESS_FILE)


def _file_digest(h: Any, path: Path, whole: bool = True) -> None:
    """Add ``path`` to hash ``h``: its bytes (``whole``), else its size, modification time and first and last MiB."""
    st = path.stat()
    h.update(f"{path.name}:{st.st_size}".encode())
    with path.open("rb") as fh:
        if whole:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
            return
        h.update(str(st.st_mtime_ns).encode())
        h.update(fh.read(1 << 20))
        if st.st_size > 1 << 20:
            fh.seek(max(st.st_size - (1 << 20), 1 << 20))
            h.update(fh.read(1 << 20))


def batch_input_hash(package: Path, dem_path: Path | None, jurisdiction: str, class_override: str | None, layer_options: Sequence[str],
                     dem_z_units: str | None, accuracy: Sequence[str] = (), dem_vertical_accuracy_ft: float | str | None = None) -> str:
    """A hash of everything a screening's results depend on.

    The site package and every ``--layer`` file (with its sidecars) in full,
    the rule packs and their data files, the options and the checker's
    version; the DEM (often gigabytes) by size, modification time and its
    first and last MiB.
    """
    h = hashlib.sha256()
    options: dict[str, object] = {"version": __version__, "jurisdiction": jurisdiction, "class": class_override, "layers": list(layer_options),
                                  "z": dem_z_units}
    if accuracy or dem_vertical_accuracy_ft is not None:  # only when stated: a screening stating none keeps its hash (and its resume)
        options["accuracy"] = [list(accuracy), dem_vertical_accuracy_ft]
    h.update(json.dumps(options).encode())
    for pack_file in sorted(PACK_DIR.glob("*.json")):
        _file_digest(h, pack_file)
    files = [Path(package)] if package else []
    for opt in layer_options:
        path = Path(opt.split("=", 1)[-1])
        if not path.exists() and ":" in path.name:
            path = path.with_name(path.name.rsplit(":", 1)[0])
        if path.is_file():
            files.extend(sorted(p for p in path.parent.glob(path.stem + ".*") if p.is_file()))
    for f in files:
        if f.is_file():
            _file_digest(h, f)
    if dem_path is not None and Path(dem_path).is_file():
        _file_digest(h, Path(dem_path), whole=False)
    return h.hexdigest()


def outcome_record(o: SiteOutcome, folder: str, digest: str) -> str:
    d = dataclasses.asdict(o)
    d.pop("document", None)
    d["rows"] = [[fam, row, wkb.hex()] for fam, row, wkb in o.rows]
    return json.dumps({"site": o.site_id, "folder": folder, "sha256": digest, "outcome": d}, ensure_ascii=False, separators=(",", ":"))


def _outcome_from_record(d: dict[str, Any]) -> SiteOutcome:
    o = dict(d)
    o["rows"] = [(fam, row, bytes.fromhex(wkb)) for fam, row, wkb in o.get("rows", [])]
    return SiteOutcome(**o)


#: A site's findings.json inside a screening's folder (relative, ``/`` separators).
_SITE_FILE = re.compile(r"sites/[^/]+/findings\.json")


def batch_file(name: str) -> bool:
    """Whether ``name`` (relative to the output folder) is a file a screening writes: what an earlier release's folder holds of it."""
    return name in BATCH_FILES or bool(_SITE_FILE.fullmatch(name))


def site_file(folder: str) -> str:
    """A site's findings.json, relative to the output folder."""
    return f"sites/{folder}/findings.json"


def start_screening(out: Path, input_hash: str, say: Callable[[str], None], site_files: Sequence[str] = ()) -> dict[str, SiteOutcome]:
    """Prepare ``out`` for a screening with ``input_hash``; the sites an interrupted run of the same screening already checked.

    A site counts as checked when ``progress.jsonl`` records it under the
    same input hash and its findings.json still has the recorded hash. With
    other inputs (or no record) the earlier screening's files and site
    files are removed. Either way summary.csv and findings.gpkg go until
    this run writes them, and batch.json says ``incomplete``.

    Only files the folder's manifest says a screening wrote are removed or replaced (the town's own
    files in ``sites/<id>/`` stay); ``site_files`` (each site's findings.json, relative) are claimed in it before
    the workers write them, and the screening is refused (:class:`BatchError`, naming them) when one exists that
    the tool did not write.
    """
    progress = out / PROGRESS_FILE
    done: dict[str, SiteOutcome] = {}
    records: list[str] = []
    same = False
    if progress.exists():
        try:
            lines = progress.read_text(encoding="utf-8").splitlines()
            same = bool(lines) and json.loads(lines[0]).get("input_hash") == input_hash
            for line in lines[1:] if same else []:
                try:
                    rec = json.loads(line)
                except ValueError:  # a line cut by the interruption
                    continue
                doc = out / "sites" / rec["folder"] / "findings.json"
                if doc.is_file() and hashlib.sha256(doc.read_bytes()).hexdigest() == rec["sha256"]:
                    done[rec["site"]] = _outcome_from_record(rec["outcome"])
                    records.append(line)
        except (OSError, ValueError, KeyError, TypeError):
            same, done, records = False, {}, []
    earlier = any((out / n).exists() for n in BATCH_FILES)
    try:
        remove = ["summary.csv", "findings.gpkg"]
        if not same and earlier:
            say("removing the earlier screening's outputs from the folder (its inputs differ)")
            recorded = read_manifest(out)
            if recorded is None:  # an earlier release's folder: its site files by name
                remove += [p.relative_to(out).as_posix() for p in sorted((out / "sites").glob("*/findings.json"))]
            else:
                remove += [n for n in recorded if _SITE_FILE.fullmatch(n)]
        (out / "sites").mkdir(exist_ok=True)
        incomplete = json.dumps({
            "status": "incomplete", "input_hash": input_hash,
            "note": "this screening has not finished: summary.csv and findings.gpkg are written at its end; run the same command again to resume it",
        }, indent=2)
        staged = [("batch.json", safe_files.stage(out / "batch.json", incomplete.encode("utf-8"))),
                  (PROGRESS_FILE, safe_files.stage(progress, ("\n".join([json.dumps({"input_hash": input_hash})] + records) + "\n").encode("utf-8")))]
        for note in publish([Part(out, "batch", files=staged, claim=list(site_files), remove=remove, known=batch_file)]):
            say(f"note: {note}")
    except OutputFolderError as exc:  # a file the tool did not write where a screening's would go; an unreadable manifest
        raise BatchError(str(exc)) from exc
    except OSError as exc:
        raise BatchError(f"{out}: cannot write the output folder ({exc.strerror})") from exc
    if done:
        say(f"resuming: {len(done)} site(s) already checked by an interrupted run of the same screening")
    return done


def publish_files(out: Path, files: Sequence[tuple[str, str]]) -> None:
    """Move a screening's staged files (name, temporary) into ``out`` together, over the tool's own files only."""
    publish([Part(out, "batch", files=list(files), known=batch_file)])


def replace_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temporary file beside it, then a rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def make_output_folders(out: Path, site_ids: Sequence[str]) -> dict[str, str]:
    """Create ``out`` and ``out/sites``; each site's folder name (unique, file-system safe)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "sites").mkdir(exist_ok=True)
    except OSError as exc:
        raise BatchError(f"{out}: cannot create the output folder ({exc.strerror})") from exc
    taken: set[str] = set()
    return {sid: safe_name(sid, taken) for sid in site_ids}


def write_site(out: Path, name: str, o: SiteOutcome) -> str:
    """Write one site's findings.json whole or not at all; its sha256 (a failure becomes the site's error, not the batch's)."""
    d = out / "sites" / name
    try:
        d.mkdir(exist_ok=True)
        replace_text(d / "findings.json", o.document)
    except OSError as exc:
        o.error = f"cannot write {d / 'findings.json'}: {exc.strerror or exc}"[:300]
        o.rows, o.counts, o.worst, o.has_violation = [], {}, None, False
        return ""
    return hashlib.sha256(o.document.encode("utf-8")).hexdigest()



def write_summary(path: Path, outcomes: Iterable[SiteOutcome], folder: dict[str, str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(SUMMARY_COLUMNS))
        w.writeheader()
        for o in outcomes:
            worst = o.worst or {}
            w.writerow(
                {
                    "site_parcel": o.site_id,
                    "project_class": o.project_class or "",
                    "class_source": o.class_source or "",
                    "violation": o.counts.get("violation", ""),
                    "undetermined": o.counts.get("undetermined", ""),
                    "advisory": o.counts.get("advisory", ""),
                    "pass": o.counts.get("pass", ""),
                    "worst_status": worst.get("status", "error" if o.error else ""),
                    "worst_rule_id": worst.get("rule_id", ""),
                    "worst_citation": worst.get("citation", ""),
                    "worst_message": worst.get("message", ""),
                    "findings_json": f"sites/{folder[o.site_id]}/findings.json" if not o.error else "",
                    "error": o.error or "",
                }
            )


def write_gpkg(path: Path, outcomes: Sequence[SiteOutcome], plan: BatchPlan, parcels: FeatureLayer, crs: Any) -> None:
    """findings_points/lines/areas with a site_parcel column, and the site parcels with their counts.

    Each layer in bulk: one fiona session and one ``writerecords`` call (one
    transaction), no pandas; geometries promoted to the family's multi type
    as in the single-site findings.gpkg.
    """
    if path.exists():
        path.unlink()
    groups: dict[str, tuple[list[dict[str, Any]], list[bytes]]] = {"points": ([], []), "lines": ([], []), "areas": ([], [])}
    for o in outcomes:
        for fam, row, wkb in o.rows:
            groups[fam][0].append(row)
            groups[fam][1].append(wkb)
    for fam, (rows, wkbs) in groups.items():
        if rows:
            _bulk_layer(path, f"findings_{fam}", rows, shapely.from_wkb(np.array(wkbs, dtype=object)), fam, crs)
    by_id = {o.site_id: o for o in outcomes}
    rows = []
    geoms = []
    for sid, members in zip(plan.site_ids, plan.site_parcels):
        o = by_id[sid]
        worst = o.worst or {}
        rows.append(
            {
                "site_parcel": sid,
                "project_class": o.project_class,
                "violation": o.counts.get("violation"),
                "undetermined": o.counts.get("undetermined"),
                "advisory": o.counts.get("advisory"),
                "pass": o.counts.get("pass"),
                "worst_status": worst.get("status", "error" if o.error else None),
                "worst_rule_id": worst.get("rule_id"),
                "error": o.error,
            }
        )
        geoms.append(shapely.union_all(parcels.geoms[members]) if len(members) > 1 else parcels.geoms[members[0]])
    _bulk_layer(path, "site_parcels", rows, np.array(geoms, dtype=object), "areas", crs)


_MULTI_OF = {"points": (0, shapely.multipoints), "lines": (1, shapely.multilinestrings), "areas": (3, shapely.multipolygons)}


def _bulk_layer(path: Path, name: str, rows: list[dict[str, Any]], geoms: np.ndarray, family: str, crs: Any) -> None:
    """One GeoPackage layer written in bulk: the layer made by fiona (schema, CRS), the rows by one SQLite transaction.

    The same table as :func:`~stormwater_plugin.headless.writer.write_layer`
    writes (columns, types, geometries promoted to the family's multi type),
    without an R-tree index (readers scan; a town's findings are read whole)
    and without converting each geometry to Python coordinates: the
    geometry blobs are the GeoPackage header (envelope) plus the WKB. A layer
    with 3D geometries, a missing one or an empty one goes through
    ``write_layer``.
    """
    import sqlite3
    import struct

    import fiona  # lazy: the spawned workers never write

    geoms = np.asarray(geoms, dtype=object)
    single_id, make_multi = _MULTI_OF[family]
    if len(geoms) == 0 or not shapely.is_geometry(geoms).all() or shapely.is_empty(geoms).any() or shapely.has_z(geoms).any():
        write_layer(path, name, rows, list(geoms), family, crs)
        return
    single = shapely.get_type_id(geoms) == single_id
    if single.any():
        geoms = geoms.copy()
        geoms[single] = make_multi(geoms[single].reshape(-1, 1))
    schema = layer_schema(rows, family)
    props = schema["properties"]
    with fiona.open(str(path), "w", driver="GPKG", layer=name, schema=schema, crs_wkt=crs.to_wkt(),
                    SPATIAL_INDEX="NO"):
        pass
    bounds = shapely.bounds(geoms)
    wkbs = shapely.to_wkb(geoms, byte_order=1)
    con = sqlite3.connect(str(path))
    try:
        geom_col, srs_id = con.execute("SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?", (name,)).fetchone()
        head = struct.Struct("<2sBBi4d")

        def value(c: str, v: Any) -> Any:
            if v is None:
                return None
            t = props[c]
            return str(v) if t == "str" else int(v) if t in ("int", "bool") else float(v)

        records = (
            (head.pack(b"GP", 0, 0x03, srs_id, b[0], b[2], b[1], b[3]) + w, *[value(c, r.get(c)) for c in props])
            for r, b, w in zip(rows, bounds, wkbs)
        )
        cols = ", ".join(f'"{c}"' for c in [geom_col, *props])
        with con:
            con.executemany(f'INSERT INTO "{name}" ({cols}) VALUES ({", ".join("?" * (len(props) + 1))})', records)
            con.execute(
                "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                (float(bounds[:, 0].min()), float(bounds[:, 1].min()), float(bounds[:, 2].max()), float(bounds[:, 3].max()), name),
            )
    finally:
        con.close()


__all__ = [
    "BATCH_FILES", "MAX_FOLDER_CHARS", "PROGRESS_FILE", "SUMMARY_COLUMNS", "batch_input_hash", "make_output_folders", "map_row",
    "batch_file", "outcome_record", "publish_files", "replace_text", "site_file", "safe_name", "start_screening", "write_gpkg", "write_site", "write_summary",
]
