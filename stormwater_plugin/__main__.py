"""``python -m stormwater_plugin check ...``"""

from .cli import main

raise SystemExit(main())
