"""Taking back a move in storage: the table's version only ever grows, the action log keeps the
taken-back action (marked ``undone``) and the take-back itself, and replays to the stored game;
whether a table (and a server's new tables) allow taking back is stored."""

from __future__ import annotations

from bot.game.places import Place
from bot.storage.interface import Storage
from bot.storage.records import LogRow, ServerDefaults
from engine import GameState, Undo, apply, legal_actions, parse
from engine.replay import replay
from storage.helpers import GUILD, Game, played, started

UNDO = str(Undo())


def undoable(game: Game) -> int:
    """The index of the first move of ``game`` that may be taken back right after it."""
    return next(i for i in range(len(game.moves))
                if Undo() in legal_actions(game.states[i + 1]))


def row(seat: int, action: str, state: GameState) -> LogRow:
    """The log row of ``action`` by ``seat`` that led to ``state``."""
    return LogRow(step=state.step, seat=seat, user_id=None, by_ai=False, action=action, at=0.0)


async def test_a_take_back_marks_the_move_undone_and_the_log_replays(store: Storage) -> None:
    game = played(4)
    last = undoable(game)
    rec = await started(store, game.states[0])
    for index in range(last + 1):
        await store.apply(rec.id, index, game.states[index + 1], game.log_row(index))
    seat, move = game.moves[last]
    back, said = apply(game.states[last + 1], Undo())
    assert back == game.states[last] and [e.text.key for e in said] == ["event.take_back"]
    await store.apply(rec.id, last + 1, back, row(seat, UNDO, back))
    after = await store.get(rec.id)
    assert after is not None and after.game == back
    assert after.version == last + 2 and back.step == last  # the version grew; the step went back
    # the same move again, then taken back again: every row stays, in the order applied
    again, _ = apply(back, parse(move))
    await store.apply(rec.id, last + 2, again, row(seat, move, again))
    await store.apply(rec.id, last + 3, back, row(seat, UNDO, back))
    log = await store.action_log(rec.id)
    assert [(r.action, r.undone) for r in log[last:]] == [
        (move, True), (UNDO, False), (move, True), (UNDO, False)]
    assert not any(r.undone for r in log[:last])
    final = await store.get(rec.id)
    assert final is not None and final.version == last + 4
    config = final.game.config
    assert replay(config, [r.action for r in log]) == final.game
    assert replay(config, [r.action for r in log if not r.undone and r.action != UNDO]) \
        == final.game


async def test_whether_take_backs_are_allowed_is_stored(store: Storage) -> None:
    rec = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, 1).key,
                                   channel_id=5, host_id=1, seats=(),
                                   abilities=False, timer=0, seed=1, undo=False)
    assert rec.undo is False
    other = await store.create_table(guild_id=GUILD, place_key=Place.of(GUILD, 1).key,
                                     channel_id=6, host_id=1, seats=(),
                                     abilities=False, timer=0, seed=1)
    assert other.undo is True
    await store.set_guild_settings(GUILD, ServerDefaults(undo=False))
    assert await store.guild_settings(GUILD) == ServerDefaults(undo=False)
    await store.set_guild_settings(GUILD, ServerDefaults(timer=60))
    assert await store.guild_settings(GUILD) == ServerDefaults(timer=60, undo=True)
