"""Taking back a misclick in the bot: the Undo button, the table told (in a line that goes
when the next table message is posted), stale buttons refused
politely, the log keeping what was taken back and replaying to the stored game, the turn timer
kept, the host's setting, the question asked once before a move easy to regret, and a move taken
back after the bot restarted."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot_helpers import Clock
from live_bot import CHANNEL, GUILD, LiveBot, Message, User, component, offered
from players import ADMIN, ANN, BOB, EVE, Players, TinyRenderer, open_table, planted

from bot.discord_side.ui.custom_ids import BackButton, LobbyButton, MoveButton, SureButton
from bot.game.guard import question
from bot.storage.records import ServerDefaults, TableRecord
from engine import EndBattle, Observation, Undo, observe
from engine.agents import make_agent
from engine.replay import replay
from loopback import Loopback

UNDO = str(Undo())
Wanted = Callable[[TableRecord, Observation], bool]


async def until(h: LiveBot, tid: int, users: list[User], wanted: Wanted,
                moves: int = 400) -> tuple[User, Message, TableRecord]:
    """Play the heuristic agent's moves (confirming every question) until the person to play
    faces a position ``wanted`` accepts; that person, their hand message and the table."""
    players = Players(h, tid, users)
    for _ in range(moves):
        rec = await h.bot.service.tables.load(tid)
        assert rec.status == "running", "the game ended first"
        state = rec.game
        user = players.users[rec.seats[state.current].user or 0]
        obs = observe(state, state.current)
        hand = await players.open_hand(user)
        if wanted(rec, obs):
            return user, hand, rec
        await h.play(user, hand, str(make_agent("heuristic", state.step).choose(obs)))
    raise AssertionError("never reached")


def may_undo(rec: TableRecord, obs: Observation) -> bool:
    """The person to play may take back their last move."""
    return Undo() in obs.legal


async def test_a_move_taken_back_then_played_again(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await until(bot, tid, [ANN, BOB], may_undo)
    log = await bot.store.action_log(tid)
    move = log[-1].action  # the move Undo takes back
    labels = {c["custom_id"]: c.get("label") for c in hand.items() if c.get("type") == 2}
    undo_id = offered(hand)[UNDO][0]
    assert labels[undo_id] == "Take back" and list(labels)[-1] == undo_id  # last, grey
    assert hand.component(undo_id)["style"] == 2  # type: ignore[index]
    before = len(bot.public())
    await bot.play(user, hand, UNDO)
    back = await bot.bot.service.tables.load(tid)
    assert back.version == rec.version + 1 and back.game.step == rec.game.step - 1
    told = [m.text() for m in bot.public()[before:]]
    assert any("takes back" in t for t in told), told
    # the same move again: nothing crashes, the version keeps growing
    hand = bot.message(hand)
    assert move in offered(hand)
    await bot.play(user, hand, move)
    again = await bot.bot.service.tables.load(tid)
    assert again.version == rec.version + 2 and again.game.step == rec.game.step
    # a button drawn before the take-back, and a stale Undo, are refused politely
    for version, notation in ((rec.version - 1, move), (rec.version, UNDO)):
        cid = MoveButton.id_for(tid, version, notation)
        ix = await bot.click(user, planted(bot.lb, user, cid), cid)
        assert "before a move was taken back" in " ".join(bot.said(ix)), bot.said(ix)
    # a version no bot drew yet is a button from later in the match, not an older one
    cid = f"kg:do:{tid}:{again.version + 5}:{move}"
    ix = await bot.click(user, planted(bot.lb, user, cid), cid)
    assert "later point in the match" in " ".join(bot.said(ix)), bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).version == again.version
    # nothing deleted: the taken-back move stays in the log, marked, and the log replays
    rows = await bot.store.action_log(tid)
    assert [(r.action, r.undone) for r in rows[-3:]] == [(move, True), (UNDO, False),
                                                         (move, False)]
    assert len(rows) == again.version
    assert replay(again.game.config, [r.action for r in rows]) == again.game


async def test_a_take_back_keeps_the_turn_timer_and_replans_it(bot: LiveBot,
                                                               clock: Clock) -> None:
    await bot.command(ANN, "new", timer=300)
    tid = int(bot.public()[-1].custom_ids()[0].split(":")[2])
    await bot.click(BOB, bot.public()[-1], LobbyButton.id_for(tid, "join", None))
    await bot.click(ANN, bot.public()[-1], LobbyButton.id_for(tid, "start", None))
    user, hand, rec = await until(bot, tid, [ANN, BOB], may_undo)
    assert rec.deadline is not None
    clock.now += 10
    await bot.play(user, hand, UNDO)
    play = bot.bot.service.play
    back = await bot.bot.service.tables.load(tid)
    assert back.deadline == rec.deadline  # the running turn's deadline, not a fresh one
    assert await play.due() == [(tid, back.version, rec.deadline)]
    clock.now = rec.deadline + 1
    assert await play.expire(tid, rec.version) == []  # planned before the take-back: void
    outcomes = await play.expire(tid, back.version)  # planned again: the AI plays the turn
    assert outcomes and all(o.by_ai and not isinstance(o.action, Undo) for o in outcomes)
    await bot.bot.scheduler.after(outcomes)
    await bot.settle()


async def test_the_host_may_forbid_taking_back(bot: LiveBot) -> None:
    await bot.command(ANN, "new", undo=False)
    lobby = bot.public()[-1]
    assert "Taking back a move: off." in lobby.text()
    tid = int(lobby.custom_ids()[0].split(":")[2])
    await bot.click(BOB, lobby, LobbyButton.id_for(tid, "join", None))
    await bot.click(ANN, lobby, LobbyButton.id_for(tid, "start", None))
    user, hand, rec = await until(bot, tid, [ANN, BOB], may_undo)
    assert UNDO not in offered(hand)  # the engine allows it; this table does not
    cid = MoveButton.id_for(tid, rec.version, UNDO)
    ix = await bot.click(user, planted(bot.lb, user, cid), cid)
    assert "switched off" in " ".join(bot.said(ix)), bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).version == rec.version


async def test_a_server_may_switch_taking_back_off_for_its_new_tables(bot: LiveBot) -> None:
    ix = await bot.command(ADMIN, "settings", undo=False)
    assert "at new tables on this server: off." in " ".join(bot.said(ix)), bot.said(ix)
    assert await bot.bot.service.servers.defaults(GUILD) == ServerDefaults(undo=False)
    await bot.command(ANN, "new")
    assert "Taking back a move: off." in bot.public()[-1].text()
    assert not (await bot.bot.service.tables.in_channel(CHANNEL)).undo
    await bot.command(ANN, "abandon")
    await bot.command(ANN, "new", undo=True)  # the host decides for their table
    assert (await bot.bot.service.tables.in_channel(CHANNEL)).undo


def losing_end(rec: TableRecord, obs: Observation) -> bool:
    """The person to play may end a battle the preview shows as lost."""
    return EndBattle() in obs.legal and question(obs, EndBattle()) is not None


async def test_ending_a_lost_battle_is_asked_once_then_applied(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await until(bot, tid, [ANN, BOB], losing_end)
    await bot.play(user, hand, "end", sure=False)
    asked = bot.message(hand)
    assert asked.text().startswith(f"### Your hand - table #{tid}\n**Really end the battle? ")
    assert [c.split(":")[1] for c in asked.custom_ids()] == ["sure", "back"]
    assert (await bot.bot.service.tables.load(tid)).version == rec.version  # nothing applied
    await bot.click(user, asked, BackButton.id_for(tid))  # back: the hand again, still undecided
    hand = bot.message(hand)
    assert "end" in offered(hand)
    await bot.play(user, hand, "end", sure=False)
    # another player's Confirm is refused; a stranger's Back shows no hand
    other = next(u for u in (ANN, BOB) if u is not user)
    cid = SureButton.id_for(tid, rec.version, "end")
    ix = await bot.click(other, planted(bot.lb, other, cid), cid)
    assert "Not your turn" in " ".join(bot.said(ix)), bot.said(ix)
    ix = await bot.click(EVE, planted(bot.lb, EVE, BackButton.id_for(tid)), BackButton.id_for(tid))
    assert "have a seat" in " ".join(bot.said(ix)), bot.said(ix)
    assert (await bot.bot.service.tables.load(tid)).version == rec.version
    await bot.click(user, bot.message(hand), SureButton.id_for(tid, rec.version, "end"))
    after = await bot.bot.service.tables.load(tid)
    assert after.version == rec.version + 1
    assert (await bot.store.action_log(tid))[-1].action == "end"


async def test_a_take_back_line_goes_when_the_next_table_message_is_posted(
        bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])
    user, hand, rec = await until(bot, tid, [ANN, BOB], may_undo)
    await bot.play(user, hand, UNDO)
    told = [m for m in bot.public() if "takes back" in m.text()]
    assert len(told) == 1, [m.text()[:60] for m in bot.public()]
    posted = bot.last_table_message().id
    players = Players(bot, tid, [ANN, BOB])
    while bot.last_table_message().id == posted:  # the next person's turn: a new message
        assert await players.step()
    assert not [m for m in bot.public() if "takes back" in m.text()], [
        m.text()[:60] for m in bot.public()]


async def test_a_visit_to_the_merchant_with_nothing_to_pay_is_asked_once(bot: LiveBot) -> None:
    tid = await open_table(bot, ANN, [BOB])  # the first turn: starting cards only, no item
    rec = await bot.bot.service.tables.load(tid)
    user = next(u for u in (ANN, BOB) if u.id == rec.seats[rec.game.current].user)
    hand = await Players(bot, tid, [ANN, BOB]).open_hand(user)
    assert component(hand, offered(hand)["merchant"][0])["style"] == 2  # grey: nothing to pay
    await bot.play(user, hand, "merchant", sure=False)
    asked = bot.message(hand)
    assert "Really visit the merchant? You hold nothing the merchant accepts" in asked.text()
    assert [c.split(":")[1] for c in asked.custom_ids()] == ["sure", "back"]
    assert (await bot.bot.service.tables.load(tid)).version == rec.version  # still legal, asked
    await bot.click(user, asked, SureButton.id_for(tid, rec.version, "merchant"))
    assert (await bot.store.action_log(tid))[-1].action == "merchant"


async def test_a_move_is_taken_back_after_a_restart(lb: Loopback, tmp_path: Path,
                                                    clock: Clock) -> None:
    db = tmp_path / "k.db"
    first = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        tid = await open_table(first, ANN, [BOB])
        _, _, rec = await until(first, tid, [ANN, BOB], may_undo)
    finally:
        await first.stop()
    again = await LiveBot.start(lb, db, TinyRenderer(), clock=clock)
    try:
        user, hand, restarted = await until(again, tid, [ANN, BOB], may_undo, moves=1)
        assert restarted.version == rec.version and restarted.game == rec.game
        assert rec.game.undo is not None and restarted.game.undo == rec.game.undo
        await again.play(user, hand, UNDO)
        back = await again.bot.service.tables.load(tid)
        assert back.version == rec.version + 1 and back.game.step == rec.game.step - 1
        rows = await again.store.action_log(tid)
        assert replay(back.game.config, [r.action for r in rows]) == back.game
    finally:
        await again.stop()
