"""``stormwater-check batch --accuracy ROLE=FT --dem-vertical-accuracy-ft FT``: every site states what the check states.

The batch command passes the stated accuracy (and ``--class``) to ``run_batch`` as the use case's
``ReviewOptions``, so each site's findings.json records the same ``accuracy`` section a single-site
``stormwater-check check`` with those options records; a statement that is not a number of feet is refused
in the check's words before the town is read; and a screening's resume hash changes with what it states.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.headless.batch_io import batch_input_hash

from .synthetic_town import write_town


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("town4")
    write_town(folder, 4, cell=2.0, cols=4)
    return folder


def _batch(town: Path, out: Path, *extra: str) -> int:
    return main(["batch", str(town / "town.gpkg"), "--dem", str(town / "dem.tif"), "--jurisdiction", "lgpc", "--class", "major",
                 "--workers", "1", "--quiet", *extra, "--out", str(out)])


def test_the_batch_command_states_the_accuracy_on_every_site_as_the_check_does(town: Path, tmp_path: Path) -> None:
    code = _batch(town, tmp_path / "stated", "--accuracy", "devices=5", "--accuracy", "septic=10", "--dem-vertical-accuracy-ft", "0.5")
    assert code in (0, 1)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((tmp_path / "stated" / "sites").glob("*/findings.json"))]
    assert len(docs) == 4
    for doc in docs:
        assert doc["accuracy"]["roles"] == {"devices": 5.0, "septic": 10.0}
        assert doc["accuracy"]["dem_vertical_ft"] == 0.5
        assert (doc["project_class"], doc["class_source"]) == ("major", "override")
    assert _batch(town, tmp_path / "unstated") in (0, 1)
    for path in (tmp_path / "unstated" / "sites").glob("*/findings.json"):
        plain = json.loads(path.read_text(encoding="utf-8"))["accuracy"]
        assert plain["roles"] == {} and plain["dem_vertical_ft"] is None


@pytest.mark.parametrize(("statement", "option"), [(("--accuracy", "devices=five"), "--accuracy"),
                                                   (("--dem-vertical-accuracy-ft", "-1"), "--dem-vertical-accuracy-ft")])
def test_a_statement_that_is_not_feet_is_refused_before_the_town_is_read(town: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                       statement: tuple[str, str], option: str) -> None:
    assert _batch(town, tmp_path / "bad", *statement) == 2
    err = capsys.readouterr().err
    assert f"stormwater-check batch: error: {option}" in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()


def test_the_resume_hash_changes_with_the_stated_accuracy_and_not_without_one(town: Path) -> None:
    args = (town / "town.gpkg", town / "dem.tif", "lgpc", "major", [], None)
    none = batch_input_hash(*args)
    assert batch_input_hash(*args, (), None) == none  # nothing stated: the hash of a screening before --accuracy existed
    stated = batch_input_hash(*args, ("devices=5",), None)
    assert stated != none and batch_input_hash(*args, ("devices=6",), None) != stated
    assert batch_input_hash(*args, (), 0.5) not in (none, stated)
