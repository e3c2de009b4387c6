"""``python -m bot.admin``: the administrator's commands, one subcommand each (see
:mod:`bot.process.admin`)."""

import sys

from bot.process.admin import main

if __name__ == "__main__":
    sys.exit(main())
