"""Choosing the moves of AI seats without holding the bot up.

An easy or normal decision takes a millisecond or two and is made at once. A hard decision
searches for up to a second, so it runs in a worker process (:mod:`bot.workers.pool`: at a lower
CPU priority, dying with the bot), with a time budget. A worker that dies or does not answer in
time costs one decision, which is made at normal level instead; the next hard decision gets a
fresh worker. With no worker processes (``workers=0``) hard decisions are made in a thread.
An agent that fails, or picks a move that is not legal, is logged once per kind of failure, and
a legal move is played anyway: the table never stalls.

A player's hint (:func:`engine.agents.hint.hint`, the hard level's iteration budget, so the same
decision always gets the same hint) runs in a pool of its own, :data:`HINT_WORKERS` worker
processes: a hint never takes the worker a hard decision is waiting for (a job is not
interrupted once started, and a hint takes up to a fifth of a second of CPU), a queue of hard
decisions never holds a hint back, and two people's hints asked at once are worked out side by
side. The workers run below the bot's own priority, and the hard AI's search stops on its clock,
so a hint worked out meanwhile does not slow the AI seats' pace (easy and normal seats decide in
the bot's own process, above them). A hint comes back as data (:func:`pack_hint`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import msgspec

from bot.workers.pool import WorkerPool
from engine import Action, Observation, parse
from engine.agents import DEFAULT_LEVEL, make_agent
from engine.agents.hint import Hint, hint
from engine.agents.search import DEFAULT_ITERATIONS
from engine.observe import unpacked
from i18n import Msg

log = logging.getLogger("karak.bot")
#: Seconds a hard decision may search (``KARAK_AI_THINK``).
THINK_SECONDS = 1.0
#: Seconds a worker gets beyond the budget (starting, loading the engine) before the decision is
#: made at normal level instead.
SLACK = 15.0
#: What a worker runs: (level, seed, observation, seconds) -> the chosen move's notation.
Decide = Callable[[str, int, Observation, float | None], str]
#: A hard decision to make: what decides, the level, the seed, the observation and the budget.
Question = tuple[Decide, str, int, Observation, float]
#: What a hint worker runs: (observation, iterations) -> the hint.
Advise = Callable[[Observation, int], Hint]
#: A hint to work out: what works it out, the observation and the iteration budget.
HintQuestion = tuple[Advise, Observation, int]
#: Seconds a hint may take in its worker (starting it included) before it is given up.
HINT_LIMIT = 15.0
#: Worker processes for hints (with worker processes at all): one a core of a small machine.
HINT_WORKERS = 2


def decide(level: str, seed: int, obs: Observation, seconds: float | None) -> str:
    """The notation of the move an agent of ``level`` picks (``seconds``: the budget of a hard
    search). Runs in a worker process for hard decisions."""
    return str(make_agent(level, seed, seconds=seconds).choose(obs))


def pack(question: Question) -> bytes:
    """A decision as a worker reads it (the deciding function by its module and name)."""
    work, level, seed, obs, seconds = question
    return msgspec.msgpack.encode((f"{work.__module__}:{work.__qualname__}", level, seed,
                                   obs.packed(), seconds))


def decide_packed(job: bytes) -> bytes:
    """A worker's job (see :func:`pack`): the chosen move's notation."""
    from bot.workers.pool import handler

    name, level, seed, obs, seconds = msgspec.msgpack.decode(job)
    work: Decide = handler(name)  # type: ignore[assignment]
    return work(level, seed, unpacked(obs), seconds).encode()


def decide_here(question: Question) -> bytes:
    """Make a hard decision in this process (the thread of a pool without workers)."""
    work, level, seed, obs, seconds = question
    return work(level, seed, obs, seconds).encode()


def advise(obs: Observation, iterations: int) -> Hint:
    """The hint for the observing seat, searched for ``iterations`` deals (no clock: the same
    observation always gets the same hint). Runs in the hint worker."""
    return hint(obs, iterations=iterations)


class PackedHint(msgspec.Struct, frozen=True):
    """A hint as data: its moves by their notation (an action's kind is in its notation)."""

    best: str
    moves: tuple[tuple[str, float], ...]
    reason: Msg
    margins: tuple[float, ...] = ()  # absent from hints kept before margins were given


def pack_hint(advice: Hint) -> bytes:
    """A hint as bytes (:func:`unpack_hint` reads them back)."""
    return msgspec.msgpack.encode(PackedHint(
        str(advice.best), tuple((str(a), chance) for a, chance in advice.moves), advice.reason,
        advice.margins))


def unpack_hint(data: bytes) -> Hint:
    """The hint :func:`pack_hint` packed; raises ValueError on damaged data."""
    try:
        packed = msgspec.msgpack.decode(data, type=PackedHint)
        return Hint(parse(packed.best), tuple((parse(a), c) for a, c in packed.moves),
                    packed.reason, packed.margins)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(str(exc)) from exc


def pack_hint_question(question: HintQuestion) -> bytes:
    """A hint to work out, as a worker reads it."""
    work, obs, iterations = question
    return msgspec.msgpack.encode((f"{work.__module__}:{work.__qualname__}", obs.packed(),
                                   iterations))


def hint_packed(job: bytes) -> bytes:
    """A hint worker's job (see :func:`pack_hint_question`): the packed hint."""
    from bot.workers.pool import handler

    name, obs, iterations = msgspec.msgpack.decode(job)
    work: Advise = handler(name)  # type: ignore[assignment]
    return pack_hint(work(unpacked(obs), iterations))


def hint_here(question: HintQuestion) -> bytes:
    """Work a hint out in this process (the thread of a pool without workers)."""
    work, obs, iterations = question
    return pack_hint(work(obs, iterations))


make_agent("hard")  # a worker loads the search before its first decision


class Thinking:
    """Makes the decisions of AI seats: hard ones in worker processes, the others at once."""

    def __init__(self, workers: int = 1, seconds: float = THINK_SECONDS,
                 work: Decide = decide, slack: float = SLACK, advise: Advise = advise,
                 hint_iterations: int = DEFAULT_ITERATIONS,
                 hint_workers: int = HINT_WORKERS) -> None:
        self.workers = workers
        self.seconds = seconds
        self.slack = slack
        self.work = work  # what a worker runs (tests put a failing or waiting one here)
        self.advise = advise  # what the hint worker runs (tests put a waiting one here)
        self.hint_iterations = hint_iterations
        self.pool: WorkerPool[Question] = WorkerPool(
            "bot.workers.thinking:decide_packed", pack, decide_here, workers,
            thread_name="thinking")
        self.hints: WorkerPool[HintQuestion] = WorkerPool(
            "bot.workers.thinking:hint_packed", pack_hint_question, hint_here,
            hint_workers if workers > 0 else 0, thread_name="hints")
        self._told: set[str] = set()  # the kinds of agent failure logged already

    async def choose(self, level: str, seed: int, obs: Observation) -> Action:
        """A legal move for the observing seat at ``level``; never raises for a worker's or an
        agent's trouble (the move is then normal's, or the first legal one)."""
        if level == "hard":
            try:
                answer = await self.pool.run((self.work, level, seed, obs, self.seconds),
                                             limit=self.seconds + self.slack)
                action = parse(answer.decode())
            except Exception as exc:  # noqa: BLE001 - any failure: the move is normal's
                log.warning("a hard AI decision failed (%s: %s); playing it at normal level",
                            type(exc).__name__, exc)
                level = DEFAULT_LEVEL
                action = self._near(level, seed, obs)
        else:
            action = self._near(level, seed, obs)
        if action in obs.legal:
            return action
        self._tell(f"illegal:{level}", "the %s AI chose %s, which is not legal here; playing "
                   "%s instead (logged once)", level, action, obs.legal[0])
        return obs.legal[0]

    def _near(self, level: str, seed: int, obs: Observation) -> Action:
        """A quick decision, made in the event loop; the first legal move if the agent fails."""
        try:
            return make_agent(level, seed).choose(obs)
        except Exception as exc:  # noqa: BLE001 - an agent bug stalls no table
            self._tell(f"error:{level}:{type(exc).__name__}", "the %s AI failed (%s: %s); "
                       "playing the first legal move (logged once)", level,
                       type(exc).__name__, exc)
            return obs.legal[0]

    def _tell(self, kind: str, text: str, *args: object) -> None:
        """Log an agent's failure the first time this kind of failure happens."""
        if kind not in self._told:
            self._told.add(kind)
            log.error(text, *args)

    def prepare_hints(self) -> None:
        """Start the hint workers ahead of a first hint (a Hint button is shown), so it does not
        wait for processes to start."""
        self.hints.start()

    async def hint(self, obs: Observation) -> Hint:
        """The hint for the observing seat, worked out in a hint worker; raises
        :class:`~bot.workers.pool.WorkerGone` or :class:`~bot.workers.pool.JobFailed` when
        it could not be."""
        answer = await self.hints.run((self.advise, obs, self.hint_iterations),
                                      limit=HINT_LIMIT)
        return unpack_hint(answer)

    async def close(self) -> None:
        """Stop the worker processes."""
        await self.pool.close()
        await self.hints.close()


__all__ = ["HINT_LIMIT", "HINT_WORKERS", "SLACK", "THINK_SECONDS", "PackedHint", "Thinking",
           "advise", "decide", "pack_hint", "unpack_hint"]
