"""The review's document per check, in process: what the live re-check pays per edit to build and decide it.

The demo site (``resources/demo``, built by ``scripts/make_demo_site.py``) is checked once per pack; then,
``--repeat`` times each, the script times (process CPU, median):

* ``review``: the review of the result with its completeness list (``review_of`` + ``with_completeness``);
* ``+ findings.json``: the same and its findings.json object (``findings_json``, what a writer dumps);
* ``live edit``: the review, then the live task's and the dock session's decided documents (``decided(…).doc`` twice).

The reference, measured in the same run, is one JSON text round trip of the same findings.json object
(``json.loads(json.dumps(doc, default=str))``), the step the typed document took out of the process.

Usage::

    python benchmarks/bench_review_document.py [--repeat 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times) * 1000


def _one(jurisdiction: str, demo: Path, repeat: int) -> None:
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.site_source import FileSiteSource
    from stormwater_plugin.services.findings_doc import findings_json
    from stormwater_plugin.services.review import Review, review_of
    from stormwater_plugin.services.site_source import ReviewOptions, check_site

    source = FileSiteSource(demo / "site.gpkg", [], demo / "dem.tif", None, None)
    done = check_site(source, load_pack(jurisdiction), ReviewOptions(completeness=True))
    result, site, moves = done.review.result, done.site, done.review.moves
    section = done.completeness.as_dict() if done.completeness is not None else None

    def review() -> Review:
        return review_of(result, crs_name=site.inputs.crs_name, inputs=site.description, moves=moves).with_completeness(section)

    def written() -> object:
        return findings_json(review().document)

    def live_edit() -> object:
        r = review()
        return r.decided([], comparison=None).doc, r.with_moves(()).decided([]).doc

    doc = findings_json(review().document)
    reference = _median_ms(lambda: json.loads(json.dumps(doc, ensure_ascii=False, default=str)), repeat)
    print(f"{jurisdiction}: {len(result.findings)} findings; JSON text round trip of findings.json {reference:.2f} ms (reference)")
    for name, fn in (("review", review), ("+ findings.json", written), ("live edit", live_edit)):
        ms = _median_ms(fn, repeat)
        print(f"  {name:16s} {ms:6.2f} ms CPU, {ms / reference:4.1f}x the round trip")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    demo = ROOT / "resources" / "demo"
    if not (demo / "site.gpkg").is_file():
        print("resources/demo is absent: run scripts/make_demo_site.py --out resources/demo")
        return 0
    for jurisdiction in ("lgpc", "lake-george", "mamakating"):
        _one(jurisdiction, demo, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
