"""A person who left a running match (or whose turns the AI took over for good) no longer plays
its seat: the AI does, and the cards it draws there are hidden from them as every other seat's
hand is. Their *My hand*, an older hand message's buttons and the Log button show them what a
spectator sees of that seat, nothing more."""

from __future__ import annotations

from live_bot import LiveBot
from players import ANN, BOB, EVE, open_table

from bot.discord_side.ui.custom_ids import HandButton, LogButton, MoveButton
from i18n import msg, translate


async def test_one_who_left_a_running_match_sees_no_more_of_its_seat_s_hand(
        bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB, EVE])
    rec = await bot.bot.service.tables.load(tid)
    seat = rec.game.current
    leaver = next(u for u in (ANN, BOB, EVE) if u.id == rec.seats[seat].user)
    old_hand = bot.reply(await bot.click(leaver, bot.last_table_message(),
                                         HandButton.id_for(tid)))
    await bot.command(leaver, "leave")  # the AI plays the rest of the turn, and draws
    await bot.settle()
    rec = await bot.bot.service.tables.load(tid)
    assert rec.seats[seat].ai and rec.status == "running"
    ai_says = translate(msg("bot.error.seat_is_ai"), "en")

    shown = bot.reply(await bot.click(leaver, bot.last_table_message(), HandButton.id_for(tid)))
    assert shown.text().strip() == ai_says, shown.text()
    told = bot.reply(await bot.command(leaver, "hand"))
    assert told.text().strip() == ai_says, told.text()
    # a move button of the hand message opened before leaving: no hand either
    stale = bot.reply(await bot.click(leaver, old_hand,
                                      MoveButton.id_for(tid, 0, "revive")))
    assert translate(msg("bot.hand.title", table=tid), "en") not in stale.text(), stale.text()
    # the last turns told again: the AI seat's own draws are not among them
    log = bot.reply(await bot.click(leaver, bot.last_table_message(), LogButton.id_for(tid)))
    said = await bot.bot.service.story.last_turns(tid, leaver.id)
    assert all(e.to is None for e in said.events), [e.text for e in said.events]
    assert "You drew" not in log.text(), log.text()
    # nor once the match is abandoned (not finished: its hands stay hidden in its replay too)
    host = next(u for u in (ANN, BOB, EVE) if u.id == rec.host_id)
    await bot.abandon(host)
    assert (await bot.bot.service.tables.load(tid)).status == "abandoned"
    said = await bot.bot.service.story.last_turns(tid, leaver.id)
    assert all(e.to is None for e in said.events), [e.text for e in said.events]
    stale = bot.reply(await bot.click(leaver, old_hand, MoveButton.id_for(tid, 0, "revive")))
    assert "You drew" not in stale.text() and "in hand:" not in stale.text(), stale.text()

