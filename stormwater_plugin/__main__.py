"""``python -m stormwater_plugin check ...``"""

try:  # an interrupt while the command line loads is one line, never a traceback; cli itself imports no library
    from .cli import main
except KeyboardInterrupt:
    import sys

    sys.stderr.write("stormwater-check: interrupted\n")
    raise SystemExit(2) from None

raise SystemExit(main())
