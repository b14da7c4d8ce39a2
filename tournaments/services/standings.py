"""A tournament game's end, counted in its game, its match and its group's standings.

``stages.game_ended`` (one of ``games.services.game_log.ended_hooks``) calls
``count_game`` and ``decide_if_over`` with the tournament's and the match's rows locked:
the game's points go into its ``MatchGame``, then into the ``Match`` and, once the match
is decided, its group's standings are recomputed (``recount_group``) from the group's
decided matches. When a knock-out match is level after two games, or the last match of
the stage is decided, the tournament's ``check_at`` becomes now, and the caller has
``stages.do_check`` run right after the commit (else the worker does): the third game,
or the next stage. This module only counts; it starts nothing.
"""

from __future__ import annotations

from django.db import transaction

from games.models import Game

from .. import formats, live
from ..models import Entry, Match

# A game's half-points, from the winner's side: won 2, drawn 1, lost 0.
WIN, DRAW = 2, 1


def count_game(tournament, match, match_game, game, players) -> None:
    """The game's points and scores into its ``MatchGame`` and its match. A game with no
    result (aborted or annulled by moderation) counts as drawn, with no scores."""
    a_user = match.entry_a.user_id
    if game.status == Game.Status.FINISHED and game.winner_id is not None:
        pa = WIN if game.winner_id == a_user else 0
    else:
        pa = DRAW
    pb = WIN - pa
    seat_a = 0 if players[0].pk == a_user else 1
    scores = (game.score0 or 0, game.score1 or 0)
    match_game.points_a, match_game.points_b = pa, pb
    match_game.score_a, match_game.score_b = scores[seat_a], scores[1 - seat_a]
    match_game.save(update_fields=["points_a", "points_b", "score_a", "score_b"])
    if match.status == Match.Status.DECIDED:
        return  # a forfeited match: its games count no more
    match.points_a += pa
    match.points_b += pb
    match.games_played += 1
    match.save(update_fields=["points_a", "points_b", "games_played"])


def decide_if_over(tournament, match, now) -> bool:
    """Decide ``match`` if its games say so: two games with a winner, a level group match
    (drawn), or a knock-out's third game (then the written tie-break if still level).
    A level knock-out match after two games waits for its third (``check_at``)."""
    if match.games_played < 2:
        return False
    knockout = match.group is None
    if match.games_played == 2 and match.points_a == match.points_b:
        if not knockout:
            decide(tournament, match, None, Match.Decided.GAMES, now)
            return True
        tournament.check_at = now  # the third game
        return False
    if match.games_played == 2:
        winner = match.entry_a if match.points_a > match.points_b else match.entry_b
        decide(tournament, match, winner, Match.Decided.GAMES, now)
        return True
    if match.points_a != match.points_b:
        winner = match.entry_a if match.points_a > match.points_b else match.entry_b
        decide(tournament, match, winner, Match.Decided.GAMES, now)
        return True
    totals = [0, 0]
    for mg in match.games.all():
        totals[0] += mg.score_a or 0
        totals[1] += mg.score_b or 0
    side = formats.knockout_winner(
        match.points_a, match.points_b, *totals, match.entry_a.seed, match.entry_b.seed
    )
    winner = match.entry_a if side == "a" else match.entry_b
    decide(tournament, match, winner, Match.Decided.TIEBREAK, now)
    return True


def decide(tournament, match, winner, how, now) -> None:
    """The match is over: its winner (None: drawn), how; a group match recounts its
    group; the stage's last match makes the tournament due."""
    match.status = Match.Status.DECIDED
    match.winner = winner
    match.decided_by = how
    match.decided_at = now
    match.save(update_fields=["status", "winner", "decided_by", "decided_at"])
    if match.group is not None:
        recount_group(tournament, match.stage, match.group)
    if (
        not Match.objects.filter(tournament=tournament, stage=match.stage)
        .exclude(status=Match.Status.DECIDED)
        .exists()
    ):
        tournament.check_at = now


def group_results(tournament, stage, group) -> list[formats.Result]:
    return [
        formats.Result(a, b, pa, pb, w)
        for a, b, pa, pb, w in Match.objects.filter(
            tournament=tournament, stage=stage, group=group, status=Match.Status.DECIDED
        ).values_list("entry_a_id", "entry_b_id", "points_a", "points_b", "winner_id")
    ]


def recount_group(tournament, stage, group) -> list[Entry]:
    """The group's standings, recomputed from its decided matches and written to its
    entries (one read of the matches, one of the entries, one UPDATE)."""
    entries = list(Entry.objects.filter(tournament=tournament, group=group))
    results = group_results(tournament, stage, group)
    table = formats.tally({e.pk: e.seed for e in entries}, results)
    for e in entries:
        s = table[e.pk]
        e.match_points, e.game_points = s.match_points, s.game_points
        e.sonneborn_berger, e.matches_played = s.sonneborn_berger, s.played
    Entry.objects.bulk_update(
        entries, ["match_points", "game_points", "sonneborn_berger", "matches_played"]
    )
    return entries


def group_order(tournament, stage, group) -> list[int]:
    """The entry ids of a group, first place first (``formats.order``)."""
    entries = recount_group(tournament, stage, group)
    results = group_results(tournament, stage, group)
    table = formats.tally({e.pk: e.seed for e in entries}, results)
    return formats.order(table, results)


def changed(tournament) -> None:
    """Bump the version, save what changed on the row, tell open pages after commit."""
    tournament.version += 1
    tournament.save(update_fields=["version", "check_at"])
    tid, version = tournament.pk, tournament.version
    transaction.on_commit(lambda: live.changed(tid, version))
