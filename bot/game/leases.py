"""Which tables' background work this process does: a table's AI turns, its turn timer and its
resumption after a restart are done only by the process holding the table's lease in the store
(:class:`~bot.storage.interface.LeaseStorage`), so two processes never play the same AI turn or
fire the same timer.

A process claims a table once (when it first has work there, or when the table's lease lapsed:
never taken, or its holder stopped renewing it), and renews all its leases in one write every
:data:`LEASE_TTL` / 3 seconds (:meth:`Leases.keep`): a move costs no lease write. It knows
which tables it holds and until when without asking the store; when that knowledge is out of
date (a pause longer than the lease), the next question renews first. The owner's name stays the
same across the process's restarts, so a restarted process takes its own leases back at once.

A process running some of the shards takes up the tables of its servers: the ones nobody holds
yet, and on each pass those another process holds (:meth:`Leases.keep`). A process that took
over a stopped one's tables so hands them back once it is running again, and a server's clicks
and its tables' background work (and messages) stay in one process. The process that let a
table go hears of it at once, as of a change of the table, and asks the store
(:meth:`Leases.confirm`); a change it missed shows on its next pass. Two processes running
the same shard (a configuration to mend) would take its tables from each other on every pass:
once that is seen, a process says so (:attr:`Leases.shared`) and takes no more tables home.
With SQLite one process owns the file and every claim is granted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from bot.storage.interface import Storage
from bot.storage.records import Shards
from bot.supervision.tasks import Misconfigured


def instance_name(instance: str | None, shard_ids: Sequence[int] | None) -> str:
    """A process's name as a lease owner, the same across its restarts and different for each
    process: ``instance`` (``KARAK_INSTANCE``), else its shards (``shards-2,3``), else
    ``main`` (one process running every shard)."""
    if instance:
        return instance
    return "shards-" + ",".join(str(i) for i in shard_ids) if shard_ids else "main"


#: Seconds a lease lasts unless renewed: a stopped process's tables move again within about
#: this long (plus the time until another process's next pass, a third of it).
LEASE_TTL = 15.0
#: Passes that found a table this process took home taken from it again, with no quiet pass
#: between them (one after which no table came home and none was taken again): then another
#: process runs one of its shards too.
CONTESTED_PASSES = 2


class SharedShards(Misconfigured):
    """Another process runs some of this process's shards too (a configuration to mend: each
    shard belongs to one process): the two took their servers' tables from each other."""

    def __init__(self, shards: Shards) -> None:
        ids = ", ".join(str(i) for i in shards.ids)
        super().__init__(
            f"another process runs shard(s) {ids} of {shards.count} as well, and takes this "
            "process's tables on each pass: give each shard to one process only "
            "(KARAK_SHARD_IDS). Until then tables no longer go home.")
        self.shards = shards


@dataclass(frozen=True)
class Pass:
    """What one pass of :meth:`Leases.keep` changed: the tables this process holds now and did
    not before (``taken``), and those another process took from it since the last pass
    (``lost``). A table another process took and this pass took back (home, or lapsed) is in
    both: what this process knew of its messages is out of date, as the other may have shown
    it meanwhile."""

    taken: list[int]
    lost: list[int]


@dataclass
class Leases:
    """The leases ``owner`` holds in ``store`` (``clock``: the store's, injectable for tests)."""

    store: Storage
    owner: str
    ttl: float = LEASE_TTL
    clock: Callable[[], float] = time.time
    #: The tables held, each until when (as of the last claim or renewal).
    _until: dict[int, float] = field(default_factory=dict)
    #: Tables another process held when claimed, each until when not to ask again.
    _elsewhere: dict[int, float] = field(default_factory=dict)
    #: Tables that ended: their lease is given up on the next pass.
    _ended: set[int] = field(default_factory=set)
    #: Tables another process took since the last pass.
    _lost: set[int] = field(default_factory=set)
    _last_pass: float = -math.inf
    #: The shards this process runs (None: every shard): a table nobody took yet is claimed
    #: only by a process of its server's shard, so a server's clicks and its tables'
    #: background work stay in one process; a stopped process's tables are anyone's.
    shards: Shards | None = None
    #: The tables the last pass took home and those the pass before it took, watched until
    #: the next pass has taken its own (a process running the same shards may take one
    #: while this one takes tables home), and those of them taken again.
    _came_home: set[int] = field(default_factory=set)
    _came_before: set[int] = field(default_factory=set)
    _taken_again: set[int] = field(default_factory=set)
    #: Passes that found a table taken again after it came home, since the last quiet one.
    _contested: int = 0
    #: Set once another process is found running this process's shards: from then on no
    #: table is taken home (the two would take them from each other on every pass).
    shared: SharedShards | None = None

    def ours(self, guild_id: int | None) -> bool:
        """Whether server ``guild_id`` is heard on this process's shards (direct messages:
        shard 0; every server when it runs them all): its new tables are this process's to
        begin and take up."""
        return self.shards is None or self.shards.hear(guild_id)

    def holds(self, table: int) -> bool:
        """True while this process holds the lease of ``table`` (no question to the store)."""
        return self._until.get(table, -math.inf) > self.clock()

    def unsure(self, table: int) -> bool:
        """True when another process may have taken ``table`` up since this process last knew
        it held it (no question to the store): its hold ran out unrenewed (a stall longer than
        the lease), or a renewal found it taken and the next pass has not let it go yet. A
        table never held here is not (the process of its server's shard shows it)."""
        if table in self._lost:
            return True
        until = self._until.get(table)
        return until is not None and until <= self.clock()

    def held(self) -> list[int]:
        """The tables whose lease this process holds now, in order."""
        now = self.clock()
        return sorted(t for t, until in self._until.items() if until > now)

    async def holding(self, table: int) -> bool:
        """True when this process holds the lease of ``table``: claimed if it is nobody's (a
        table held by another process is not asked for again before its lease could lapse;
        the next pass of :meth:`keep` finds it then); renewed first when this process's hold
        may have expired."""
        if self.holds(table):
            return True
        if table in self._until:
            await self.renew()
            return self.holds(table)
        if self._elsewhere.get(table, -math.inf) > self.clock():
            return False
        return await self.claim(table)

    async def claim(self, table: int) -> bool:
        """Claim the lease of ``table``; True when granted."""
        start = self.clock()
        if await self.store.claim(table, self.owner, self.ttl):
            self._granted(table, start)
            return True
        self._until.pop(table, None)
        self._elsewhere[table] = start + self.ttl
        return False

    async def confirm(self, table: int) -> bool:
        """True when this process still holds ``table``, asked of the store (the lease is
        renewed then): a change another process made may have been taking the table home.
        When another process holds it now, this one holds it no more, and the next pass does
        not report it lost again."""
        if await self.claim(table):
            return True
        self._note_lost([table])
        return False

    def _note_lost(self, tables: Iterable[int]) -> None:
        """Another process took ``tables``: one that came home on the last pass was taken by
        a process of the same shard."""
        self._taken_again.update(t for t in tables
                                 if t in self._came_home or t in self._came_before)

    def _granted(self, table: int, start: float) -> None:
        """The lease of ``table``, asked for at ``start``, was granted."""
        self._until[table] = start + self.ttl
        self._elsewhere.pop(table, None)

    async def renew(self) -> None:
        """Renew every lease this process holds (one write); a lease another process took
        meanwhile is no longer held."""
        start = self.clock()
        renewed = await self.store.renew(self.owner, self.ttl)
        claimed_since = {t: until for t, until in self._until.items()
                         if until - self.ttl >= start}
        before = self._until
        self._until = {**claimed_since, **{t: start + self.ttl for t in renewed}}
        lost = [t for t in before if t not in self._until]
        self._lost.update(lost)
        self._note_lost(lost)

    async def keep(self) -> Pass:
        """One pass: give up the leases of tables that ended, renew the others, claim the
        tables whose lease lapsed and take back this process's servers' tables that another
        process holds; the tables newly held (to resume: a stopped process's, its own servers',
        tables nobody held yet) and those lost since the last pass."""
        self._last_pass = self.clock()
        for table in sorted(self._ended):
            await self.store.release(table, self.owner)
            self._ended.discard(table)
        before = set(self.held())
        await self.renew()
        for table in await self.store.lapsed(self.shards):
            await self.claim(table)
        self._check_shared()
        came: set[int] = set()
        if self.shards is not None and self.shared is None:
            start = self.clock()
            came = set(await self.store.home(self.owner, self.shards, self.ttl))
            for table in came:
                self._granted(table, start)
        self._came_before, self._came_home = self._came_home, came
        lost, self._lost = self._lost, set()
        # a table lost and taken back within the pass: the other process may have shown it
        # meanwhile, so it is let go and taken up afresh
        return Pass(sorted({*(t for t in self.held() if t not in before),
                            *(t for t in lost if t in self._until)}), sorted(lost))

    def _check_shared(self) -> None:
        """Before taking tables home: when :data:`CONTESTED_PASSES` passes found a table that
        came home taken again, with no quiet pass between them, another process runs these
        shards too (:attr:`shared`). Two such processes whose passes overlap may each take the
        table home only every other pass, so a pass in between that took it home again is not
        quiet."""
        if self._taken_again:
            self._contested += 1
        elif not self._came_home:
            self._contested = 0
        self._taken_again = set()
        if self._contested >= CONTESTED_PASSES and self.shards is not None:
            self.shared = self.shared or SharedShards(self.shards)

    async def keep_up(self) -> Pass:
        """:meth:`keep`, when the last pass is older than a third of the lease (else nothing
        changed): the timers then fire for the tables held now."""
        if self.clock() - self._last_pass < self.ttl / 3:
            return Pass([], [])
        return await self.keep()

    async def start(self) -> list[int]:
        """On start: take back this owner's leases (a restart) and claim the lapsed ones; every
        table held."""
        await self.keep()
        return self.held()

    async def give_up(self) -> None:
        """The process stopped cleanly (no more background work): every lease it holds
        lapses now, so another process takes its tables up at its next pass, and ``python -m
        bot.admin restore`` does not take it for a bot still running."""
        self._until.clear()
        await self.store.expire(self.owner)

    def forget(self, table: int) -> None:
        """``table`` ended: its lease is given up on the next pass."""
        self._elsewhere.pop(table, None)
        if self._until.pop(table, None) is not None:
            self._ended.add(table)

    async def listen(self, wake: Callable[[int], None]) -> None:
        """Tell ``wake`` each table this process holds that another process changed (every
        table held when changes may have been missed)."""

        def heard(table: int | None) -> None:
            for held in self.held() if table is None else [table]:
                if self.holds(held):
                    wake(held)

        await self.store.subscribe(heard)


__all__ = ["CONTESTED_PASSES", "LEASE_TTL", "Leases", "Pass", "SharedShards", "instance_name"]
