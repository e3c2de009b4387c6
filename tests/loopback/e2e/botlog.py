"""The bot process's log read for errors: ERROR and CRITICAL lines and tracebacks, minus those
a test expects."""
from __future__ import annotations

import re

from loopback.botproc import BotProcess

#: The traceback a worker process of multiprocessing (the hard level's thinking) prints when its
#: bot was SIGKILLed while the worker was being spawned: the worker finds its parent gone before
#: it could read what to run. Printed by the orphan into the shared log, not by the bot; expected
#: only where the bot is killed.
ORPHANED_WORKER = re.compile(
    r"^Traceback \(most recent call last\):\n(?:  .*\n)*?.*multiprocessing/spawn\.py.*\n"
    r"(?:  .*\n)*EOFError: Ran out of input$", re.MULTILINE)

#: A background step's write refused by a full disk, with its traceback (up to the next line
#: of the log, or the next start). While the disk is full the log cannot be written either, so
#: such a line only shows when the write failed as the disk was being freed: expected only
#: where a test fills the disk while the AI seats play.
FULL_DISK_WRITE = re.compile(
    r"^\S+ \S+ ERROR karak\.bot: \S+ failed \(CannotSave: .*\); retrying until it works\n"
    r"(?:(?!\d{4}-\d\d-\d\d |=====).*\n)*", re.MULTILINE)


def bot_errors(bot: BotProcess, allowed: tuple[str, ...] = (), killed: bool = False,
               full_disk: bool = False) -> list[str]:
    """ERROR / CRITICAL lines and tracebacks the bot printed (minus expected ones). ``killed``:
    the bot was SIGKILLed, so tracebacks of its orphaned workers are expected; ``full_disk``:
    the disk was full for a while, so a background write it refused may be logged."""
    text = bot.log_text()
    if killed:
        text = ORPHANED_WORKER.sub("(a worker found its killed bot gone)", text)
    if full_disk:
        text = FULL_DISK_WRITE.sub("(a write the full disk refused)\n", text)
    bad = [line for line in text.splitlines()
           if re.search(r" (ERROR|CRITICAL) |^Traceback", line)
           and not any(a in line for a in allowed)]
    return bad
