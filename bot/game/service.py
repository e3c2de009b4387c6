"""The game service: the parts that decide every rule and right of the bot's tables, built
together over one storage backend and handed as one value to the Discord side.

- :attr:`GameService.tables`: table access (the per-table lock, loading);
- :attr:`GameService.limit`: how many matches one person may start at once;
- :attr:`GameService.lobby`: seats before the game, starting and closing a table;
- :attr:`GameService.play`: moves, AI seats and turn timers;
- :attr:`GameService.hints`: people's hints;
- :attr:`GameService.servers`: the servers' settings;
- :attr:`GameService.standings`: ratings, records and leaderboards;
- :attr:`GameService.meta`: the bot's own metadata (command sync, results posted);
- :attr:`GameService.history`: past matches and their replays;
- :attr:`GameService.rematches`: playing a finished table again.
- :attr:`GameService.story`: what happened lately at a table, told again.
- :attr:`GameService.tournaments`: server tournaments, their rounds and champion.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.game.hints import Hints
from bot.game.history import History
from bot.game.limits import MATCH_LIMIT, MatchLimit
from bot.game.lobby import Lobby, new_seed
from bot.game.meta import BotMeta
from bot.game.people import People
from bot.game.play import Play
from bot.game.rematch import Rematches
from bot.game.servers import Servers
from bot.game.shares import Shares
from bot.game.standings import Standings
from bot.game.story import Story
from bot.game.tables import Tables
from bot.game.tournaments import Tournaments
from bot.game.turns import Turns
from bot.storage.interface import Storage
from bot.workers.thinking import Thinking


@dataclass
class GameService:
    """Every part of the game service over ``store`` (``clock`` and ``seeds`` are injectable
    for tests; ``default_timer`` is the turn timer of a server that never chose one;
    ``match_limit`` how many matches one person may start at once, 0: no limit)."""

    store: Storage
    default_timer: int = 0
    match_limit: int = MATCH_LIMIT
    default_threads: bool = True  # a server that never chose plays each match in a thread
    clock: Callable[[], float] = time.time
    seeds: Callable[[], int] = field(default=new_seed)
    thinking: Thinking = field(default_factory=Thinking)
    tables: Tables = field(init=False)
    limit: MatchLimit = field(init=False)
    servers: Servers = field(init=False)
    lobby: Lobby = field(init=False)
    play: Play = field(init=False)
    hints: Hints = field(init=False)
    meta: BotMeta = field(init=False)
    history: History = field(init=False)
    rematches: Rematches = field(init=False)
    standings: Standings = field(init=False)
    story: Story = field(init=False)
    shares: Shares = field(init=False)
    people: People = field(init=False)
    turns: Turns = field(init=False)
    tournaments: Tournaments = field(init=False)

    def __post_init__(self) -> None:
        self.tables = Tables(self.store)
        self.servers = Servers(self.store, self.tables, self.default_timer,
                               self.default_threads)
        self.limit = MatchLimit(self.store, self.match_limit)
        self.lobby = Lobby(self.store, self.tables, self.servers, self.clock, self.seeds,
                           self.limit)
        self.play = Play(self.store, self.tables, self.thinking, self.clock)
        self.hints = Hints(self.store, self.tables, self.thinking, self.play.lesson,
                           self.clock)
        self.meta = BotMeta(self.store, self.tables)
        self.history = History(self.store, self.tables)
        self.rematches = Rematches(self.store, self.tables, self.lobby, self.clock, self.seeds)
        self.standings = Standings(self.store)
        self.story = Story(self.store, self.tables)
        self.shares = Shares(self.store)
        self.tournaments = Tournaments(self.store, self.tables, self.clock, self.seeds,
                                       self.servers.threads, self.servers.takebacks,
                                       self.servers.defaults)
        self.people = People(self.store, self.tables, self.lobby, self.tournaments)
        self.turns = Turns(self.store, self.clock)


__all__ = ["GameService"]
