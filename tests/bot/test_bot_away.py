"""A hand opened after others moved starts with what happened since the person's last move
(the narration of those moves, up to a screen, then how many more lines the Log tells); a hand
opened when nothing happened since starts as always."""
from __future__ import annotations

from live_bot import LiveBot
from players import ANN, BOB, Players, open_table

from bot.discord_side.away import MAX_LINES, away_lines
from engine import Event
from i18n import msg

SINCE = "Since your last move:"


async def play_a_turn(bot: LiveBot, players: Players, tid: int) -> int:
    """The seat to move plays its whole turn; the seat that played."""
    rec = await bot.bot.service.tables.load(tid)
    turn = (rec.game.round, rec.game.turn)
    seat = rec.game.current
    while True:
        assert await players.step()
        now = (await bot.bot.service.tables.load(tid)).game
        if (now.round, now.turn) != turn:
            return seat


async def test_a_hand_opened_after_others_moved_tells_what_happened(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    players = Players(bot, tid, [ANN, BOB])
    first = await play_a_turn(bot, players, tid)
    rec = await bot.bot.service.tables.load(tid)
    mover = ANN if rec.seats[first].user == ANN.id else BOB
    other = BOB if mover is ANN else ANN
    hand = (await players.open_hand(other)).text()
    assert SINCE in hand
    assert hand.index("table #") < hand.index(SINCE)  # under the title, above the rest
    told = hand.split(f"{SINCE}**\n", 1)[1]
    assert told.startswith(f"> {mover.name}")  # the narration of their moves follows
    mine = (await players.open_hand(mover)).text()
    assert SINCE not in mine  # their own move was the last: nothing happened since


def test_a_long_absence_is_cut_to_a_screen_with_the_rest_counted() -> None:
    events = [Event(msg("event.draw", who="Ann", count=2), None) for _ in range(MAX_LINES + 5)]
    lines = away_lines(events, "en")
    assert lines[0] == f"**{SINCE}**"
    assert len(lines) == MAX_LINES + 2
    assert lines[-1] == "*… and 5 more lines: the Log button tells the rest.*"
    assert away_lines([], "en") == []
    assert "et encore 5 lignes" in away_lines(events, "fr")[-1]
    assert "a ještě 5 řádků" in away_lines(events, "cs")[-1]
