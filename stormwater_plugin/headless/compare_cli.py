"""``stormwater-check compare OLD NEW --out DIR``: what changed between two reviews of a site.

Also the small reader the check command uses for ``--previous`` (its
``--accuracy`` is read by the review use case,
:func:`stormwater_plugin.services.site_source.check_site`). The comparison itself is :func:`stormwater_plugin.services.compare.compare_reviews`,
the same function the dock and the Processing algorithm call.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from ..report.package import comparison_line
from ..services import safe_files
from ..services.compare import CompareError, compare_reviews, open_violations
from ..services.output_manifest import OutputFolderError, Part, publish
from ..services.review_doc import findings_doc_problem
from .command_line import Command, namespace, out_option
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
    problem = findings_doc_problem(doc)  # a hand-edited or tampered file: one line naming the entry and field
    if problem is not None:
        raise InputError(f"{p}: {problem}")
    assert isinstance(doc, dict)
    doc["_path"] = str(p)
    return doc


@click.command(cls=Command, help="Compare two reviews of the same site: findings resolved, new, still open and changed, and the reviewer's decisions. "
               "OLD (the earlier review) and NEW (the current one): each a findings.json or its output folder.")
@click.argument("old", type=Path)
@click.argument("new", type=Path)
@out_option("folder for compare.json")
def command(**values: Any) -> int:
    """Write ``DIR/compare.json`` and print the counts; exit 1 while new or still-open violations remain."""
    return main(namespace(values))


def main(args: SimpleNamespace) -> int:
    """Write ``DIR/compare.json`` and print the counts; exit 1 while new or still-open violations remain."""
    try:
        old, new = read_previous(args.old), read_previous(args.new)
        try:
            cmp = compare_reviews(old, new)
        except CompareError as exc:
            raise InputError(str(exc)) from exc
        cmp["previous"] = old["_path"]
        try:
            # replaces only a compare.json the tool wrote (the folder's manifest), atomically
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
