"""Messages as a French or Czech reader (or, for a plural name, an English one) gets
them: names in the case or with the article their place in the sentence needs, verbs and role
nouns agreeing with the name they go with, counts agreeing with their own number, and one word
for one game term."""

from __future__ import annotations

import pytest

from bot.game.texts import describe
from engine import GameConfig, Pay, Phase, SeatConfig, apply, new_game, observe
from engine.agents import make_agent
from engine.names import card_name, word
from i18n import catalog, msg, translate
from i18n.grammar import Name


def _fr(key: str, **params: object) -> str:
    return translate(msg(key, **params), "fr")  # type: ignore[arg-type]


def _cs(key: str, **params: object) -> str:
    return translate(msg(key, **params), "cs")  # type: ignore[arg-type]


def test_french_wins_agree_with_their_own_number() -> None:
    """"5 parties jouées, 1 gagnées": the wins took the plural of the games played."""
    for count, wins in ((5, 1), (5, 0), (3, 2)):
        text = _fr("ratings.stats.games", count=count, wins=wins)
        assert f" {wins} gagnées" not in text and f" {wins} gagnée." not in text, text
        assert str(wins) in text and str(count) in text, text


def test_french_first_place_is_not_written_1e() -> None:
    text = _fr("ratings.stats.rating", rating=1520, spread=40, place=1, ranked=6)
    assert "1ᵉ " not in text, text


@pytest.mark.parametrize("gatekeeper", ["g1-4", "g2-3", "g2-5", "g3-5"])
def test_a_french_gatekeeper_of_feminine_name_is_a_gardienne(gatekeeper: str) -> None:
    name = catalog("fr")[f"card.{gatekeeper}"]
    assert isinstance(name, Name) and name.gender == "f"
    text = _fr("bot.move.fight_gate", monster=msg(f"card.{gatekeeper}"), level="II")
    assert ", gardienne du niveau\u00a0II" in text, text
    assert _fr("bot.move.fight_gate", monster=msg("card.g1-1"), level="I").endswith(
        ", gardien du niveau\u00a0I")


@pytest.mark.parametrize(("key", "plural", "singular"), [
    ("hint.chain", "prolongent", "prolonge"),
    ("hint.discard", "sont", "est"),
    ("error.no_effect", "n'ont", "n'a"),
    ("error.strength_no_effect", "n'ont", "n'a"),
])
def test_a_french_card_of_plural_name_takes_a_plural_verb(key: str, plural: str,
                                                           singular: str) -> None:
    """Aderyn's "Dagues jumelles" is a plural name: "Les Dagues jumelles n'a pas..." read
    wrong."""
    twin = _fr(key, card=card_name("ade3"), effect=word("effect", "defence"))
    assert twin.startswith(f"Les Dagues jumelles {plural} "), twin
    single = _fr(key, card=card_name("vic1"), effect=word("effect", "defence"))
    assert single.startswith(f"L'Estocade {singular} "), single


@pytest.mark.parametrize(("key", "plural", "singular"), [
    ("hint.chain", "keep", "keeps"),
    ("hint.discard", "are", "is"),
    ("error.no_effect", "have", "has"),
    ("error.strength_no_effect", "have", "has"),
    ("error.wrong_colour", "do", "does"),
])
def test_an_english_card_of_plural_name_takes_a_plural_verb(key: str, plural: str,
                                                             singular: str) -> None:
    """"Twin Daggers has no defence to count" read wrong: the name is plural."""
    params = {"card": card_name("ade3"), "effect": word("effect", "defence"),
              "colour": word("colour", "red")}
    twin = translate(msg(key, **params), "en")  # type: ignore[arg-type]
    assert twin.startswith(f"Twin Daggers {plural} "), twin
    params["card"] = card_name("vic1")
    single = translate(msg(key, **params), "en")  # type: ignore[arg-type]
    assert single.startswith(f"{translate(card_name('vic1'), 'en')} {singular} "), single


def test_the_one_french_reward_card_to_pay_with_takes_its_article() -> None:
    text = _fr("bot.facts.reward_cards", count=1, cards=card_name("m1-05"))
    assert "avec le Piège de toile, la carte" in text, text


@pytest.mark.parametrize("bought", ["m1-10", "m2-01", "m2-14"])
def test_czech_purchase_never_puts_a_nominative_where_an_accusative_goes(bought: str) -> None:
    """"kupuje u obchodníka Dýka": the object of "kupuje" in the nominative."""
    text = _cs("event.bought", who="Eva", item=card_name(bought), paid=card_name("m1-03"))
    name = translate(card_name(bought), "cs")
    assert f"kupuje u obchodníka {name}" not in text, text
    assert name in text and "Zvědova lest" in text, text


def _pay_from_equipment() -> tuple[Pay, object]:
    """A Pay move from a worn weapon or armour, with the observation that offers it."""
    for seed in range(40):
        config = GameConfig(tuple(SeatConfig(h, h) for h in ("horan", "argentus", "aderyn")),
                            seed=seed)
        state = new_game(config)
        agents = [make_agent("random", seed * 10 + i) for i in range(3)]
        for _ in range(1500):
            if state.phase is Phase.OVER:
                break
            obs = observe(state, state.current)
            for action in obs.legal:
                if isinstance(action, Pay) and action.source in ("weapon", "armour"):
                    return action, obs
            state, _ = apply(state, agents[state.current].choose(obs))
    raise AssertionError("no game paid with equipment")


def test_paying_with_equipment_names_the_card_paid() -> None:
    """The Czech label said "Zaplatit kartou zbroj" (pay with the card armour): the button
    names the worn card, as the hint and the take-back already do."""
    action, obs = _pay_from_equipment()
    worn = getattr(obs.seats[obs.current], action.source)  # type: ignore[attr-defined]
    label = describe(action, obs).label  # type: ignore[arg-type]
    assert translate(label, "cs") == f"Zaplatit kartou {translate(card_name(worn), 'cs')}"
    assert translate(label, "en") == f"Pay with {translate(card_name(worn), 'en')}"
    assert translate(label, "fr").startswith("Payer avec l")


def test_czech_says_akce_for_a_move_in_every_hint() -> None:
    assert "tímto tahem" not in _cs("hint.heal", count=5)
    assert "akcí" in _cs("hint.heal", count=5)


def test_czech_abandon_question_says_ukoncit_not_leave() -> None:
    """Abandoning a table ends the match for everyone: "opustit stůl" is leaving it."""
    text = _cs("bot.channel.abandon_ask", table=4)
    assert text.startswith("Opravdu ukončit stůl č.\u00a04?"), text
    assert "skončí všem hráčům" not in text, text


@pytest.mark.parametrize("key", ["bot.tournament.ai_fill_rule",
                                 "bot.tournament.signup.terms.tables_ai"])
def test_czech_ai_seats_take_places_in_the_standings(key: str) -> None:
    text = _cs(key, size=4)
    assert "obsazuje pořadí" not in text and "místa v pořadí" in text, text



def test_french_turns_list_puts_your_move_first() -> None:
    """"celles où vous jouez d'abord" said "the ones where you play first"; the list shows the
    matches where it is your move first."""
    text = _fr("turns.cmd.turns")
    assert "d'abord celles où c'est à vous de jouer" in text and len(text) <= 100, text


def test_french_says_you_play_no_match_not_you_sit_at_one() -> None:
    text = _fr("turns.list.none")
    assert "assis à aucune partie" not in text and text.startswith(
        "Vous ne jouez aucune partie en cours."), text


def test_czech_says_you_play_no_match_and_to_open_a_new_one() -> None:
    """"Nesedíte u žádné rozehrané hry. Založte ji…": one sits at a table, not at a match, and
    "ji" pointed back at the match said not to exist."""
    text = _cs("turns.list.none")
    assert text.startswith("Nehrajete žádnou rozehranou hru. Založte novou "), text


def test_czech_turns_line_names_the_opponents_as_opponents() -> None:
    """"Stůl č. 4 proti: Eva, Jan; …" read as a form field: "proti" needs the dative, which
    names in the 1st case cannot take, so they are named as the opponents: one opponent in the
    singular ("soupeři" said of one was wrong), two or three in the plural, counted."""
    one = _cs("turns.list.your_line", table=4, link="https://x", opponents="Eva",
              left="zbývá 3 h", count=1)
    two = _cs("turns.list.your_line", table=4, link="https://x", opponents="Eva a Jan",
              left="zbývá 3 h", count=2)
    assert "proti:" not in one + two
    assert one == "[Stůl č.\u00a04](https://x), soupeř: Eva; zbývá 3 h.", one
    assert two == "[Stůl č.\u00a04](https://x), 2 soupeři: Eva a Jan; zbývá 3 h.", two


def test_czech_thread_option_says_by_default() -> None:
    """"(výchozí tam, kde…)" left out the noun "výchozí" needs; the hints option says "ve
    výchozím stavu"."""
    text = _cs("bot.cmd.new_thread")
    assert "ve výchozím stavu tam, kde" in text and len(text) <= 100, text


@pytest.mark.parametrize("key", ["bot.tournament.seating_rule", "bot.tournament.tiebreak_rule",
                                 "render.tournament.tie_rule",
                                 "bot.tournament.signup.terms.ties"])
def test_french_tournament_rating_is_not_read_as_its_standings(key: str) -> None:
    """French calls a rating "classement", as it does the tournament's standings: "départagés
    … puis par leur classement" read as "by their standings"; the rating is the server's."""
    text = _fr(key)
    assert "classement sur le serveur" in text, text


@pytest.mark.parametrize(("locale", "yours"), [("en", ("you", "your")),
                                               ("fr", ("vous", "vos", "votre")),
                                               ("cs", ("vaše", "vašich", "vás", "vám"))])
def test_a_guided_match_s_public_note_speaks_to_everyone(locale: str, yours: tuple[str, ...]
                                                         ) -> None:
    """The note under a guided match that ended is posted where everyone reads it (its table
    message, the channel's line of its thread): it must not speak to the reader as its
    learner."""
    words = translate(msg("ratings.note.guided"), locale).lower()
    for sign in ",.:;!?()":
        words = words.replace(sign, " ")
    assert not set(yours) & set(words.split()), (locale, words)
