"""``stormwater-check compare OLD NEW --out DIR``: what changed between two reviews of a site.

Also the small reader the check command uses for ``--previous`` (its
``--accuracy`` is read by the review use case,
:func:`stormwater_plugin.services.site_source.check_site`). The comparison itself is :func:`stormwater_plugin.services.compare.compare_reviews`,
the same function the dock and the Processing algorithm call.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from ..report.package import comparison_line
from ..services import safe_files
from ..services.compare import CompareError, compare_reviews, open_violations
from ..services.output_manifest import OutputFolderError, Part, publish
from .errors import fail
from .reader import InputError


def read_previous(path: Path) -> dict[str, Any]:
    """An earlier review's findings.json (given as the file or its output folder)."""
    p = Path(path)
    if p.is_dir():
        p = p / "findings.json"
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{p}: cannot read the earlier review ({exc.strerror}); give its output folder or findings.json") from exc
    except ValueError as exc:
        raise InputError(f"{p}: not a findings.json document ({exc})") from exc
    if not isinstance(doc, dict) or "findings" not in doc:
        raise InputError(f"{p}: not a findings.json document (no 'findings')")
    doc["_path"] = str(p)
    return doc


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stormwater-check compare",
        description="Compare two reviews of the same site: findings resolved, new, still open and changed, and the reviewer's decisions.",
    )
    p.add_argument("old", type=Path, help="the earlier review: its findings.json or output folder")
    p.add_argument("new", type=Path, help="the current review: its findings.json or output folder")
    p.add_argument("--out", type=Path, required=True, help="folder for compare.json")
    return p


def main(argv: Sequence[str]) -> int:
    """Write ``DIR/compare.json`` and print the counts; exit 1 while new or still-open violations remain."""
    args = _parser().parse_args(list(argv))
    try:
        old, new = read_previous(args.old), read_previous(args.new)
        try:
            cmp = compare_reviews(old, new)
        except CompareError as exc:
            raise InputError(str(exc)) from exc
        cmp["previous"] = old["_path"]
        try:
            # issue 35: replaces only a compare.json the tool wrote (the folder's manifest), atomically
            staged = safe_files.stage(args.out / "compare.json", (json.dumps(cmp, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
            notes = publish([Part(args.out, "compare", files=[("compare.json", staged)], known=("compare.json",))])
        except OSError as exc:
            raise InputError(f"{args.out}: cannot write compare.json ({exc.strerror})") from exc
    except (InputError, OutputFolderError) as exc:
        fail("stormwater-check compare", str(exc))
    for note in notes:
        sys.stderr.write(f"stormwater-check compare: note: {note}\n")
    print(comparison_line(cmp))
    for m in cmp["renamed_features"]:
        print(f"  {m['layer']} {m['old_id']} is now {m['new_id']} (geometry within {m['distance_ft']:g} ft)")
    print(f"Wrote {args.out / 'compare.json'}")
    return 1 if open_violations(cmp) else 0
