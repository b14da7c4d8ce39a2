"""The start (the draw), each next stage, a level match's third game, the end.

Stages are numbered from 1. A round robin has one stage (one group of everyone); groups
then knock-out play the groups as stage 1 and each knock-out round as a stage after it;
a knock-out plays its rounds as stages 1, 2, … Every match of a stage is created, and
all its games started by one ``games.services.starting.start_games`` call, in the
transaction that starts the stage. The worker's job ``check_due`` reads the tournaments
whose ``check_at`` has come on ``tournament_check_idx`` and handles each with
``do_check`` in its own transaction, the row locked (two workers at once are safe: the
second finds nothing left to do). ``docs/tournaments.md`` has the rules in plain words.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.clock import Bank
from games.services.starting import NewGame, start_games
from ratings.glicko2 import DEFAULT_RATING
from ratings.models import PlayerRating
from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import Conflict, Forbidden

from .. import formats, telling
from ..models import Entry, Match, MatchGame, Tournament
from . import standings

log = logging.getLogger(__name__)

# Tournaments one round of the worker's job looks at, at most (each in its own
# transaction); the rest stay due for the next round.
CHECK_BATCH = 200


def _now(now):
    return now or timezone.now()


def do_start(tournament_id, user=None, now=None):
    """Draw the groups or the bracket by rating snake and start every game of the first
    stage at once, in one transaction. ``user``: the creator (or staff) starting early,
    once enough players signed up; None: the worker at the sign-up deadline (too few:
    cancelled). Returns the tournament."""
    now = _now(now)
    with transaction.atomic():
        tournament = locked_or_404(Tournament, tournament_id, _("No such tournament."))
        if tournament.status != Tournament.Status.SIGNUP:
            raise Conflict("not_open", _("This tournament has already started or ended."))
        count = Entry.objects.filter(tournament=tournament).count()
        if user is not None:
            if user.pk != tournament.created_by_id and not user.is_staff:
                raise Forbidden("not_creator", _("Only the creator can start this tournament."))
            if count < tournament.min_players:
                message = _("At least %(n)d players must sign up first.") % {
                    "n": tournament.min_players
                }
                raise Conflict("too_few_players", message)
        _start(tournament, now)
    return tournament


def _start(tournament, now) -> str:
    """The start at the deadline or earlier (the row locked): too few players cancel."""
    entries = list(Entry.objects.filter(tournament=tournament).select_related("user"))
    if len(entries) < max(tournament.min_players, 2):
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at, tournament.check_at = now, None
        tournament.save(update_fields=["status", "finished_at", "check_at"])
        telling.ended(tournament, entries)
        standings.changed(tournament)
        return "cancelled"
    draw(tournament, entries)
    tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
    tournament.stage, tournament.check_at = 1, None
    tournament.save(update_fields=["status", "started_at", "stage", "check_at"])
    if tournament.format == Tournament.Format.KNOCKOUT:
        pairs = _bracket_pairs(sorted(entries, key=lambda e: e.seed))
        _start_knockout_round(tournament, 1, pairs, now, tell_each=False)
    else:
        _start_groups(tournament, entries, now)
    telling.started(tournament, entries)
    standings.changed(tournament)
    return "started"


def ratings_shown(user_ids) -> dict:
    """Each player's rating as the site shows it (whole points), for those with a rated
    game (``ratings.queries.shown_rating``'s rule), in one read."""
    rows = PlayerRating.objects.filter(user_id__in=list(user_ids), games__gte=1).values_list(
        "user_id", "rating"
    )
    return {uid: min(max(round(r), 0), 32767) for uid, r in rows}


def draw(tournament, entries) -> None:
    """Seeds by rating (a player with no rated game counts as a new player's rating;
    equal ratings: the earlier sign-up first), then groups by rating snake. Writes the
    entries' rating, seed and group in one UPDATE."""
    shown = ratings_shown(e.user_id for e in entries)
    for e in entries:
        e.rating = shown.get(e.user_id)
    entries.sort(
        key=lambda e: (-(e.rating if e.rating is not None else DEFAULT_RATING), e.joined_at, e.pk)
    )
    for seed, e in enumerate(entries, start=1):
        e.seed, e.group = seed, None
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        for e in entries:
            e.group = 0
    elif tournament.format == Tournament.Format.GROUPS_KNOCKOUT:
        groups = formats.group_count(len(entries), tournament.group_size)
        for g, members in enumerate(formats.snake(entries, groups)):
            for e in members:
                e.group = g
    Entry.objects.bulk_update(entries, ["rating", "seed", "group"], batch_size=500)


def _new_game(tournament, a, b, starter_is_a: bool) -> NewGame:
    return NewGame(
        players=[a.user, b.user],
        extra_wild=tournament.extra_wild,
        rated=tournament.rated,
        days_per_move=tournament.days_per_move,
        bank=Bank.of(tournament),
        listed=False,
        starter=0 if starter_is_a else 1,
    )


def _play(tournament, matches, now, numbers=(1, 2), tell_each=True) -> None:
    """Start the games ``numbers`` of every match (game 1: ``entry_a`` begins, game 2:
    ``entry_b``, game 3: the higher seed), all in one ``start_games`` call."""
    plan = []
    for match in matches:
        a, b = match.entry_a, match.entry_b
        for number in numbers:
            starter_a = {1: True, 2: False}.get(number, a.seed <= b.seed)
            plan.append(
                (match, number, a if starter_a else b, _new_game(tournament, a, b, starter_a))
            )
    games = start_games([new for *_rest, new in plan], now=now, tell=False)
    rows = [
        MatchGame(match=match, game=game, number=number, starter=starter)
        for (match, number, starter, _new), game in zip(plan, games, strict=True)
    ]
    MatchGame.objects.bulk_create(rows, batch_size=500)
    if tell_each:
        telling.games_began(
            tournament,
            [
                (row, [match.entry_a.user, match.entry_b.user])
                for row, (match, *_rest) in zip(rows, plan, strict=True)
            ],
        )


def _start_groups(tournament, entries, now) -> None:
    """Every match of every group (stage 1), each with its two games."""
    by_group: dict[int, list] = {}
    for e in sorted(entries, key=lambda e: e.seed):
        by_group.setdefault(e.group, []).append(e)
    matches, slot = [], 0
    for g in sorted(by_group):
        for a, b in formats.round_robin(by_group[g]):
            matches.append(
                Match(
                    tournament=tournament,
                    stage=1,
                    group=g,
                    slot=slot,
                    entry_a=a,
                    entry_b=b,
                    status=Match.Status.PLAYING,
                )
            )
            slot += 1
    Match.objects.bulk_create(matches, batch_size=500)
    _play(tournament, matches, now, tell_each=False)


def _bracket_pairs(ranked) -> list[tuple]:
    """The first round of a knock-out of ``ranked`` (its seed order), entries or None."""
    return [(ranked[a - 1], ranked[b - 1] if b else None) for a, b in formats.bracket(len(ranked))]


def _start_knockout_round(tournament, stage, pairs, now, tell_each=True) -> None:
    """A knock-out round: a match per pair, slot by slot. A bye (None) or a withdrawn
    player's match is decided at once without games (a bye; a forfeit — both withdrawn:
    the higher seed goes on)."""
    matches, playing = [], []
    withdrawn = Entry.Status.WITHDRAWN
    for slot, (a, b) in enumerate(pairs):
        match = Match(tournament=tournament, stage=stage, group=None, slot=slot, entry_a=a)
        match.entry_b = b
        if b is None:
            match.status, match.winner, match.decided_by = (
                Match.Status.DECIDED,
                a,
                Match.Decided.BYE,
            )
            match.decided_at = now
        elif a.status == withdrawn or b.status == withdrawn:
            if a.status == withdrawn and b.status != withdrawn:
                winner = b
            elif b.status == withdrawn and a.status != withdrawn:
                winner = a
            else:
                winner = a if a.seed < b.seed else b
            match.status, match.winner, match.decided_by = (
                Match.Status.DECIDED,
                winner,
                Match.Decided.FORFEIT,
            )
            match.decided_at = now
        else:
            match.status = Match.Status.PLAYING
            playing.append(match)
        matches.append(match)
    Match.objects.bulk_create(matches)
    _play(tournament, playing, now, tell_each=tell_each)
    if not playing:
        tournament.check_at = now  # nothing to play: the next round at once
        after_commit_check(tournament.pk)


def game_ended(game, players) -> None:
    """``games.services.game_log.ended_hooks``: in the transaction that ends ``game``
    (its result set on the object, the row not yet saved). A game that is not a
    tournament's costs one read on ``MatchGame.game``'s unique index; a tournament's
    locks its tournament's row (the game's is locked already: every writer locks games
    before the tournament) and its match, and counts it (``standings``)."""
    match_game = MatchGame.objects.filter(game_id=game.pk).order_by().first()
    if match_game is None:
        return
    tournament_id = Match.objects.values_list("tournament_id", flat=True).get(
        pk=match_game.match_id
    )
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return  # a cancelled tournament annuls its games: nothing to count
    now = game.finished_at or timezone.now()
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("entry_a", "entry_b")
        .get(pk=match_game.match_id)
    )
    standings.count_game(tournament, match, match_game, game, players)
    if match.status != Match.Status.DECIDED:
        standings.decide_if_over(tournament, match, now)
    standings.changed(tournament)
    if tournament.check_at is not None:
        after_commit_check(tournament.pk)


def after_commit_check(tournament_id) -> None:
    """Try the tournament's next step right after the commit (the worker is the
    fallback: ``check_at`` stays set until a check has done it)."""

    def check():
        try:
            do_check(tournament_id)
        except Exception:  # noqa: BLE001 - the worker retries on check_at
            log.exception("tournament %s: check", tournament_id)

    transaction.on_commit(check)


def _third_games(tournament, now) -> int:
    """Start the third game of each knock-out match level after two (one call)."""
    level = [
        m
        for m in Match.objects.filter(tournament=tournament, stage=tournament.stage, group=None)
        .exclude(status=Match.Status.DECIDED)
        .select_related("entry_a__user", "entry_b__user")
        if m.games_played == 2 and m.points_a == m.points_b
    ]
    started = set(
        MatchGame.objects.filter(match__in=level, number=3).values_list("match_id", flat=True)
    )
    todo = [m for m in level if m.pk not in started]
    if todo:
        _play(tournament, todo, now, numbers=(3,))
    return len(todo)


def do_check(tournament_id, now=None) -> str:
    """The worker's look at one tournament whose ``check_at`` has come: start it, start
    a level match's third game, start the next stage, or finish it. What it did:
    "started", "cancelled", "third_games", "next_stage", "finished" or ""."""
    now = _now(now)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.check_at is None or tournament.check_at > now:
            return ""
        if tournament.status == Tournament.Status.SIGNUP:
            if tournament.signup_deadline > now:
                tournament.check_at = tournament.signup_deadline
                tournament.save(update_fields=["check_at"])
                return ""
            return _start(tournament, now)
        if tournament.status != Tournament.Status.RUNNING:
            tournament.check_at = None
            tournament.save(update_fields=["check_at"])
            return ""
        tournament.check_at = None
        done = ""
        if _third_games(tournament, now):
            done = "third_games"
        open_matches = (
            Match.objects.filter(tournament=tournament, stage=tournament.stage)
            .exclude(status=Match.Status.DECIDED)
            .exists()
        )
        if not open_matches:
            done = _next_stage(tournament, now)
        if done:
            standings.changed(tournament)
        else:
            tournament.save(update_fields=["check_at"])
        return done


def _knockout_stage_one(tournament) -> int:
    """The first knock-out stage: 2 after groups, 1 in a plain knock-out."""
    return 2 if tournament.format == Tournament.Format.GROUPS_KNOCKOUT else 1


def _next_stage(tournament, now) -> str:
    """The stage just finished: the groups' places and the knock-out's seeds, or the
    next knock-out round, or the end."""
    stage = tournament.stage
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        order = standings.group_order(tournament, stage, 0)
        _place_group(tournament, 0, order)
        places = {eid: i + 1 for i, eid in enumerate(order)}
        return _finish(tournament, places, order[0], now)
    if tournament.format == Tournament.Format.GROUPS_KNOCKOUT and stage == 1:
        groups = sorted(
            set(Entry.objects.filter(tournament=tournament).values_list("group", flat=True))
        )
        placed = []
        for g in groups:
            order = standings.group_order(tournament, stage, g)
            _place_group(tournament, g, order)
            placed.append(order)
        advance = min(tournament.advance, min(len(p) for p in placed) - 1) or 1
        going = formats.qualifiers(placed, advance)
        out = [eid for p in placed for eid in p[advance:]]
        entries = Entry.objects.in_bulk([*going, *out])
        Entry.objects.filter(pk__in=out, status=Entry.Status.PLAYING).update(
            status=Entry.Status.OUT
        )
        if len(going) == 1:
            return _finish(tournament, _group_final_places(tournament, {}), going[0], now)
        ranked = [entries[eid] for eid in going]
        _entries_with_users(ranked)
        tournament.stage = 2
        _start_knockout_round(tournament, 2, _bracket_pairs(ranked), now)
        tournament.save(update_fields=["stage"])
        return "next_stage"
    matches = list(Match.objects.filter(tournament=tournament, stage=stage).order_by("slot"))
    losers = [
        m.entry_b_id if m.winner_id == m.entry_a_id else m.entry_a_id
        for m in matches
        if m.entry_b_id is not None
    ]
    Entry.objects.filter(pk__in=losers, status=Entry.Status.PLAYING).update(status=Entry.Status.OUT)
    if len(matches) == 1:
        return _finish(tournament, _knockout_places(tournament), matches[0].winner_id, now)
    winners = [m.winner_id for m in matches]
    entries = Entry.objects.in_bulk(winners)
    ranked = [entries[w] for w in winners]
    _entries_with_users(ranked)
    pairs = [(ranked[i], ranked[i + 1]) for i in range(0, len(ranked), 2)]
    tournament.stage = stage + 1
    tournament.save(update_fields=["stage"])
    _start_knockout_round(tournament, stage + 1, pairs, now)
    return "next_stage"


def _entries_with_users(entries) -> None:
    from django.db.models import prefetch_related_objects

    prefetch_related_objects(entries, "user")


def _place_group(tournament, group, order) -> None:
    entries = list(Entry.objects.filter(pk__in=order))
    place = {eid: i + 1 for i, eid in enumerate(order)}
    for e in entries:
        e.place = place[e.pk]
    Entry.objects.bulk_update(entries, ["place"])


def _knockout_places(tournament) -> dict:
    """Final places from the knock-out's matches: the final's winner 1st, its loser
    2nd, the semi-finals' losers 3rd, … (``formats.knockout_places``)."""
    first = _knockout_stage_one(tournament)
    rounds = tournament.stage - first + 1
    by_round = formats.knockout_places(rounds)
    places = {}
    for stage, entry_a, entry_b, winner in Match.objects.filter(
        tournament=tournament, stage__gte=first
    ).values_list("stage", "entry_a_id", "entry_b_id", "winner_id"):
        if entry_b is None:
            continue
        loser = entry_b if winner == entry_a else entry_a
        places[loser] = by_round[stage - first]
        if stage == tournament.stage:
            places[winner] = 1
    return _group_final_places(tournament, places)


def _group_final_places(tournament, places) -> dict:
    """Those out in the groups come after every knock-out player: all the groups'
    thirds share the next place, then the fourths, and so on."""
    if tournament.format != Tournament.Format.GROUPS_KNOCKOUT:
        return places
    rows = Entry.objects.filter(tournament=tournament).exclude(pk__in=places)
    rest = sorted(rows.values_list("pk", "place"), key=lambda r: r[1] or 0)
    base, last, shared = len(places), None, 0
    for i, (pk, place) in enumerate(rest):
        if place != last:
            shared, last = base + i + 1, place
        places[pk] = shared
    return places


def _finish(tournament, places, winner_entry_id, now) -> str:
    entries = list(Entry.objects.filter(tournament=tournament).select_related("user"))
    for e in entries:
        e.final_place = places.get(e.pk)
    Entry.objects.bulk_update(entries, ["final_place"])
    winner = next(e for e in entries if e.pk == winner_entry_id)
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.winner_id, tournament.check_at = winner.user_id, None
    tournament.save(update_fields=["status", "finished_at", "winner", "check_at"])
    telling.ended(tournament, entries)
    return "finished"


def check_due(now=None) -> dict:
    """The worker's job: every tournament whose ``check_at`` has come, read on
    ``tournament_check_idx`` (one statement when none is due), each checked in its own
    transaction."""
    from games.worker_stop import stopping

    now = _now(now)
    due = list(
        Tournament.objects.filter(
            status__in=[Tournament.Status.SIGNUP, Tournament.Status.RUNNING],
            check_at__isnull=False,
            check_at__lte=now,
        )
        .order_by("check_at")
        .values_list("pk", flat=True)[:CHECK_BATCH]
    )
    done: dict[str, int] = {}
    for tournament_id in due:
        if stopping:
            break
        what = do_check(tournament_id, now)
        if what:
            done[what] = done.get(what, 0) + 1
    return done
