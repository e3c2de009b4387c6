"""``python -m bot.admin`` runs an administrator's command (see :mod:`bot.process.admin`)."""

import sys

from bot.process.admin import main

if __name__ == "__main__":
    sys.exit(main())
