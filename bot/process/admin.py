"""The administrator's commands (``python -m bot.admin <command>``), one argparse subcommand
each: ``migrate-db`` moves a bot's SQLite file into a PostgreSQL database."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.storage.choice import is_database_url, shown
from i18n import msg, translate


def parser() -> argparse.ArgumentParser:
    """The command line: one subparser per command."""
    top = argparse.ArgumentParser(prog="python -m bot.admin",
                                  description=translate(msg("admin.description")))
    commands = top.add_subparsers(dest="command", required=True)
    move = commands.add_parser("migrate-db", help=translate(msg("admin.migrate.help")),
                               description=translate(msg("admin.migrate.help")))
    move.add_argument("--from", dest="source", type=Path, required=True,
                      help=translate(msg("admin.migrate.source")))
    move.add_argument("--to", dest="target", required=True,
                      help=translate(msg("admin.migrate.target")))
    return top


def migrate_db(source: Path, target: str) -> int:
    """Copy the SQLite file ``source`` into the PostgreSQL database ``target``; prints what was
    copied (or why nothing was) and returns the exit status."""
    from bot.storage.postgres_move import CannotMove, copy_sqlite_to_postgres
    from bot.storage.records import StorageError

    if not is_database_url(target):
        print(translate(msg("admin.migrate.not_url")), file=sys.stderr)
        return 2
    try:
        copied = asyncio.run(copy_sqlite_to_postgres(source, target))
    except (CannotMove, StorageError, OSError) as exc:
        print(translate(msg("admin.migrate.failed", error=str(exc))), file=sys.stderr)
        return 1
    for table, count in copied.items():
        print(translate(msg("admin.migrate.copied", table=table, count=count)))
    print(translate(msg("admin.migrate.done", target=shown(target))))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one administrator's command; returns the process exit status."""
    args = parser().parse_args(argv)
    if args.command == "migrate-db":
        return migrate_db(args.source, args.target)
    return 2  # pragma: no cover - argparse refuses other commands


__all__ = ["main", "migrate_db", "parser"]
