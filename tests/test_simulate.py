"""The agents and the simulator: every choice is legal, games finish, the JSON has its fields."""

from __future__ import annotations

import json

import pytest

from engine import GameConfig, Phase, SeatConfig, apply, legal_actions, new_game, observe
from engine.agents import make_agent
from engine.agents.heuristic import TAIA_DRAW_VALUE, Context, HeuristicAgent
from engine.agents.planner import DRAW_VALUE, Outcome, Situation, plans
from engine.balance import catalogue_hash, fresh_curve, verdict
from engine.catalog import tables
from engine.observe import Observation
from engine.simulate import main, play_game, run, summarise


@pytest.mark.parametrize("kind", ["heuristic", "reach", "random"])
def test_agents_only_choose_legal_actions(kind: str) -> None:
    config = GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia"), SeatConfig("xanros")),
                        abilities=True, seed=11)
    state = new_game(config)
    agents = [make_agent(kind, i) for i in range(3)]
    for _ in range(600):
        if state.phase is Phase.OVER:
            break
        action = agents[state.current].choose(observe(state, state.current))
        assert action in legal_actions(state)
        state, _ = apply(state, action)


def test_unknown_agent_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("clever")


def test_heuristic_self_play_finishes_games() -> None:
    results = [play_game(seed, 4, "heuristic", abilities=bool(seed % 2)) for seed in range(6)]
    assert all(r.error is None for r in results)
    assert all(r.winner is not None for r in results)
    summary = summarise(results, 1.0)
    assert summary["finished"] == 6
    assert sum(v["wins"] for v in summary["wins_by_hero"].values()) == 6


def test_simulation_is_reproducible() -> None:
    a = run(3, 3, seed=5, agent="heuristic", abilities=True, workers=1)
    b = run(3, 3, seed=5, agent="heuristic", abilities=True, workers=1)
    assert [(r.winner, r.rounds, r.steps) for r in a] == [(r.winner, r.rounds, r.steps) for r in b]


def test_simulate_command_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--games", "2", "--players", "2", "--seed", "3", "--agent", "heuristic",
                 "--abilities", "off", "--workers", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("games", "finished", "errors", "rounds", "wins_by_hero", "wins_by_seat",
                "fight_win_rate_by_level"):
        assert key in out
    assert set(out["rounds"]) == {"mean", "p50", "p95", "max"}
    assert out["games"] == 2


def test_planner_respects_colour_chains() -> None:
    t = tables().actions
    hand = tables().hero_cards["horan"][:4]
    for outcome in plans(hand, Situation(hero="", curses=frozenset())):
        cards = [t[c] for c, _ in outcome.cards]
        for before, after in zip(cards, cards[1:], strict=False):
            assert after.colour in before.next


def test_planner_never_plays_a_cursed_colour_without_xanros() -> None:
    t = tables().actions
    hand = tables().hero_cards["aderyn"]
    colour = t[hand[0]].colour
    for outcome in plans(hand, Situation(hero="", curses=frozenset({colour}))):
        assert all(t[c].colour != colour for c, _ in outcome.cards)


def test_balance_verdict_and_fresh_curve() -> None:
    curve = fresh_curve(6, abilities=False)
    assert set(curve) == {"1", "2", "3", "X"}
    assert curve["X"] == 0.0  # a fresh seat never beats a Lord
    bad = {"games": 10, "finished": 9, "errors": 0,
           "wins_by_hero": {"horan": {"share": 0.40}, "taia": {"share": 0.26}}}
    problems = verdict(bad)
    assert any("did not finish" in p for p in problems)
    assert any("horan" in p for p in problems) and not any("taia" in p for p in problems)
    assert len(catalogue_hash()) == 12


def test_an_illegal_agent_move_is_counted_as_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.simulate as simulate
    from engine.actions import EndBattle

    class Cheater:
        """Ends a battle that was never started."""

        def choose(self, observation: Observation) -> EndBattle:
            return EndBattle()

    monkeypatch.setattr(simulate, "make_agent", lambda kind, seed: Cheater())
    result = play_game(3, 2, "random", abilities=False)
    assert result.error is not None and result.error.startswith("IllegalAction")
    assert result.winner is None
    summary = summarise([result], 1.0)
    assert summary["errors"] == 1 and summary["finished"] == 0


def test_a_stalled_self_play_game_still_ends() -> None:
    """Seed 9461 without abilities once went past the round cap: every seat stuck before
    monsters it could not beat, cycling its hand. Late in a game potions are worth a good card."""
    result = play_game(9461, 4, "heuristic", abilities=False)
    assert result.error is None and result.winner is not None
    assert result.rounds <= 60


def _first_turn(hero: str, abilities: bool) -> Observation:
    """The opening observation of a two-seat game in which ``hero`` moves first."""
    for seed in range(1, 50):
        state = new_game(GameConfig(seats=(SeatConfig(hero, ai=True), SeatConfig(
            "argentus" if hero != "argentus" else "horan", ai=True)), abilities=abilities,
            seed=seed))
        if state.seats[state.current].hero == hero:
            return observe(state, state.current)
    raise AssertionError(f"no seed lets {hero} move first")


def test_heuristic_counts_taias_draws_as_the_better_of_two_only_with_abilities() -> None:
    agent = HeuristicAgent()
    monster = next(m for m in tables().monsters.values() if m.level == 1)

    def context(hero: str, abilities: bool) -> Context:
        return agent._context(_first_turn(hero, abilities), monster.id, frozenset(), 1)

    taia_on, taia_off, horan_on = context("taia", True), context("taia", False), \
        context("horan", True)
    assert (taia_on.draw_value, taia_off.draw_value, horan_on.draw_value) == (
        TAIA_DRAW_VALUE, DRAW_VALUE, DRAW_VALUE)
    assert TAIA_DRAW_VALUE > DRAW_VALUE
    # the same losing plan (two draws, no attack) looks more promising to Taia when her draws
    # keep the better card
    drawn = Outcome((), 0, 0, 0, 2, 0, 0, False)
    better = agent._forecast(taia_on, drawn, 0, 0, 5, False)
    plain = agent._forecast(taia_off, drawn, 0, 0, 5, False)
    assert better.margin > plain.margin and better.score > plain.score


def test_settle_takes_the_process_objects_out_of_the_collector() -> None:
    import gc

    from engine.simulate import settle

    try:
        settle()
        assert gc.get_freeze_count() > 10_000  # the modules and the catalogue, at least
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
