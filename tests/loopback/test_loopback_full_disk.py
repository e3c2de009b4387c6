"""A person's move (or a new table) while the bot's disk refuses every write: they are told
privately that nothing was saved (no error or traceback in the bot's log), the table stays where
it was, and the same button works once the disk takes writes again."""
from __future__ import annotations

import random
import resource
from pathlib import Path

from chaos_run import refuse_writes
from e2e.answers import answered
from e2e.botlog import bot_errors
from e2e.lobby import open_table
from e2e.messages import moves_of
from e2e.oracle import Oracle
from e2e.player import Player

from loopback import Loopback
from loopback.botproc import BotProcess


async def test_a_move_on_a_full_disk_is_refused_clearly_and_works_later(
        lb: Loopback, tmp_path: Path) -> None:
    bot = BotProcess(lb, tmp_path / "karak.sqlite3")
    await bot.start()
    try:
        guild = lb.create_guild("Karak Club", locale="en-US")
        channel = lb.create_channel(guild, "hall")
        ann, bob = lb.create_user("Ann"), lb.create_user("Bob")
        tid = await open_table(lb, channel, ann, [bob])
        oracle = Oracle(bot.db)
        before = oracle.table(tid)
        me = ann if before.seats[before.game.current].user == ann.id else bob
        player = Player(lb, me, channel, oracle, random.Random(1))
        assert await player.open_hand(force=True)
        hand = player.hand()
        assert hand is not None
        notation, (cid, _) = next((n, v) for n, v in moves_of(hand).items()
                                  if v[1] is None and n != "merchant")  # played at once

        cellar = lb.create_channel(guild, "cellar")  # where a new table is not opened
        refuse_writes(bot, 0)
        try:
            await answered(lb, await lb.click(me, hand, cid), me, "storage is full or failing")
            assert oracle.table(tid).version == before.version and not oracle.log(tid)
            await answered(lb, await lb.command(ann, cellar, "goblin new"), ann,
                           "storage is full or failing")
        finally:
            refuse_writes(bot, resource.RLIM_INFINITY)
        await (await lb.click(me, hand, cid)).done(10)
        assert oracle.table(tid).version == before.version + 1
        assert [r.action for r in oracle.log(tid)] == [notation]
        assert oracle.active_in(cellar.id) is None
        assert not bot_errors(bot)
    finally:
        await bot.stop()
