"""``python -m bot`` runs the bot (see :mod:`bot.main`)."""

import sys

from bot.main import main

sys.exit(main())
