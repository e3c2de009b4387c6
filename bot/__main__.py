"""``python -m bot`` runs the bot (see :mod:`bot.app`)."""

import sys

from bot.app import main

sys.exit(main())
