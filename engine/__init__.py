"""The Karak: Goblin rules engine: pure Python, immutable states, seeded and replayable.

The API reads like the game::

    state = new_game(GameConfig(seats=(SeatConfig("horan"), SeatConfig("taia")), seed=7))
    for action in legal_actions(state): ...
    state, events = apply(state, parse("fight:1-3"))
    view = observe(state, viewer=0)

Every random choice comes from the generator stored in the state, so ``replay(config, actions)``
rebuilds the identical game. A seat may take back its own moves within its turn (``undo``, offered
by ``legal_actions`` until a card is revealed or something is left to chance; see
:mod:`engine.undo`).
"""

from engine.actions import (
    Action,
    BuyPawned,
    BuyPotion,
    CancelPurchase,
    Discard,
    DrinkCountercurse,
    DrinkHealing,
    DrinkStrength,
    EndBattle,
    Fight,
    KeepDrawn,
    LeaveMerchant,
    Pay,
    Play,
    Revive,
    SetStacking,
    TakeReward,
    Undo,
    VisitMerchant,
    parse,
)
from engine.battle import Totals, totals
from engine.errors import BadNotation, BadState, EngineError, IllegalAction, NotYourTurn
from engine.observe import Observation, observe
from engine.replay import replay
from engine.rules import apply, legal_actions
from engine.serialize import anchor_to_json, state_from_json, state_to_json
from engine.setup import ConfigError, new_game
from engine.state import Event, GameConfig, GameState, Phase, SeatConfig

__all__ = [
    "Action", "BadNotation", "BadState", "BuyPawned", "BuyPotion", "CancelPurchase",
    "ConfigError", "Discard", "DrinkCountercurse", "DrinkHealing", "DrinkStrength", "EndBattle",
    "EngineError", "Event", "Fight", "GameConfig", "GameState", "IllegalAction", "KeepDrawn",
    "LeaveMerchant", "NotYourTurn", "Observation", "Pay", "Phase", "Play", "Revive", "SeatConfig",
    "SetStacking", "TakeReward", "Totals", "Undo", "VisitMerchant", "anchor_to_json", "apply",
    "legal_actions",
    "new_game", "observe", "parse", "replay", "state_from_json", "state_to_json", "totals",
]
