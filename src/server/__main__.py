"""``python -m pyjdwp_server``: the same as the ``pyjdwp-mcp`` console script."""

import sys

from .cli import main

sys.exit(main())
