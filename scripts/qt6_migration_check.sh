#!/usr/bin/env bash
# Runs QGIS's PyQt5-to-PyQt6 migration script over a copy of the plugin and fails when it would change a line or
# prints a WARNING (`make qt6-check`; not part of `make test`, whose tests/core/test_qt6_readiness.py and
# tests/qgis/test_qt6_enums.py check the same things without it).
#
#   scripts/qt6_migration_check.sh
#
# The script comes from PyPI's qgis-pyqt5to6 (a packaging of QGIS's scripts/pyqt5_to_pyqt6/pyqt5_to_pyqt6.py;
# its one release, 0.0.0.dev0, may lag QGIS's current copy). It needs Python 3.12 or later and PyQt6 with
# QScintilla (wheels), installed into .matrix/pyqt5to6. Without a Qt6 QGIS it notes that QGIS classes are not
# available for introspection (expected: QGIS's own enums are checked by tests/qgis/test_qt6_enums.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
py=""
for cand in python3 python3.14 python3.13 python3.12; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    py="$(command -v "$cand")"; break
  fi
done
if [[ -z "$py" ]]; then
  echo "qt6-check: needs Python 3.12 or later (this system's python3 is $(python3 -V 2>&1)); skipped" >&2
  exit 2
fi
venv="$root/.matrix/pyqt5to6"
if [[ ! -x "$venv/bin/pyqt5to6" ]]; then
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q "qgis-pyqt5to6==0.0.0.dev0" "PyQt6>=6.5,<6.12" PyQt6-QScintilla
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/stormwater_plugin" "$work/"
find "$work" -name __pycache__ -prune -exec rm -rf {} +
cp -r "$work/stormwater_plugin" "$work/before"
set +e
QT_QPA_PLATFORM=offscreen "$venv/bin/pyqt5to6" "$work/stormwater_plugin" > "$work/out.txt" 2>&1
rc=$?
set -e
sed "s#$work/##g" "$work/out.txt"
changes="$(diff -ru "$work/before" "$work/stormwater_plugin" || true)"
warnings="$(grep -c "WARNING" "$work/out.txt" || true)"
if [[ -n "$changes" || "$warnings" != "0" || $rc -ne 0 ]]; then
  echo "$changes" | sed "s#$work/##g"
  echo "qt6-check: the migration script would change the plugin or warns (exit $rc, $warnings WARNING lines)"
  exit 1
fi
echo "qt6-check: the migration script proposes no change and prints no WARNING"
