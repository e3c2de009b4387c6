"""``python -m bot`` runs the bot (see :mod:`bot.process.app`)."""

import sys

from bot.process.app import main

sys.exit(main())
