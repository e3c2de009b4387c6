"""The bot's health check: ``python -m bot.process.health [--env-file PATH]`` exits 0 while the
bot's heartbeat file is fresh and names no failing work, else 1, printing what is wrong (see
:mod:`bot.supervision.health`; ``docker inspect`` shows what the Docker image's check printed).

The heartbeat file is the one the bot writes: ``KARAK_HEARTBEAT`` from the environment, else
from the ``.env`` file the bot reads (the one ``--env-file`` names, as for ``python -m bot``);
unset or empty, the Docker image's default file :data:`~bot.supervision.health.DEFAULT_HEARTBEAT`
(an ``.env`` line ``KARAK_HEARTBEAT=`` must not send the check to look at the current folder).
A ``.env`` file the bot could not read either is a problem the check prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from bot.process.settings import ConfigProblem, env_file_named, setting
from bot.supervision.health import DEFAULT_HEARTBEAT, problems
from i18n import msg, translate


def heartbeat_path(environ: Mapping[str, str] | None = None,
                   env_file: Path | None = Path(".env")) -> Path:
    """The heartbeat file the bot writes (``environ``, when given, instead of the
    environment): ``KARAK_HEARTBEAT``, from the environment or else ``env_file``, or the
    image's default when unset or empty."""
    value = setting("KARAK_HEARTBEAT", env_file, environ)
    return Path(value) if value else DEFAULT_HEARTBEAT


def main(argv: list[str] | None = None) -> int:
    """Exit status 0 (healthy) or 1, printing what is wrong."""
    parser = argparse.ArgumentParser(prog="python -m bot.process.health",
                                     description=translate(msg("bot.cli.health")))
    parser.add_argument("--env-file", type=Path, default=None,
                        help=translate(msg("bot.cli.env_file")))
    args = parser.parse_args(argv)
    try:
        found = problems(heartbeat_path(env_file=env_file_named(args.env_file)))
    except ConfigProblem as exc:
        found = [str(exc)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
