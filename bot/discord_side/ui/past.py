"""The messages of past matches, as Components V2 layouts: a page of ``/goblin history``, a
step of a replay (private), and a rematch offer (public).

Every button carries what its click needs in its custom id (the page's anchor, the replay's
step), so a message keeps working after a restart.
"""

from __future__ import annotations

import discord

from bot.discord_side.ui.control import Control
from bot.discord_side.ui.custom_ids import (
    HistoryButton,
    RematchButton,
    ReplayButton,
    SeekMenu,
    ShareButton,
)
from bot.discord_side.ui.numbers import signed
from bot.discord_side.ui.parts import (
    GOLD,
    GREY,
    button,
    cut,
    layout,
    menu,
    picture,
    row,
    text_block,
)
from bot.game.history import HistoryPage, InRound, Loaded
from bot.game.markup import plain, plain_names
from bot.game.people import person_text
from bot.game.rematch import RematchState, people
from bot.game.texts import phase_line, winner_named
from bot.storage.records import (
    DamagedResult,
    SeatResult,
    TableRecord,
    TableResult,
    against_ai,
    won,
)
from engine.names import card_name, seat_name
from engine.replay import Replay
from i18n import Msg, msg, translate

#: Options of Discord's select menu.
MENU_OPTIONS = 25
#: Characters of a select option's label or description that Discord shows at most.
OPTION_TEXT = 100
#: What stands between two bookmarks of one step in the seek menu.
SEPARATOR = " · "
#: Narration lines of a replay step shown at most.
STEP_LINES = 8


def _seat(seat: SeatResult, locale: str, champion: bool) -> str:
    """One seat of a result: who, hero, and the AI's level (``champion``: the seat won the
    match and was played to its end by who holds it; never a seat a person left to the
    AI, nor in an abandoned match)."""
    hero = translate(msg(f"hero.{seat.hero}.name"), locale)
    if seat.kind == "ai":
        who = translate(msg("history.ai", level=msg(f"bot.level.{seat.ai_level}")), locale)
    else:
        who = f"<@{seat.user_id}>" if seat.user_id is None else person_text(seat.user_id, locale)
        if seat.handed_to_ai:
            who += " " + translate(msg("history.handed",
                                       level=msg(f"bot.level.{seat.ai_level}")), locale)
    if champion:
        who = f"{translate(msg('history.winner'), locale)} {who}"
    return translate(msg("history.seat", place=seat.place, who=who, hero=hero,
                         keys=seat.keys, hp=seat.hp), locale)


def played_in(result: TableResult, threads: dict[int, int | None]) -> Msg | None:
    """Where a match bound for a thread of its own was played (``threads``: see
    :attr:`~bot.game.history.HistoryPage.threads`): its thread (a link), or its channel once
    the thread was deleted (or when it never opened); None for a match played in its channel
    from the start."""
    if result.table_id not in threads:
        return None
    thread = threads[result.table_id]
    if thread is None:
        return msg("history.channel", channel=f"<#{result.channel_id}>")
    return msg("history.thread", thread=f"<#{thread}>")


def _entry(result: TableResult, changes: dict[int, int] | None, where: Msg | None,
           locale: str, in_round: InRound | None = None) -> str:
    """One match of the history: number, date, length, where it was played (``where``: see
    :func:`played_in`), winner and seats (by place); a match abandoned, or decided at its
    tournament round's deadline (``in_round``), says so and has no champion."""
    lines = [translate(msg("history.entry", table=result.table_id,
                           date=f"<t:{int(result.finished_at)}:f>", rounds=result.rounds,
                           moves=result.actions), locale)]
    if where is not None:
        lines.append(translate(where, locale))
    if result.guided:
        lines.append(translate(msg("ratings.note.history_guided"), locale))
    abandoned = result.abandoned_by is not None
    if abandoned:  # rated as it stood, or a game its one person lost against the AI
        lines.append(translate(msg("ratings.note.history_abandoned_alone" if against_ai(result)
                                   else "ratings.note.history_abandoned"), locale))
    at_deadline = in_round is not None and in_round.at_deadline
    if at_deadline:
        lines.append(translate(msg("history.tournament.at_deadline"), locale))
    for seat in sorted(result.seats, key=lambda s: s.place):  # by place, then seat order
        line = "- " + _seat(seat, locale, champion=won(result, seat) and not at_deadline)
        if changes is not None and seat.user_id in changes:  # filled once ratings exist
            line += " " + translate(msg("history.rating",
                                        change=signed(changes[seat.user_id], locale)), locale)
        lines.append(line)
    return "\n".join(lines)


def history_view(page: HistoryPage, player: int | None, locale: str) -> discord.ui.LayoutView:
    """A page of past matches (of one server tournament: under a heading for each of its
    rounds; a match that cannot be read is one line saying so) with its Newer and Older buttons
    (which keep the page's person and tournament)."""
    cup = page.tournament
    if cup is not None:
        name = plain(cup.name)  # its host's text, shown as typed
        title = (msg("history.tournament.title_player", who=f"<@{player}>", name=name)
                 if player else msg("history.tournament.title", name=name))
        empty = msg("history.tournament.empty", name=name)
    else:
        title = (msg("history.title_player", who=f"<@{player}>") if player
                 else msg("history.title"))
        empty = msg("history.empty")
    parts = [f"### {translate(title, locale)}"]
    if not page.results:
        parts.append(translate(empty, locale))
    heading = None
    for result in page.results:
        in_round = page.rounds.get(result.table_id)
        if in_round is not None and in_round.round != heading:
            heading = in_round.round
            parts.append("### " + translate(msg("history.tournament.round", round=heading),
                                          locale))
        if isinstance(result, DamagedResult):  # still counted: the pages beyond it are reached
            parts.append(translate(msg("history.damaged", table=result.table_id), locale))
            continue
        parts.append(_entry(result, page.rating_changes.get(result.table_id),
                            played_in(result, page.threads), locale, in_round))
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n\n".join(parts)),
                                                      accent_colour=GOLD)
    if page.results:
        tournament = None if cup is None else cup.id
        newer = button(translate(msg("history.newer"), locale),
                       HistoryButton.id_for(page.newer or page.results[0].table_id, "n", player,
                                            tournament),
                       disabled=page.newer is None)
        older = button(translate(msg("history.older"), locale),
                       HistoryButton.id_for(page.older or page.results[-1].table_id, "o", player,
                                            tournament),
                       disabled=page.older is None)
        box.add_item(row(newer, older))
        box.add_item(text_block("-# " + translate(msg("history.replay_hint"), locale)))
    return layout(box)


def goto(replay: Replay, step: int, op: str) -> int:
    """The step a replay button drawn at ``step`` leads to."""
    step = max(0, min(step, replay.last))
    turns = replay.turn_starts()
    match op:
        case "first":
            return 0
        case "prev":
            return max(0, step - 1)
        case "next":
            return min(replay.last, step + 1)
        case "last":
            return replay.last
        case "pturn":
            return max((t for t in turns if t < step), default=0)
        case "nturn":
            return min((t for t in turns if t > step), default=replay.last)
    return step


def bookmark_options(replay: Replay, step: int, locale: str, record: TableRecord | None = None
                     ) -> list[tuple[str, str, str | None]]:
    """The bookmarks offered in the seek menu: the :data:`MENU_OPTIONS` nearest ``step`` (one
    option per step, its bookmarks' labels joined), in the order of the match (``record``: its
    table, which names its winner as :func:`~bot.game.texts.winner_named` does)."""
    labels: dict[int, list[str]] = {}
    for mark in replay.bookmarks:
        label = mark.label if record is None else winner_named(mark.label, record)
        labels.setdefault(mark.step, []).append(translate(label, locale))
    nearest = sorted(labels, key=lambda s: (abs(s - step), s))[:MENU_OPTIONS]
    return [_fitted(labels[s], str(s), translate(msg("replay.option_step", step=s), locale))
            for s in sorted(nearest)]


def _fitted(marks: list[str], value: str, where: str) -> tuple[str, str, str]:
    """One step's option of the seek menu, its label and description each within Discord's
    :data:`OPTION_TEXT` characters: as many of the step's bookmarks as fit whole in the label,
    the others after ``where`` (the step) in the description; a text too long even so is cut
    at a word's end."""
    label, rest = marks[0], marks[1:]
    while rest and len(label) + len(SEPARATOR) + len(rest[0]) <= OPTION_TEXT:
        label += SEPARATOR + rest.pop(0)
    return cut(label, OPTION_TEXT), value, cut(SEPARATOR.join([where, *rest]), OPTION_TEXT)


def _hands(loaded: Loaded, step: int, locale: str) -> str:
    """Every seat's hand at ``step`` (a finished match only)."""
    shown = loaded.replay.reveal(step, final=loaded.record.game)
    state = loaded.replay.state(step)
    lines = [f"**{translate(msg('replay.hands'), locale)}**"]
    for i, hand in enumerate(shown.hands):
        cards = ", ".join(translate(card_name(c), locale) for c in hand) or "—"
        who = seat_name(state, i)
        name = translate(who, locale) if isinstance(who, Msg) else plain(str(who))
        lines.append(f"- {name}: {cards}")
    return "\n".join(lines)


def replay_view(loaded: Loaded, step: int, reveal: bool, locale: str,
                pictures: list[str]) -> discord.ui.LayoutView:
    """A step of a replay: where it is, the move's narration, the pictures (``pictures``: the
    uploaded files' names), the hands when revealed, the buttons and the bookmark menu."""
    replay, tid = loaded.replay, loaded.record.id
    obs = replay.view(step)
    head = [f"### {translate(msg('replay.title', table=tid), locale)}",
            translate(msg("replay.where", step=step, last=replay.last, round=obs.round), locale),
            translate(winner_named(phase_line(obs), loaded.record), locale)]
    if reveal:
        head.append(f"-# {translate(msg('replay.revealed'), locale)}")
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n".join(head)),
                                                      accent_colour=GREY)
    told = [translate(plain_names(winner_named(e.text, loaded.record)), locale)
            for e in replay.events(step)][-STEP_LINES:]
    if told:
        box.add_item(text_block("\n".join(f"> {line}" for line in told)))
    if reveal:
        box.add_item(text_block(_hands(loaded, step, locale)))
    for name in pictures:
        box.add_item(picture(name, translate(msg(f"bot.table.picture_{name[:-4]}"), locale)))

    def go(op: str, key: str, stop: bool) -> Control:
        return button(translate(msg(f"replay.{key}"), locale),
                      ReplayButton.id_for(tid, step, reveal, op), disabled=stop)

    box.add_item(row(go("first", "first", step == 0), go("prev", "prev", step == 0),
                     go("next", "next", step == replay.last),
                     go("last", "last", step == replay.last)))
    flip = "hide" if reveal else "reveal"
    box.add_item(row(go("pturn", "prev_turn", step == 0),
                     go("nturn", "next_turn", step == replay.last),
                     button(translate(msg(f"replay.{flip}"), locale),
                            ReplayButton.id_for(tid, step, reveal, "flip"),
                            disabled=not loaded.finished),
                     button(translate(msg("replay.share"), locale), ShareButton.id_for(tid),
                            "primary")))
    box.add_item(row(menu(SeekMenu.id_for(tid, reveal), translate(msg("replay.seek"), locale),
                          bookmark_options(replay, step, locale, loaded.record), str(step))))
    return layout(box)


def rematch_view(state: RematchState, locale: str, closed: bool = False) -> discord.ui.LayoutView:
    """The public rematch offer: who is ready (of those who may still play it), when it
    lapses, Ready and Start (gone once the rematch started or the offer lapsed)."""
    record, offer = state.record, state.offer
    lines = [f"### {translate(msg('rematch.title', table=record.id), locale)}"]
    if state.started is not None:
        lines.append(translate(msg("rematch.started", table=state.started.id), locale))
    elif closed or offer.closed:
        lines.append(translate(msg("rematch.lapsed"), locale))
    else:
        lines.append(translate(msg("rematch.offer", who=person_text(offer.offered_by, locale),
                                   when=f"<t:{int(state.lapses_at)}:R>"), locale))
        lines.append(translate(msg("rematch.kept"), locale))
    here = people(record)  # a person forgotten since is neither ready nor waited for
    ready = [person_text(u, locale) for u in offer.ready if u in here]
    waiting = [person_text(u, locale) for u in here if u not in offer.ready]
    lines.append(translate(msg("rematch.ready_list", count=len(ready),
                               who=", ".join(ready) or "—"), locale))
    if waiting and state.started is None and not (closed or offer.closed):
        lines.append(translate(msg("rematch.waiting", who=", ".join(waiting)), locale))
    box = discord.ui.Container[discord.ui.LayoutView](text_block("\n".join(lines)),
                                                      accent_colour=GOLD)
    if state.started is None and not (closed or offer.closed):
        box.add_item(row(button(translate(msg("rematch.ready"), locale),
                                RematchButton.id_for(record.id, "ready"), "success"),
                         button(translate(msg("rematch.start"), locale),
                                RematchButton.id_for(record.id, "start"), "primary")))
    return layout(box)


def end_buttons(table: int, locale: str) -> discord.ui.ActionRow[discord.ui.LayoutView]:
    """The Replay and Rematch buttons of a finished table's message."""
    return row(button(translate(msg("replay.open"), locale),
                      ReplayButton.id_for(table, 0, False, "open")),
               button(translate(msg("rematch.button"), locale),
                      RematchButton.id_for(table, "offer"), "success"))


__all__ = ["MENU_OPTIONS", "bookmark_options", "end_buttons", "goto", "history_view",
           "rematch_view", "replay_view"]
