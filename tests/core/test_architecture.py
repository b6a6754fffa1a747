"""Layering: the core imports no QGIS, Qt or GDAL bindings, and no file-I/O stack."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "stormwater_plugin" / "core"
FORBIDDEN = ("qgis", "PyQt5", "PyQt6", "osgeo", "rasterio", "geopandas", "fiona", "pyproj")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_source_imports_no_qgis_qt_gdal_or_file_io_libraries():
    offenders = {str(p.relative_to(CORE)): sorted(_imports(p) & set(FORBIDDEN)) for p in CORE.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_core_loads_none_of_them_at_run_time():
    code = (
        "import sys; import stormwater_plugin.core.engine, stormwater_plugin.core.rulepack, stormwater_plugin.core.serialize;"
        f"bad=[m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=CORE.parents[1])
    assert out.stdout.strip() == ""


# --------------------------------------------------------------------------- the layering of the whole package (issue 17)
#
#   core  <-  services  <-  headless            (files: geopandas, rasterio, pyproj)
#                       <-  qgis_bridge  <-  processing
#                                        <-  gui
#   report (documents) uses core; nothing imports upwards, processing never imports gui,
#   gui and processing never import headless.

PACKAGE = CORE.parent
#: Layers each top-level package may not import (at module top or inside a function).
NOT_ABOVE: dict[str, frozenset[str]] = {
    "core": frozenset({"services", "headless", "qgis_bridge", "gui", "processing", "report", "cli"}),
    "services": frozenset({"headless", "qgis_bridge", "gui", "processing", "report", "cli"}),
    "gui": frozenset({"headless", "cli"}),
    "processing": frozenset({"headless", "gui", "cli"}),
    "qgis_bridge": frozenset({"headless", "gui", "processing", "cli"}),
    "headless": frozenset({"qgis_bridge", "gui", "processing"}),
}
#: Known exceptions (none left: the last two were removed in issue 17); a new one fails the test.
KNOWN_PRIVATE: set[tuple[str, str, str]] = set()
KNOWN_CYCLES: set[frozenset[str]] = set()


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges() -> list[tuple[str, str, str | None]]:
    """(importing module, imported module, imported name or None) for every import of the package, in functions too."""
    out = []
    for path in PACKAGE.rglob("*.py"):
        mod = _module(path)
        pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                out.extend((mod, target, a.name) for a in node.names)
            elif isinstance(node, ast.Import):
                out.extend((mod, a.name, None) for a in node.names)
    return [e for e in out if e[1].startswith("stormwater_plugin")]


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_package_imports_a_layer_above_it():
    bad = sorted(
        f"{src} imports {dst}"
        for src, dst, _ in _edges()
        if _layer(dst) in NOT_ABOVE.get(_layer(src), frozenset()) and dst != "stormwater_plugin.__about__"
    )
    assert bad == []


#: What the front ends inside QGIS may import from the core: its vocabulary (model, the role contract) and its error root;
#: everything else (the engine, packs, siting, terrain, decisions, comparison) through ``services`` (issue 23).
FRONT_END_CORE = frozenset({"stormwater_plugin.core.model", "stormwater_plugin.core.roles", "stormwater_plugin.core.errors"})
#: The gui modules that still reach past the service layer (none left: each was routed through services).
KNOWN_GUI_CORE: set[tuple[str, str]] = set()


def _core_edges(layer: str) -> set[tuple[str, str]]:
    return {(src, dst) for src, dst, _ in _edges() if _layer(src) == layer and _layer(dst) == "core" and dst not in FRONT_END_CORE}


def test_processing_reaches_the_core_only_through_services():
    assert _core_edges("processing") == set()


def test_gui_reaches_the_core_only_through_services():
    assert _core_edges("gui") - KNOWN_GUI_CORE == set()


ENGINE = "stormwater_plugin.core.engine"


def _engine_callers() -> set[str]:
    """Modules outside ``services`` that import the engine's ``run_check`` (by name, or the engine module and then ``.run_check``)."""
    found = set()
    for src, dst, name in _edges():
        if _layer(src) == "services" or src == ENGINE:
            continue
        if name == "run_check":  # from the engine, or re-exported by anything else
            found.add(src)
        elif (dst == ENGINE and name is None) or (dst == "stormwater_plugin.core" and name == "engine"):
            path = PACKAGE.parent.joinpath(*src.split(".")).with_suffix(".py")
            if not path.is_file():
                path = path.with_suffix("") / "__init__.py"
            if any(isinstance(n, ast.Attribute) and n.attr == "run_check" for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))):
                found.add(src)
    return found


def test_nothing_outside_services_calls_the_engine():
    """Issue 23: a check runs only through a use case of ``services`` (the moves' verification included, ``services.moves``)."""
    assert _engine_callers() == set()


#: The front ends: every check they run goes through the one use case (``services.site_source.check_site``), never the
#: review's or the engine's own call (issue 38 item 3). The command line's and the batch's adapters live in ``headless``.
FRONT_ENDS = ("gui", "processing", "cli", "headless")


def _front_end_check_imports() -> set[str]:
    """``module imports name`` for each front-end import of ``services.review.check`` or ``core.engine.run_check``."""
    found = set()
    for src, dst, name in _edges():
        if _layer(src) not in FRONT_ENDS and src != "stormwater_plugin.cli":
            continue
        if (dst == "stormwater_plugin.services.review" and name == "check") or name == "run_check" \
                or (dst == "stormwater_plugin.services" and name == "review" and _calls_review_check(src)):
            found.add(f"{src} imports {dst}.{name}")
    return found


def _calls_review_check(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")
    return any(isinstance(n, ast.Attribute) and n.attr == "check" and isinstance(n.value, ast.Name) and n.value.id == "review"
               for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def test_no_front_end_calls_the_review_or_the_engine_past_the_one_use_case():
    assert _front_end_check_imports() == set()


#: The envelope's own builders: a front end reaches them only through ``services.site_source.site_envelope`` (the site read as
#: the check reads it, the options stated), never reading and building itself.
ENVELOPE_BUILDERS = frozenset({"find_envelope", "build_envelope"})


def _front_end_envelope_imports() -> set[str]:
    found = set()
    for src, dst, name in _edges():
        if (_layer(src) in FRONT_ENDS or src == "stormwater_plugin.cli") and (name in ENVELOPE_BUILDERS or dst == "stormwater_plugin.services.siting"
                                                                             and name is None):
            found.add(f"{src} imports {dst}.{name}")
    return found


def test_no_front_end_builds_the_envelope_past_the_one_use_case():
    """Issue 38: the command line, the dock's task and Processing build the siting envelope through ``site_envelope`` only."""
    assert _front_end_envelope_imports() == set()


def test_no_site_source_carries_the_project_class():
    """Issue 38: the class is the use case's option (``ReviewOptions.project_class``), stated alike by every front end, not a source's field.

    A site source is a class with a ``read(self, pack)`` method; none has a ``class_override`` (or ``project_class``) field.
    """
    carrying = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            reads_pack = any(isinstance(f, ast.FunctionDef) and f.name == "read" and [a.arg for a in f.args.args[1:2]] == ["pack"] for f in node.body)
            fields = {f.target.id for f in node.body if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)}
            if reads_pack and fields & {"class_override", "project_class"}:
                carrying.append(f"{_module(path)}.{node.name}")
    assert carrying == []


def test_no_second_review_site_and_no_inputs_patch():
    """Issue 38: one ``review_site`` (services.site_source) and no patch of the engine's inputs beside the use case's options."""
    defined = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in ("review_site", "InputsPatch"):
                defined.setdefault(node.name, []).append(_module(path))
    assert defined == {"review_site": ["stormwater_plugin.services.site_source"]}


def test_no_private_name_is_imported_from_another_package():
    bad = {
        (src, dst, name)
        for src, dst, name in _edges()
        if name and name.startswith("_") and not name.startswith("__") and dst.rsplit(".", 1)[0] != src.rsplit(".", 1)[0]
    }
    assert bad - KNOWN_PRIVATE == set()


def test_the_module_graph_has_no_cycles():
    mods = {_module(p) for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for src, dst, name in _edges():
        target = f"{dst}.{name}" if name and f"{dst}.{name}" in mods else dst
        if target in mods and target != src:
            graph[src].add(target)
    # Tarjan's strongly connected components (iterative depth-first search).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[frozenset[str]] = set()
    for root in sorted(mods):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    cycles.add(frozenset(comp))
    assert cycles - KNOWN_CYCLES == set()


def test_the_service_layer_loads_no_qgis_qt_or_file_io_library():
    code = (
        "import sys; import stormwater_plugin.services.reach, stormwater_plugin.services.slope, stormwater_plugin.services.working_crs,"
        " stormwater_plugin.services.dem_window, stormwater_plugin.services.presentation, stormwater_plugin.services.siting,"
        " stormwater_plugin.services.grid_scale, stormwater_plugin.services.moves, stormwater_plugin.services.dem_read,"
        " stormwater_plugin.services.site_crs, stormwater_plugin.services.context_read;"
        f"bad=[m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=CORE.parents[1])
    assert out.stdout.strip() == ""


def test_every_project_exception_derives_from_the_one_root_stormwater_error():
    """Issue 23: one error hierarchy with a root the front ends catch (only the cancel signal stands apart)."""
    import builtins

    builtin_exceptions = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    exempt = {"CheckCancelled"}  # control flow, not an error (core/errors.py)
    classes: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    for path in CORE.parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases]
                classes[node.name] = bases
                where[node.name] = str(path.relative_to(CORE.parent))

    def rooted(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name == "StormwaterError":
            return True
        return name not in seen and any(rooted(b, seen | {name}) for b in classes.get(name, ()))

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name in builtin_exceptions:
            return True
        return name not in seen and any(is_exception(b, seen | {name}) for b in classes.get(name, ()))

    stray = sorted(f"{where[n]}: {n}" for n in classes
                   if n not in exempt and n != "StormwaterError" and is_exception(n) and not rooted(n) and not n.endswith("Warning"))
    assert not stray, f"exceptions outside the StormwaterError hierarchy: {stray}"


#: Strings that still carry a pack's figure next to its unit (labels and help texts), each to be read from its pack;
#: the guard below keeps the list from growing (issue 23: no regulatory number outside the packs).
KNOWN_PACK_NUMBERS_IN_CODE = {
    ("report/maps.py", "100 ft"), ("report/pdf.py", "100 ft"),
}


def _pack_figures() -> set[float]:
    import json

    found: set[float] = set()

    def walk(o: object, key: str = "") -> None:
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, k)
        elif isinstance(o, list):
            for v in o:
                walk(v, key)
        elif isinstance(o, (int, float)) and not isinstance(o, bool) and key.endswith(("_ft", "_pct")):
            found.add(float(o))

    for p in (CORE / "packs").glob("*.json"):
        if p.name != "schema.json":
            walk(json.loads(p.read_text(encoding="utf-8")))
    return found - {0.0, 1.0}


def test_no_string_in_the_code_states_a_pack_figure_with_its_unit_beyond_the_known_list():
    """A '15%', '100 ft'… in a string literal (docstrings aside) is a regulatory number outside the packs."""
    import re

    figures = _pack_figures()
    unit = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:ft\b|feet\b|%)")
    found = set()
    for path in CORE.parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                for m in unit.finditer(n.value):
                    if float(m.group(1)) in figures:
                        found.add((str(path.relative_to(CORE.parent)), m.group(0)))
    assert found <= KNOWN_PACK_NUMBERS_IN_CODE, sorted(found - KNOWN_PACK_NUMBERS_IN_CODE)


def test_the_kind_registry_declares_every_kind_once_and_the_tables_read_it():
    """Issue 23: each rule kind's facts live in core/kinds.py; the engine's handlers, reach, envelope and coverage agree with it."""
    import json

    from stormwater_plugin.core import coverage, engine
    from stormwater_plugin.core.kinds import ENGINE_KINDS, KINDS
    from stormwater_plugin.services import reach

    schema = json.loads((CORE / "packs" / "schema.json").read_text(encoding="utf-8"))

    def enums(o: object) -> list[list[str]]:
        out: list[list[str]] = []
        if isinstance(o, dict):
            if "enum" in o and "device_setback" in (o.get("enum") or []):
                out.append(list(o["enum"]))
            for v in o.values():
                out += enums(v)
        elif isinstance(o, list):
            for v in o:
                out += enums(v)
        return out

    kinds_enum = enums(schema)
    rule_kinds = {k for k, s in KINDS.items() if s.run_by != "classification"}  # the classification clauses are no rule kind
    assert kinds_enum and all(set(e) == rule_kinds for e in kinds_enum)
    assert set(engine.KIND_HANDLERS) == ENGINE_KINDS
    assert reach.REACH_PARAMS == {k: s.reach for k, s in KINDS.items() if s.reach is not None}
    assert set(reach.ENVELOPE_KINDS) == {k for k, s in KINDS.items() if s.envelope}
    assert coverage.LAW_PARAMS == {k: dict(s.law) for k, s in KINDS.items()}


def test_the_engine_takes_each_handler_from_the_registry_and_every_named_handler_exists():
    """Issue 23: core/kinds.py names each kind's handler once; the engine imports exactly those, and the envelope roles are known."""
    import importlib

    from stormwater_plugin.core import engine
    from stormwater_plugin.core.kinds import ENVELOPE_ROLES, KINDS, envelope_role, handler_path

    for kind, spec in KINDS.items():
        where = handler_path(kind)
        if spec.run_by in ("engine", "notification"):
            assert where is not None, kind
            fn = getattr(importlib.import_module(where[0]), where[1])
            assert callable(fn) and fn.__name__ == where[1]
            if spec.run_by == "engine":
                assert engine.KIND_HANDLERS[kind] is fn
        else:
            assert where is None, kind
        assert envelope_role(kind) in (None, *ENVELOPE_ROLES)
    assert {envelope_role(k) for k in KINDS} - {None} == set(ENVELOPE_ROLES)
    assert envelope_role("no_such_kind") is None
    # the engine source names no check function: the registry is the one list
    source = (CORE / "engine.py").read_text(encoding="utf-8")
    assert not any(spec.handler.split(":")[1] in source for spec in KINDS.values() if spec.handler)


#: In-function imports of the project's own modules that may stay uncommented for now, as (file, imported module):
#: the report export code another change is rewriting (issue 24). A new uncommented one fails the test.
KNOWN_UNCOMMENTED_LAZY: frozenset[tuple[str, str]] = frozenset()


def _comment_lines(source: str) -> set[int]:
    """Line numbers holding a ``#`` comment (tokenized, so a ``#`` inside a string does not count)."""
    import io
    import tokenize

    return {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}


def uncommented_lazy_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each in-function relative import in ``path`` that gives no reason for being lazy.

    An import is commented when its first or last line, or the line just above it, holds a comment; an import
    right after another in-function relative import (a block) shares that import's comment.
    """
    source = path.read_text(encoding="utf-8")
    comments = _comment_lines(source)
    lazy: list[ast.ImportFrom] = []
    for func in ast.walk(ast.parse(source)):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lazy.extend(n for n in ast.walk(func) if isinstance(n, ast.ImportFrom) and n.level > 0)
    lazy = sorted({n.lineno: n for n in lazy}.values(), key=lambda n: n.lineno)  # nested functions are walked twice
    covered: dict[int, bool] = {}  # end line of each lazy import -> whether it is commented
    bad = []
    for node in lazy:
        end = node.end_lineno or node.lineno
        ok = bool({node.lineno, end, node.lineno - 1} & comments) or covered.get(node.lineno - 1, False)
        covered[end] = ok
        if not ok:
            bad.append((node.lineno, "." * (node.level - 1) + (node.module or "")))
    return bad


def test_every_lazy_import_of_the_project_says_why():
    """Issue 23: an import of the project's own modules inside a function is commented with its reason (or moved up)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE))
        for line, module in uncommented_lazy_imports(path):
            if (rel, module.lstrip(".")) not in KNOWN_UNCOMMENTED_LAZY:
                bad.append(f"{rel}:{line} from {module} import ... (no comment saying why it is lazy)")
    assert bad == []


def test_the_lazy_import_rule_reads_blocks_and_comments(tmp_path):
    """The checker above: a comment on, or just above, an import covers it and the block right after it."""
    f = tmp_path / "m.py"
    f.write_text(
        "def a():\n    # lazy: heavy\n    from .x import y\n    from .z import w\n\n    from .q import r\n"
        "def b():\n    from .s import t  # lazy: optional\n    import os\n    from .u import v\n"
        "def c():\n    s = '# not a comment'\n    from .p import o\n",
        encoding="utf-8",
    )
    assert uncommented_lazy_imports(f) == [(6, "q"), (10, "u"), (13, "p")]


#: Modules over the size limit, each to be split along its jobs (issue 23); a new one fails the test.
KNOWN_LONG: frozenset[str] = frozenset()
MAX_MODULE_LINES = 700


def test_no_module_is_over_700_lines():
    """Issue 23: no module of the package over 700 lines."""
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert sorted(set(long) - KNOWN_LONG) == [], long


#: The adapters' site-reading modules (issue 38): they fetch (files with GDAL, fiona and rasterio; QGIS layers), and
#: services.reading_policy decides what is read and how it is judged. Not among them, as they read no site:
#: headless/template.py (``new-site`` writes an empty package) and qgis_bridge/compat.py (QGIS API version guards for
#: field types, rectangles and legends, used by the dock's layers and layouts).
ADAPTER_READING_FILES: tuple[str, ...] = (
    "headless/reader.py", "headless/vectors.py", "headless/dem.py", "headless/crs.py", "headless/sources.py", "headless/context_reader.py",
    "headless/dem_source.py", "headless/site_source.py", "headless/template_reading.py", "headless/layer_budget.py",
    "headless/frames.py", "qgis_bridge/snapshot.py", "qgis_bridge/vectors.py", "qgis_bridge/dem.py", "qgis_bridge/crs.py",
    "qgis_bridge/layer_place.py", "qgis_bridge/layer_parts.py",
)
#: Their lines together: what they hold today, lowered as reading moves into services (the one read, services.site_read; the aim is under 2,000); the
#: snapshot's two lines of ``SnapshotPlan.readers`` and its ``describe_source`` (the live re-check's partial read, issue 39) included; and
#: qgis_bridge.crs's points transformed in one QGIS call (issue 39: the live read's CRS fit of an edited layer, 20 lines); and
#: qgis_bridge.dem's DEM source taking the band its plan described (issue 39: the live read's metadata not read again, 2 lines); and
#: the plan's DEM band described by the layer's own provider, its clone opened only to read blocks (issue 39: the main thread's plan, 5 lines);
#: and qgis_bridge.crs's CRS texts, WKT2 as QGIS keeps it and WKT1 kept by it (issue 39: no PROJ object built in the live task, 23 lines);
#: and a CRS's description kept by its WKT2, the DEM band's cell size found once and the read's feet per unit once per CRS (issue 39,
#: session 15: the live read describes the DEM's CRS at every edit, 13 lines).
ADAPTER_READING_LINES = 2707


def test_the_adapters_reading_code_stays_within_its_line_budget():
    """Issue 38: what moves into services.reading_policy does not grow back in the adapters."""
    sizes = {name: len((PACKAGE / name).read_text(encoding="utf-8").splitlines()) for name in ADAPTER_READING_FILES}
    assert sum(sizes.values()) <= ADAPTER_READING_LINES, sizes


# --------------------------------------------------------------------------- Processing: thin adapters (issue 23)

PROCESSING = PACKAGE / "processing"
#: Longest class body of a Processing algorithm, lines: identity from one declaration, parameters from shared blocks, the
#: run a reading, one use case and writing (processing/base.py, params.py, site_reader.py, outputs.py).
MAX_ALGORITHM_LINES = 60
#: What Processing may import of the project: the service layer, the core's vocabulary (model, the role contract) and error
#: root, the QGIS bridge, the report writers, itself and the plugin's QGIS-free helpers (its version, resource paths).
PROCESSING_IMPORTS = ("stormwater_plugin.services", "stormwater_plugin.core.model", "stormwater_plugin.core.roles", "stormwater_plugin.core.errors",
                      "stormwater_plugin.qgis_bridge", "stormwater_plugin.report", "stormwater_plugin.processing", "stormwater_plugin.__about__",
                      "stormwater_plugin.resources_path")


def _algorithm_classes(folder: Path = PROCESSING) -> list[tuple[Path, ast.ClassDef]]:
    """Every class of ``folder`` that defines ``initAlgorithm`` (a Processing algorithm), with its file."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.FunctionDef) and b.name == "initAlgorithm" for b in node.body):
                out.append((path, node))
    return out


def algorithm_layout_problems(folder: Path = PROCESSING) -> list[str]:
    """Why the algorithms of ``folder`` break the layout: one algorithm per ``alg_*.py`` file, each class body at most 60 lines."""
    found = _algorithm_classes(folder)
    per_file: dict[str, list[str]] = {}
    for path, cls in found:
        per_file.setdefault(path.name, []).append(cls.name)
    bad = [f"{path.name}: {cls.name} is an algorithm outside an alg_*.py module" for path, cls in found if not path.name.startswith("alg_")]
    bad += [f"{name}: {len(names)} algorithms ({', '.join(names)}); one per file" for name, names in sorted(per_file.items()) if len(names) > 1]
    bad += [f"{p.name}: no algorithm class" for p in sorted(folder.glob("alg_*.py")) if p.name not in per_file]
    for path, cls in found:
        n = (cls.end_lineno or cls.lineno) - cls.lineno + 1
        if n > MAX_ALGORITHM_LINES:
            bad.append(f"{path.name}: {cls.name} is {n} lines (at most {MAX_ALGORITHM_LINES})")
    return bad


def test_each_processing_algorithm_is_a_short_class_in_its_own_alg_module():
    """Issue 23: Processing algorithms only adapt (about 40 lines each over shared blocks), one per alg_*.py file."""
    assert len(_algorithm_classes()) >= 6
    assert algorithm_layout_problems() == []


def test_the_algorithm_layout_rule_finds_long_crowded_and_misplaced_algorithms(tmp_path):
    body = "\n".join(f"    X{i} = {i}" for i in range(60))
    (tmp_path / "alg_long.py").write_text(f"class Long:\n    def initAlgorithm(self):\n        pass\n{body}\n", encoding="utf-8")
    (tmp_path / "alg_two.py").write_text("class A:\n    def initAlgorithm(self): ...\nclass B:\n    def initAlgorithm(self): ...\n", encoding="utf-8")
    (tmp_path / "helpers.py").write_text("class C:\n    def initAlgorithm(self): ...\n", encoding="utf-8")
    (tmp_path / "alg_empty.py").write_text("X = 1\n", encoding="utf-8")
    assert algorithm_layout_problems(tmp_path) == [
        "helpers.py: C is an algorithm outside an alg_*.py module",
        "alg_two.py: 2 algorithms (A, B); one per file",
        "alg_empty.py: no algorithm class",
        "alg_long.py: Long is 63 lines (at most 60)",
    ]


def test_the_provider_registers_every_algorithm_module():
    """Each alg_*.py is imported by the provider (an algorithm file it forgot would never reach the toolbox)."""
    tree = ast.parse((PROCESSING / "provider.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module}
    assert {p.stem for p in PROCESSING.glob("alg_*.py")} <= imported


def test_processing_imports_of_the_project_only_services_the_core_model_the_bridge_and_the_writers():
    """Issue 23: Processing reaches the project through services, core.model, core.roles, core.errors, qgis_bridge and the report writers."""
    bad = sorted(f"{src} imports {dst}" for src, dst, _ in _edges()
                 if _layer(src) == "processing" and not any(dst == ok or dst.startswith(ok + ".") for ok in PROCESSING_IMPORTS))
    assert bad == []


#: What the dock and the plugin class may import of the project: what Processing may, the dock itself and the Processing
#: provider (the plugin registers it).
GUI_IMPORTS = (*PROCESSING_IMPORTS, "stormwater_plugin.gui", "stormwater_plugin.processing.provider")


def test_gui_imports_of_the_project_only_services_the_core_model_the_bridge_and_the_writers():
    """Issue 23: the dock reaches the project through services, core.model, core.roles, core.errors, qgis_bridge and the report writers."""
    bad = sorted(f"{src} imports {dst}" for src, dst, _ in _edges()
                 if _layer(src) == "gui" and not any(dst == ok or dst.startswith(ok + ".") for ok in GUI_IMPORTS))
    assert bad == []


def test_every_processing_algorithm_defines_its_perform():
    """The base declares ``perform`` and every algorithm defines it (the base has no body to fall back on)."""
    missing = [f"{path.name}: {cls.name}" for path, cls in _algorithm_classes()
               if not any(isinstance(b, ast.FunctionDef) and b.name == "perform" for b in cls.body)]
    assert missing == []


# --------------------------------------------------------------------------- one role contract (issue 38)

ROLE_MODULE = "stormwater_plugin.core.roles"
#: Names ending in ``_ROLES`` that hold no layer roles: what a rule kind is to the siting envelope (core/kinds.py).
NOT_LAYER_ROLES = frozenset({"ENVELOPE_ROLES"})


def _contract() -> tuple[frozenset[str], frozenset[str]]:
    """The role module's public names and the role names of the contract."""
    from stormwater_plugin.core import roles

    return frozenset(roles.__all__), frozenset(roles.ROLES)


def _literal_strings(node: ast.AST) -> list[str]:
    """The string items of a literal tuple, list or set, also wrapped in a call (``frozenset({...})``)."""
    if isinstance(node, ast.Call) and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def role_set_assignments(root: Path, contract: frozenset[str], role_names: frozenset[str], home: str = ROLE_MODULE) -> list[str]:
    """Where a module other than ``home`` states a role set: it assigns a name ending in ``_ROLES`` or one of the role
    module's names (anywhere), or, at module level, a literal collection of two or more role names."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        mod = _module(path) if root == PACKAGE else path.stem
        if mod == home:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            named = [n for n in names if (n.endswith("_ROLES") and n not in NOT_LAYER_ROLES) or n in contract]
            listed = id(node) in top and node.value is not None and sum(s in role_names for s in _literal_strings(node.value)) >= 2
            if named or listed:
                bad.append(f"{mod}:{node.lineno} {', '.join(names) or ast.unparse(targets[0])}")
    return bad


def test_every_role_set_is_stated_once_in_the_role_contract():
    """Issue 38: role names, families, role sets and the names layers go by are assigned in core/roles.py only."""
    contract, role_names = _contract()
    assert role_set_assignments(PACKAGE, contract, role_names) == []


def test_the_role_set_rule_finds_named_and_literal_sets(tmp_path):
    (tmp_path / "a.py").write_text(
        'PLAN_ROLES = ("devices", "parcels")\n_X_ROLES: tuple = ()\nENVELOPE_ROLES = ("setback",)\nWATER = ["streams", "wetlands"]\n'
        'LABELS = {"streams": "Streams", "wetlands": "Wetlands"}\nONE = ("devices",)\n'
        'def f():\n    local = ("devices", "parcels")\n    ROLE_FAMILY = {}\n',
        encoding="utf-8",
    )
    assert role_set_assignments(tmp_path, frozenset({"ROLE_FAMILY"}), frozenset({"devices", "parcels", "streams", "wetlands"})) == [
        "a:1 PLAN_ROLES", "a:2 _X_ROLES", "a:4 WATER", "a:9 ROLE_FAMILY",
    ]


def test_the_role_contract_is_imported_from_the_role_module_itself():
    """Issue 38: no module passes a role set on (``from core.model import ROLES`` would hide where the contract lives)."""
    contract, _ = _contract()
    bad = sorted(f"{src} imports {name} from {dst}" for src, dst, name in _edges() if name in contract and dst != ROLE_MODULE)
    assert bad == []


def test_the_role_contract_is_plain_data():
    """Issue 38: core/roles.py imports nothing, so every layer (even the lightest service) may read it."""
    tree = ast.parse(PACKAGE.joinpath("core", "roles.py").read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
    assert imports == []


def test_site_inputs_live_with_the_model_not_in_the_engine():
    """Issue 38: ``SiteInputs``, the type every adapter builds, is defined in core/model.py and imported from there."""
    defined = sorted(_module(p) for p in PACKAGE.rglob("*.py")
                     for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef) and n.name == "SiteInputs")
    assert defined == ["stormwater_plugin.core.model"]
    assert sorted({f"{src} imports it from {dst}" for src, dst, name in _edges() if name == "SiteInputs" and dst != "stormwater_plugin.core.model"}) == []
