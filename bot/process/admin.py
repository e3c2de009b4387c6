"""``python -m bot.admin``: the administrator's commands, run on the bot's database (the same
``KARAK_DB`` setting as the bot, from the environment or ``.env``).

``ratings --recompute [--guild ID]`` rebuilds every rating (of one server) from the stored
results of finished matches, in the order they ended.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from bot.game.standings import Standings
from bot.process.settings import ConfigProblem, check_db_path, read_env_file
from bot.storage.sqlite import Store
from i18n import msg, translate


def database(env_file: Path | None) -> Path:
    """The bot's database file: ``KARAK_DB`` from the environment, else from ``env_file``,
    else the bot's default."""
    value = os.environ.get("KARAK_DB", "").strip()
    if not value and env_file is not None:
        value = read_env_file(env_file).get("KARAK_DB", "").strip()
    path = Path(value or "karak.sqlite3")
    check_db_path(path)
    return path


async def recompute(path: Path, guild: int | None) -> int:
    """Rebuild the ratings in the database at ``path``; the number of matches read."""
    store = await Store.open(path)
    try:
        return await Standings(store).recompute(guild)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    """Run one admin command; returns the process exit status."""
    parser = argparse.ArgumentParser(prog="python -m bot.admin",
                                     description=translate(msg("ratings.admin.description")))
    parser.add_argument("--env-file", type=Path, default=Path(".env"),
                        help=translate(msg("bot.cli.env_file")))
    commands = parser.add_subparsers(dest="command", required=True)
    ratings = commands.add_parser("ratings", help=translate(msg("ratings.admin.ratings")))
    ratings.add_argument("--recompute", action="store_true", required=True,
                         help=translate(msg("ratings.admin.recompute")))
    ratings.add_argument("--guild", type=int, default=None,
                         help=translate(msg("ratings.admin.guild")))
    args = parser.parse_args(argv)
    try:
        path = database(args.env_file)
    except ConfigProblem as exc:
        print(str(exc), file=sys.stderr)
        return 2
    count = asyncio.run(recompute(path, args.guild))
    print(translate(msg("ratings.admin.done", count=count, db=str(path))))
    return 0


__all__ = ["database", "main", "recompute"]
