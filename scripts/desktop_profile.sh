# Sourced by the scripts that run the plugin in a real QGIS (desktop_sitting.sh, desktop_live_edit.sh,
# qgis_shapely_matrix.sh), from the repository's root with $root set to it:
#
#   throwaway_profile NAME    # a work folder .matrix/tmp/NAME.XXXXXX (removed on exit) holding a QGIS profile
#                             # (HOME) with the plugin linked in and enabled; sets $work and exports HOME
#   shapely_site              # prints a folder holding only the project venv's shapely and filelock, to put on
#                             # QGIS's PYTHONPATH (QGIS's own Python needs shapely 2) without the rest of the venv
#                             # shadowing QGIS's packages
#
# The work folder is not under /tmp: QGIS calls a layer whose file lies in its temporary folder "temporary" and asks
# about it on close, a prompt no reviewer would see.

throwaway_profile() {
  mkdir -p "$root/.matrix/tmp"
  work="$(mktemp -d "$root/.matrix/tmp/$1.XXXXXX")"
  # shellcheck disable=SC2064  # the folder is known now
  trap "rm -rf '$work'" EXIT
  export HOME="$work/home"
  local profile="$HOME/.local/share/QGIS/QGIS3/profiles/default"
  local plugin="$profile/python/plugins/stormwater_plugin"
  mkdir -p "$plugin" "$profile/QGIS"
  for f in "$root"/stormwater_plugin/*; do ln -s "$f" "$plugin/"; done
  ln -s "$root/metadata.txt" "$plugin/metadata.txt"
  printf '[PythonPlugins]\nstormwater_plugin=true\n' > "$profile/QGIS/QGIS3.ini"
}

shapely_site() {
  local python="$root/.venv/bin/python"
  [[ -x "$python" ]] || python=/usr/bin/python3
  local venv_site
  venv_site="$("$python" -c 'import shapely, os; print(os.path.dirname(os.path.dirname(shapely.__file__)))')"
  local site="$work/site"
  mkdir -p "$site"
  for f in "$venv_site"/shapely "$venv_site"/shapely-*.dist-info "$venv_site"/shapely.libs "$venv_site"/filelock "$venv_site"/filelock-*.dist-info; do
    [[ -e "$f" ]] && ln -s "$f" "$site/"
  done
  echo "$site"
}
