"""Run a program that ends with the process that started it: ``python tied.py PARENT PROGRAM
[ARGS...]`` asks Linux to send it SIGTERM when its parent ends (``PR_SET_PDEATHSIG``, kept
across ``exec``), then becomes ``PROGRAM`` (same process, same id).

:class:`loopback.botproc.BotProcess` starts the bot through it, so a test or benchmark killed
outright (SIGKILL, which nothing can clean up after) still leaves no bot running: the bot gets
SIGTERM and stops as ``docker stop`` would stop it. It is run as a file, not a module, so a bot
of another version of the project (``--against``) starts through it too. Elsewhere than on
Linux it only runs the program.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

#: prctl's option that names the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> int:
    """Tie this process to ``argv[0]`` (the parent's id), then exec ``argv[1:]``."""
    parent, program = int(argv[0]), argv[1:]
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            print(f"tied.py: prctl failed ({os.strerror(ctypes.get_errno())})", file=sys.stderr)
    if os.getppid() != parent:  # the parent ended before the tie held: nothing to run for
        return 0
    os.execv(program[0], program)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
