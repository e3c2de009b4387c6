"""``python -m playground``: run the browser playground even when a ``DISCORD_TOKEN`` is set
(``scripts/dev.py run`` runs it only without one); see :mod:`playground.app`."""

import sys

from playground.app import main

sys.exit(main())
