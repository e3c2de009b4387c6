"""What an admin does to keep and move a bot's data, done with the images (see
docs/upgrades-and-backups.md), against the Discord stand-in.

Backup and restore: while people play a match and an AI-only table plays on (the database
written all the time), ``python -m bot.admin backup`` runs in a second container on the same
volume, as ``docker compose run --rm karak ...`` runs it; a restore there is refused while the
bot runs. The backup is restored by the image's ``restore`` into a new volume, a new container
on it finishes the match, and every move acknowledged before the backup began is there.

Upgrade: the image of the oldest release the docs say an upgrade starts from
(:data:`OLDEST_UPGRADE`, built from ``git archive`` of that commit on the same base, sharing the
dependency layers when its ``requirements.lock`` is the same) plays half a match; the container
is stopped, the current image started on the same volume migrates the database and finishes the
match, every acknowledged move kept. Without git history (a tarball of the project) the upgrade
test skips with one line, failing under CI.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess
import time
from contextlib import closing
from pathlib import Path

from docker_base import base_name, image_exists
from docker_container import (
    FIGURES,
    IMAGE,
    ROOT,
    Built,
    Container,
    admin_command,
    create_volume,
    new_name,
    write_env,
)
from docker_host import DockerFailed, docker, run
from e2e.lobby import open_table
from e2e.oracle import Oracle
from e2e.player import Acknowledged, Player, check_acknowledged, play, play_until
from shared_files import missing

from bot.storage.core.rows import TABLE_COLUMNS, read_record
from bot.storage.records import TableRecord
from bot.storage.sqlite_schema import SCHEMA_VERSION
from loopback import Loopback

#: The oldest commit an upgrade is tested from (docs/upgrades-and-backups.md names it): the
#: release with the frozen migrations, at schema version 12, on the same base image and
#: dependencies as today's.
OLDEST_UPGRADE = "5a12be1"
#: The tag its image is built under (kept, like the current image, for the next run).
OLD_IMAGE = f"karak-goblin-bot:upgrade-from-{OLDEST_UPGRADE}"
#: The bot's settings in the tests' .env: AI seats move every 0.1 s.
SETTINGS = {"KARAK_AI_PACE": "0.1", "KARAK_LOG_LEVEL": "INFO"}
#: Moves the people make before the backup, or before the old image is stopped.
FIRST_MOVES = 10
#: What the upgrade test did not check when it skips.
UNCHECKED = f"an upgrade from the image of {OLDEST_UPGRADE} to the current image"


def confirmed(players: list[Player]) -> int:
    """Moves the bot confirmed to these players so far."""
    return sum(len(p.acknowledged) for p in players)


class OldOracle(Oracle):
    """Reads a database of schema 12, before each table kept its place (``place_key``), its
    take-back's anchor apart (``anchor``: then inside the state), its thread, its
    tournament and its host's choices of a thread and of hints."""

    def table(self, tid: int) -> TableRecord:
        columns = TABLE_COLUMNS.replace("place_key", "'guild:0' AS place_key").replace(
            " anchor", " NULL AS anchor").replace(
            " threaded, thread_id", " 0 AS threaded, NULL AS thread_id").replace(
            " tournament_id", " NULL AS tournament_id").replace(
            " thread_choice", " NULL AS thread_choice").replace(
            " hints_choice", " NULL AS hints_choice")
        with self._connect() as con:
            row = con.execute(f"SELECT {columns} FROM tables WHERE id = ?", (tid,)).fetchone()
        assert row is not None, f"no table {tid}"
        return read_record(row)


def schema_of(db: Path) -> int:
    """The schema version of the database file ``db``."""
    import sqlite3

    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        return int(con.execute("PRAGMA user_version").fetchone()[0])


def old_image() -> str:
    """:data:`OLD_IMAGE`, built from ``git archive`` of :data:`OLDEST_UPGRADE` when it is not
    here yet (skipping, or failing under CI, without git history)."""
    if image_exists(OLD_IMAGE):
        return OLD_IMAGE
    if shutil.which("git") is None or subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-e", f"{OLDEST_UPGRADE}^{{commit}}"],
            capture_output=True).returncode != 0:
        missing(f"no git history with commit {OLDEST_UPGRADE} here", UNCHECKED)
    # files as a checkout has them (0644, not git archive's 0664): the same requirements.lock
    # then hits the current build's cache, and the image shares its dependencies' layers
    archive = subprocess.run(["git", "-C", str(ROOT), "-c", "tar.umask=0022", "archive",
                              "--format=tar", OLDEST_UPGRADE], capture_output=True,
                             check=True).stdout
    started = time.monotonic()
    done = subprocess.run(["nice", "docker", "build", "--network", "host", "--force-rm",
                           "--tag", OLD_IMAGE, "-"], input=archive, capture_output=True,
                          timeout=900)
    if done.returncode != 0:
        raise DockerFailed(f"building {OLD_IMAGE}: {done.stderr.decode()[-2000:]}")
    FIGURES.append(f"image of {OLDEST_UPGRADE} built in {time.monotonic() - started:.0f} s")
    return OLD_IMAGE


def layers(name: str) -> list[str]:
    """The layers of an image, from its base up."""
    found: list[str] = json.loads(docker("image", "inspect", "--format",
                                         "{{json .RootFS.Layers}}", name))
    return found


def shared_layers(old: str, new: str) -> int:
    """How many layers, from the base up, two images share."""
    count = 0
    for a, b in zip(layers(old), layers(new), strict=False):
        if a != b:
            break
        count += 1
    return count


def same_dependencies() -> bool:
    """True when :data:`OLDEST_UPGRADE` pins the dependencies the current tree pins."""
    then = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLDEST_UPGRADE}:requirements.lock"],
                          capture_output=True, text=True)
    return then.returncode == 0 and then.stdout == (ROOT / "requirements.lock").read_text()


def test_the_docs_name_the_oldest_upgrade() -> None:
    text = (ROOT / "docs" / "upgrades-and-backups.md").read_text(encoding="utf-8")
    assert f"`{OLDEST_UPGRADE}`" in text
    assert "docs/upgrades-and-backups.md" in (ROOT / "README.md").read_text(encoding="utf-8")


async def test_a_backup_under_load_restored_on_a_new_volume_finishes_the_match(
        image: Built, standin: Loopback, volume: tuple[str, Path], tmp_path: Path) -> None:
    lb = standin
    env_file = write_env(tmp_path / ".env", lb, SETTINGS)
    rng = random.Random(7)
    guild = lb.create_guild("Karak Club", locale="en-US")
    hall, cellar = (lb.create_channel(guild, n) for n in ("hall", "cellar"))
    ann, bob, ida = (lb.create_user(n, "en-US") for n in ("Ann", "Bob", "Ida"))
    first = Container(new_name("bot"), volume[0], env_file)
    second_volume = new_name("data")
    second_folder = create_volume(second_volume)
    second = Container(new_name("bot"), second_volume, env_file)
    try:
        await first.start(lb)
        oracle = Oracle(volume[1] / "karak.sqlite3")
        t1 = await open_table(lb, hall, ann, [bob], ai=1)
        t2 = await open_table(lb, cellar, ida, [], ai=1)  # AI seats alone: a write every 0.1 s
        await (await lb.command(ida, cellar, "goblin leave")).done()
        players = [Player(lb, u, hall, oracle, rng) for u in (ann, bob)]
        await play_until(lb, players, lambda: confirmed(players) >= FIRST_MOVES)

        # the backup runs while the people go on clicking and the cellar plays on
        before: list[Acknowledged] = [a for p in players for a in p.acknowledged]
        started = oracle.table(t2).version
        backup = asyncio.create_task(admin_command(env_file, volume[0], "backup", "--to",
                                            "/data/backup.sqlite3"))
        await play_until(lb, players, backup.done)
        status, said = backup.result()
        assert status == 0 and "Backed up /data/karak.sqlite3 into /data/backup.sqlite3" \
            in said, said
        assert oracle.table(t2).version > started, "the cellar played during the backup"
        status, said = await admin_command(env_file, volume[0], "restore", "--from",
                                           "/data/backup.sqlite3")
        assert status == 1 and "A bot is running on this database: main renewed its lease" \
            in said, said
        seconds, status = await first.stop()
        assert status == 0, (await first.logs())[-3000:]
        first.remove()

        # restored into a new volume by the image's restore, a new bot on it
        status, said = await admin_command(env_file, second_volume, "restore", "--from",
                                           "/backup/backup.sqlite3",
                                           mounts=(f"{volume[0]}:/backup:ro",))
        assert status == 0 and "Restored /backup/backup.sqlite3 into /data/karak.sqlite3" \
            in said, said
        restored = Oracle(second_folder / "karak.sqlite3")
        for p in players:
            p.acknowledged = [a for a in before if a.user == p.user.id]
        assert check_acknowledged(players, restored) == len(before) >= FIRST_MOVES
        await second.start(lb)
        for p in players:  # what they saw after the backup is gone: they look again
            p.oracle, p.acknowledged = restored, []
            p.acted.clear()
            p.asked.clear()
        await play(lb, players, [t1], restored)
        rec = restored.table(t1)
        assert rec.status == "finished" and rec.winner is not None
        check_acknowledged(players, restored)
        assert [r.action for r in restored.log(t1)][:len(before)] == [
            r.action for r in oracle.log(t1)][:len(before)]
        seconds, status = await second.stop()
        assert status == 0, (await second.logs())[-3000:]
        FIGURES.append(f"backup and restore: stopped in {seconds:.1f} s")
    finally:
        first.remove()
        second.remove()
        run(["docker", "volume", "rm", "--force", second_volume], 60, check=False)


async def test_an_upgrade_from_the_oldest_release_finishes_the_match(
        image: Built, standin: Loopback, volume: tuple[str, Path], tmp_path: Path) -> None:
    lb = standin
    old = old_image()
    shared, base = shared_layers(old, IMAGE), len(layers(base_name(ROOT / "Dockerfile")))
    FIGURES.append(f"image of {OLDEST_UPGRADE}: {shared} layers shared with the current "
                   f"image, {base} of them the base's")
    if same_dependencies():  # the base, the image's user and the dependencies
        assert shared >= base + 2, f"only {shared} layers shared, the base has {base}"
    env_file = write_env(tmp_path / ".env", lb, SETTINGS)
    db = volume[1] / "karak.sqlite3"
    rng = random.Random(11)
    guild = lb.create_guild("Karak Club", locale="en-US")
    hall = lb.create_channel(guild, "hall")
    ann, bob = (lb.create_user(n, "en-US") for n in ("Ann", "Bob"))
    before = Container(new_name("old"), volume[0], env_file, image=old)
    after = Container(new_name("bot"), volume[0], env_file)
    try:
        await before.start(lb)
        assert schema_of(db) < SCHEMA_VERSION
        t1 = await open_table(lb, hall, ann, [bob], ai=1)
        players = [Player(lb, u, hall, OldOracle(db), rng) for u in (ann, bob)]
        await play_until(lb, players, lambda: confirmed(players) >= FIRST_MOVES)
        seconds, status = await before.stop()
        assert status == 0, (await before.logs())[-3000:]
        before.remove()

        await after.start(lb)  # the current image on the same volume: migrations run
        assert schema_of(db) == SCHEMA_VERSION
        oracle = Oracle(db)
        for p in players:
            p.oracle = oracle
        assert check_acknowledged(players, oracle) >= FIRST_MOVES
        await play(lb, players, [t1], oracle)
        rec = oracle.table(t1)
        assert rec.status == "finished" and rec.winner is not None
        assert check_acknowledged(players, oracle) > FIRST_MOVES
        seconds, status = await after.stop()
        assert status == 0, (await after.logs())[-3000:]
        assert lb.breaches == [], "\n".join(map(str, lb.breaches))
    finally:
        before.remove()
        after.remove()

