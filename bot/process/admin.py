"""``python -m bot.admin``: the administrator's commands, one argparse subcommand each, run on
the bot's database (the same ``KARAK_DB`` setting as the bot, from the environment or ``.env``).

``ratings --recompute [--guild ID]`` rebuilds every rating (of one server) from the stored
results of finished matches, in the order they ended (refused, one line naming the tables and
exit status 1, when one of those results is damaged: nothing is changed). ``migrate-db --from
FILE --to URL`` moves a bot's SQLite file into an empty PostgreSQL database once no bot runs
on the file. ``backup --to FILE`` copies the bot's SQLite database while the bot runs;
``restore --from FILE`` puts a backup in its place while no bot uses it, keeping the database
it replaces (see :mod:`bot.storage.sqlite_backup`). ``forget --user ID`` deletes what the bot
keeps about one person, as ``/goblin forget-me`` does (:func:`forget`).

``ratings`` and ``forget`` open the database as the bot does (migrating it), but never make
one: a ``KARAK_DB`` that names no file, or no database of this bot (another program's file, a
newer bot's database, a PostgreSQL server out of reach), is one line and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import NoReturn

from bot.game.standings import Standings
from bot.process.settings import ConfigProblem, check_db_path, env_file_named, setting
from bot.storage.choice import is_database_url, open_storage, shown
from bot.storage.core.history import INT_MAX
from bot.storage.interface import Storage
from bot.storage.records import CannotSave, DamagedResults
from i18n import msg, translate


def discord_id(number: int) -> bool:
    """True when ``number`` may be a Discord id (a server's, a person's): positive, and held by
    the database's 64-bit columns."""
    return 0 < number <= INT_MAX


def database(env_file: Path | None) -> str:
    """The bot's database: ``KARAK_DB`` from the environment, else from ``env_file``, else the
    bot's default (a file, checked, or a PostgreSQL URL)."""
    where = setting("KARAK_DB", env_file) or "karak.sqlite3"
    if not is_database_url(where):
        check_db_path(Path(where))
    return where


async def opened(where: str) -> Storage:
    """The bot's database ``where``, opened and migrated as the bot opens it; raises
    :class:`ConfigProblem` with one line when there is no such database (a file is never
    made), or it cannot be opened."""
    if not is_database_url(where):
        from bot.storage.sqlite_backup import foreign

        if not Path(where).is_file():
            raise ConfigProblem(translate(msg("admin.no_database", path=where)))
        if foreign(Path(where)):  # the bot would add its tables to it
            raise ConfigProblem(translate(msg("admin.backup.not_ours", path=where)))
    try:
        return await open_storage(where, patient=True)  # a rebuild reads years at once
    except Exception as exc:
        problem = opening_problem(exc, where)
        if problem is None:
            raise
        raise problem from None


def opening_problem(exc: Exception, where: str) -> ConfigProblem | None:
    """The one line telling why the database ``where`` could not be opened (as the bot says
    it); None when ``exc`` is no such problem."""
    from bot.process.app import database_problem, migration_line
    from bot.storage.records import MigrationFailed, SchemaTooNew
    from bot.storage.sqlite import busy

    if isinstance(exc, SchemaTooNew):
        return ConfigProblem(translate(msg("bot.cli.schema_too_new", found=exc.found,
                                           known=exc.known)))
    if isinstance(exc, MigrationFailed):
        return ConfigProblem(translate(migration_line(exc)))
    if busy(exc):
        return ConfigProblem(translate(msg("admin.backup.locked", path=where)))
    return database_problem(exc, where)


async def recompute(where: str | Path, guild: int | None) -> int:
    """Rebuild the ratings in the database ``where``; the number of matches read."""
    store = await opened(str(where))
    try:
        return await Standings(store).recompute(guild)
    finally:
        await store.close()


def migrate_db(source: Path, target: str, now: float) -> int:
    """Copy the SQLite file ``source`` into the PostgreSQL database ``target``; prints what was
    copied (or why nothing was) and returns the exit status.

    Refused while a bot runs on ``source`` (a fresh lease at ``now``, or the file held open):
    the moves it saved after the copy would be lost when the bot is switched over."""
    import importlib.util

    from bot.game.leases import LEASE_TTL
    from bot.process.app import postgres_refusal, refusal_line
    from bot.storage.records import MigrationFailed, StorageError
    from bot.storage.sqlite import busy
    from bot.storage.sqlite_backup import in_use

    if not is_database_url(target):
        print(translate(msg("admin.migrate.not_url")), file=sys.stderr)
        return 2
    # asked before the copy opens the file itself: its own connection is no bot
    if source.is_file() and (running := in_use(source, now, LEASE_TTL, "migrate")) is not None:
        print(translate(running.message), file=sys.stderr)
        return 1
    if source.is_file() and not writable(source):  # brought to this bot's schema first
        print(translate(msg("admin.migrate.unwritable", path=str(source))), file=sys.stderr)
        return 1
    if importlib.util.find_spec("asyncpg") is None:
        print(translate(msg("admin.migrate.driver", db=shown(target))), file=sys.stderr)
        return 1
    from bot.storage.postgres_move import copy_sqlite_to_postgres

    try:
        copied = asyncio.run(copy_sqlite_to_postgres(source, target))
    except Exception as exc:  # the server's refusals as the bot tells them, on --to
        if (refusal := postgres_refusal(exc)) is not None:
            line = refusal_line("admin.migrate", refusal, target)
        elif busy(exc):
            line = msg("admin.backup.locked", path=str(source))
        elif isinstance(exc, StorageError | MigrationFailed):  # CannotMove is one
            line = msg("admin.migrate.failed", error=str(exc))
        else:
            raise
        print(translate(line), file=sys.stderr)
        return 1
    for table, count in copied.items():
        print(translate(msg("admin.migrate.copied", table=table, count=count)))
    print(translate(msg("admin.migrate.done", target=shown(target))))
    return 0


def writable(file: Path) -> bool:
    """True when SQLite may write the database ``file``: the file, and its folder (its
    ``-wal`` and ``-shm`` files go beside it), on a file system that is not read-only."""
    folder = file.parent if str(file.parent) else Path(".")
    return os.access(file, os.R_OK | os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


async def forget(where: str, user: int, now: float) -> int:
    """Forget person ``user`` in the database ``where`` as ``/goblin forget-me`` does; prints
    what was done and returns the exit status.

    On PostgreSQL it works while the bot runs: a running match's seat is handed to the AI by a
    write the bot holding the table hears of (it plays the seat at once). A SQLite database
    belongs to the one bot that has it open, which keeps the tables it read in memory and would
    not see the change: when a bot holds a fresh lease there and the person sits at an open
    table, nothing is done and the administrator is asked to stop the bot first (the rest
    could be done, but a half-done request is worse than a clear refusal)."""
    from bot.game.leases import LEASE_TTL
    from bot.game.service import GameService
    from bot.storage.sqlite_backup import in_use

    shown_user = str(user)
    if not discord_id(user):
        print(translate(msg("forget.admin.bad_user")), file=sys.stderr)
        return 2
    # asked before the command opens the file itself: its own connection is no bot
    bot_on_file = (not is_database_url(where) and Path(where).is_file()
                   and in_use(Path(where), now, LEASE_TTL) is not None)
    store = await opened(where)
    try:
        service = GameService(store, clock=lambda: now)
        if bot_on_file:
            for tid in await store.ids_with_status("lobby", "running"):
                record = await store.get(tid)
                if record is not None and record.seat_of(user) is not None:
                    print(translate(msg("forget.admin.running", user=shown_user)),
                          file=sys.stderr)
                    return 1
        done = await service.people.forget(user)
    finally:
        await store.close()
    key = "forget.admin.done" if done.anything else "forget.admin.nothing"
    print(translate(msg(key, user=shown_user)))
    return 0


class Commands(argparse.ArgumentParser):
    """The top of the command line: a command it does not know shows the full help (every
    command with its line) before argparse's own error line."""

    def error(self, message: str) -> NoReturn:
        self.print_help(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    """The command line: one subparser per command."""
    top = Commands(prog="python -m bot.admin", description=translate(msg("admin.description")))
    top.add_argument("--env-file", type=Path, default=None,
                     help=translate(msg("bot.cli.env_file")))
    commands = top.add_subparsers(dest="command", parser_class=argparse.ArgumentParser)
    ratings = commands.add_parser("ratings", help=translate(msg("ratings.admin.ratings")),
                                  description=translate(msg("ratings.admin.description")))
    ratings.add_argument("--recompute", action="store_true", required=True,
                         help=translate(msg("ratings.admin.recompute")))
    ratings.add_argument("--guild", type=int, default=None,
                         help=translate(msg("ratings.admin.guild")))
    move = commands.add_parser("migrate-db", help=translate(msg("admin.migrate.help")),
                               description=translate(msg("admin.migrate.help")))
    move.add_argument("--from", dest="source", type=Path, required=True,
                      help=translate(msg("admin.migrate.source")))
    move.add_argument("--to", dest="target", required=True,
                      help=translate(msg("admin.migrate.target")))
    save = commands.add_parser("backup", help=translate(msg("admin.backup.help")),
                               description=translate(msg("admin.backup.help")))
    save.add_argument("--to", dest="target", type=Path, required=True,
                      help=translate(msg("admin.backup.target")))
    load = commands.add_parser("restore", help=translate(msg("admin.restore.help")),
                               description=translate(msg("admin.restore.help")))
    load.add_argument("--from", dest="source", type=Path, required=True,
                      help=translate(msg("admin.restore.source")))
    gone = commands.add_parser("forget", help=translate(msg("forget.admin.help")),
                               description=translate(msg("forget.admin.help")))
    gone.add_argument("--user", type=int, required=True, help=translate(msg("forget.admin.user")))
    return top


def backup_or_restore(command: str, where: str, file: Path, now: float) -> int:
    """Run ``backup`` or ``restore`` on the database ``where``; prints what was done (or why
    not, one line on stderr) and returns the exit status."""
    from bot.game.leases import LEASE_TTL
    from bot.storage.sqlite_backup import DONE, backup, restore

    outcome = backup(where, file) if command == "backup" else restore(where, file, now,
                                                                       LEASE_TTL)
    print(translate(outcome.message), file=sys.stdout if outcome.status == DONE else sys.stderr)
    return outcome.status


def main(argv: list[str] | None = None) -> int:
    """Run one administrator's command; returns the process exit status."""
    command_line = parser()
    args = command_line.parse_args(argv)
    if args.command is None:  # no command: every command, with its line
        command_line.print_help(sys.stderr)
        print(translate(msg("admin.choose")), file=sys.stderr)
        return 2
    if args.command == "migrate-db":
        return migrate_db(args.source, args.target, time.time())
    if args.command == "ratings" and args.guild is not None and not discord_id(args.guild):
        print(translate(msg("ratings.admin.bad_guild")), file=sys.stderr)
        return 2
    try:
        where = database(env_file_named(args.env_file))
    except ConfigProblem as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.command in ("backup", "restore"):
        file = args.target if args.command == "backup" else args.source
        return backup_or_restore(args.command, where, file, time.time())
    try:
        if args.command == "forget":
            return asyncio.run(forget(where, args.user, time.time()))
        count = asyncio.run(recompute(where, args.guild))
    except ConfigProblem as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except DamagedResults as exc:
        print(translate(msg("ratings.admin.damaged", count=len(exc.table_ids), db=shown(where),
                            tables=", ".join(map(str, exc.table_ids)))), file=sys.stderr)
        return 1
    except CannotSave as exc:  # full, failing or gone: the same command again finishes it
        print(translate(msg("admin.cannot_save", db=shown(where), error=str(exc))),
              file=sys.stderr)
        return 1
    if count:
        print(translate(msg("ratings.admin.done", count=count, db=shown(where))))
    elif args.guild is not None:  # a server id typed wrong, or a server that never finished one
        print(translate(msg("ratings.admin.no_games", guild=str(args.guild), db=shown(where))))
    else:
        print(translate(msg("ratings.admin.none", db=shown(where))))
    return 0


__all__ = ["backup_or_restore", "database", "discord_id", "forget", "main", "migrate_db", "opened",
           "opening_problem", "parser", "recompute", "writable"]
