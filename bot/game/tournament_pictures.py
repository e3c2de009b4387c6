"""A tournament's pictures from its state: the standings after the last round seated and, at the
end, the champion (:mod:`render.tournament` draws them; :mod:`bot.game.tournament` ranks)."""

from __future__ import annotations

from bot.game.people import forgotten, person_text
from bot.game.tournament import Tournament, champion, is_over, standings, total_rounds
from render.tournament import StandingLine, champion_image, standings_image


def standing_lines(tournament: Tournament, locale: str = "en") -> tuple[StandingLine, ...]:
    """The standings as the pictures draw them, best first; the bye marked is the one of the
    last round seated; a player forgotten on request named as every message names them, in
    ``locale``."""
    bye = tournament.rounds[-1].seating.bye if tournament.rounds else None
    return tuple(StandingLine(place=s.place,
                              name=person_text(s.user, locale) if forgotten(s.user) else s.name,
                              points=s.points,
                              opponents=s.opponents, wins=s.wins, dropped=s.dropped,
                              bye=s.user == bye, by_lot=s.by_lot, rating=s.rating)
                 for s in standings(tournament))


def standings_picture(tournament: Tournament, locale: str = "en") -> bytes:
    """PNG of the standings after the last round seated (final once the tournament is over)."""
    return standings_image(standing_lines(tournament, locale), tournament.settings.name,
                           len(tournament.rounds), total_rounds(tournament), locale,
                           final=is_over(tournament))


def champion_picture(tournament: Tournament, locale: str = "en") -> bytes | None:
    """PNG of the champion and the podium (None while the tournament goes on)."""
    if champion(tournament) is None:
        return None
    return champion_image(standing_lines(tournament, locale), tournament.settings.name,
                          len(tournament.rounds), len(tournament.entrants), locale)


__all__ = ["champion_picture", "standing_lines", "standings_picture"]
