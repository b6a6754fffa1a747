# Stormwater site-plan review: set-up, demo, tests, packaging.
# `make demo` and `make test` do all the set-up on a fresh Debian 12 (QGIS 3.22, Python 3.11, numpy 1),
# Debian 13 (QGIS 3.40, Python 3.13, numpy 2) or sid (QGIS 3.44, Python 3.14, numpy 2) machine. numpy stays at the major release Debian's GDAL, QGIS,
# rasterio and matplotlib were built for (read from the system's Python), and pip never compiles numpy.

SHELL := /bin/bash
PY_SYS := /usr/bin/python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
CONSTRAINTS := $(VENV)/constraints.txt
# Every pip install keeps the system's numpy major and never builds numpy from source.
PIP := $(PY) -m pip install --only-binary numpy -c $(CONSTRAINTS)
DEMO := resources/demo
OUT ?= out/demo
export QT_QPA_PLATFORM := offscreen
export XDG_RUNTIME_DIR := /tmp/runtime-$(shell id -u)

.PHONY: help sysdeps venv demo demo-data test test-core test-matrix test-qgis lint typecheck package bench clean qt6-check

help:
	@echo "make demo     - set up, generate the sample site, check it, print the findings"
	@echo "make test     - set up (QGIS from Debian included) and run the whole test suite"
	@echo "make lint     - ruff, mypy, Bandit and detect-secrets"
	@echo "make package  - build the plugin zip in dist/ and check it as plugins.qgis.org does"
	@echo "make qt6-check - QGIS's PyQt5-to-PyQt6 migration script over the plugin (Python 3.12+)"
	@echo "make bench    - run the benchmarks (prints ratios against reference runs)"

## --- set-up -----------------------------------------------------------------

sysdeps:
	@bash scripts/install_system_deps.sh

$(STAMP): pyproject.toml requirements-dev.txt scripts/install_system_deps.sh
	@bash scripts/install_system_deps.sh
	@test -x $(PY) || $(PY_SYS) -m venv --system-site-packages $(VENV)
	@# Constraints from the system: numpy of Debian's major release (1 on Debian 12, 2 on Debian 13), and on
	@# Debian 12's numpy-1 stack affine below 3, as before (its rasterio 1.3 predates affine 3).
	@$(PY_SYS) -c 'import numpy; m = int(numpy.__version__.split(".")[0]); print(f"numpy>={m},<{m + 1}"); m == 1 and print("affine<3")' \
	  > $(CONSTRAINTS) && echo "pip constraints: $$(tr '\n' ' ' < $(CONSTRAINTS))"
	$(PY) -m pip install -q --upgrade "pip>=23"
	@# shapely 2 on Debian's GEOS, so it shares one GEOS with QGIS: Debian's own where it is 2.x (Debian 13, sid;
	@# scripts/install_system_deps.sh installs it), else (Debian 12: 1.8) 2.0 built from source against that GEOS.
	@# geopandas likewise: Debian's where it is 0.14 or later, else 0.14 from pip.
	@# (shapely 2 is told by its API: sid's python3-shapely 2.2.0 calls itself "0+unknown")
	@if $(PY_SYS) -c 'import shapely, sys; sys.exit(not hasattr(shapely, "from_wkb"))' 2>/dev/null; then \
	  echo "shapely $$($(PY_SYS) -c 'import shapely; print(shapely.__version__, "GEOS", shapely.geos_version_string)') from Debian"; \
	else echo '$(PIP) -q --no-binary shapely "shapely>=2,<2.1"'; $(PIP) -q --no-binary shapely "shapely>=2,<2.1"; fi
	@if $(PY_SYS) -c 'import geopandas, sys; v = tuple(int(x) for x in geopandas.__version__.split(".")[:2]); sys.exit(v < (0, 14))' 2>/dev/null; then \
	  echo "geopandas $$($(PY_SYS) -c 'import geopandas; print(geopandas.__version__)') from Debian"; \
	else echo '$(PIP) -q "geopandas>=0.14,<0.15"'; $(PIP) -q "geopandas>=0.14,<0.15"; fi
	$(PIP) -q -r requirements-dev.txt
	@# setuptools (the build backend) comes from Debian's python3-setuptools through --system-site-packages.
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	@mkdir -p $(XDG_RUNTIME_DIR) && chmod 700 $(XDG_RUNTIME_DIR)
	@touch $(STAMP)

venv: $(STAMP)

## --- demo -------------------------------------------------------------------

demo-data: $(STAMP)
	$(PY) scripts/make_demo_site.py --out $(DEMO)

demo: demo-data
	@echo
	@$(VENV)/bin/stormwater-check $(DEMO)/site.gpkg --dem $(DEMO)/dem.tif --jurisdiction lake-george --out $(OUT) \
	  --report --reviewer "Demo reviewer" --reference DEMO-2026-001; \
	  code=$$?; if [ $$code -gt 1 ]; then exit $$code; fi
	@echo
	@echo "Read $(OUT)/report.pdf (or report.html), $(OUT)/notification.csv and $(OUT)/labels.pdf;"
	@echo "open $(OUT)/findings.gpkg in QGIS beside $(DEMO)/site.gpkg, or read $(OUT)/findings.json."
	@echo "Other jurisdictions: $(VENV)/bin/stormwater-check $(DEMO)/site.gpkg --dem $(DEMO)/dem.tif --jurisdiction lgpc --out out/lgpc"

## --- tests ------------------------------------------------------------------

# The QGIS-free tests in one process, each tests/qgis file in a QGIS process of its own (scripts/run_tests.py says why).
test: $(STAMP)
	$(PY) scripts/run_tests.py

# The in-QGIS engine with shapely 2.0, 2.1 and 2.2 (QGIS's numpy kept), and the core under numpy 2.
test-matrix: $(STAMP)
	bash scripts/engine_matrix.sh all
	@# the plugin inside real QGIS processes (qgis_process and the desktop under Xvfb) with each pip shapely
	bash scripts/qgis_shapely_matrix.sh

test-core: $(STAMP)
	$(PY) -m pytest -q -p no:qgis tests/core tests/headless

# QGIS's PyQt5-to-PyQt6 migration script over the plugin (Python 3.12+: Debian 13, sid): no change, no WARNING.
qt6-check:
	bash scripts/qt6_migration_check.sh

lint: $(STAMP)
	$(VENV)/bin/ruff check stormwater_plugin tests scripts benchmarks
	$(VENV)/bin/mypy
	@# the scans plugins.qgis.org runs on an upload: Bandit and detect-secrets, reviewed findings in their baselines
	$(PY) scripts/security_scan.py

typecheck: lint

## --- packaging and benchmarks ------------------------------------------------

package: $(STAMP)
	$(PY) scripts/package_plugin.py

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit $$?; done

clean:
	rm -rf $(VENV) .matrix out dist build *.egg-info
