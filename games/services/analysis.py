"""The analysis after the game: the worker weighs a finished game's decisions with the
judgement of the level ``hindsight.ENGINE`` names (``games.bots.hindsight``), a short chunk
at a time, and stores them.

A game that ends as ``finished`` gets a pending ``GameAnalysis`` row in the transaction
that ends it (``queue``): that row is the work queue, read newest first on a partial
index of the pending rows (``analysis_queue_idx``), never by scanning the games.
Aborted and annulled games get none. The row's ``finished_at`` is when the analysis
joins the queue: the game's end, or, once the game's players have caused
``limits.ANALYSES_PER_HOUR`` analyses in that clock hour, the start of the first later
hour with room (``limits.analysis_begins``); the worker takes only rows whose moment has
come, so that nobody can keep it busy with game after game, and nothing is dropped.
``do_analyse(budget)`` works for about ``budget``
seconds and returns: it claims the pending row of the most recently finished game with
``SELECT … FOR UPDATE SKIP LOCKED`` (another worker takes the next one), weighs its next
decisions while time is left, and saves them with the progress, so the next call goes on
from there. The chunk is still saved only if the progress it started from is the stored
one, so no decision is ever stored twice. A chunk that fails is logged and
counted; after ``MAX_ATTEMPTS`` failures the analysis is marked failed and left alone.

Each row holds one engine's judgement (``GameAnalysis.engine``): a pending row begun by
another engine than today's starts over with today's, so no analysis mixes two; a ready
one keeps the engine it was made by.
"""

from __future__ import annotations

import logging
import time

from django.db import transaction
from django.utils import timezone

from ..bots import hindsight
from ..models import Event, Game, GameAnalysis
from . import limits

log = logging.getLogger(__name__)

BUDGET_SECONDS = 0.3  # the work of one call, so that the bots' turns are not held up
MAX_ATTEMPTS = 3


def queue(game: Game) -> None:
    """A game just ended: if it finished (not aborted, not annulled), its analysis waits
    in the queue, a pending row, from now on (or from the hour its players' bound allows:
    ``limits.analysis_begins``). Once per game."""
    if game.status == Game.Status.FINISHED:
        row = GameAnalysis(
            game=game, finished_at=limits.analysis_begins(game), engine=hindsight.ENGINE
        )
        GameAnalysis.objects.bulk_create([row], ignore_conflicts=True)


def do_analyse(budget: float = BUDGET_SECONDS, clock=time.monotonic) -> int:
    """Analyse for about ``budget`` seconds; the number of decisions weighed."""
    deadline = clock() + budget
    weighed, seen = 0, set()
    while clock() < deadline:
        with transaction.atomic():
            row = _claim(seen)
            if row is None:
                break
            seen.add(row.pk)
            weighed += _work_on(row, deadline, clock)
    return weighed


def _claim(seen: set) -> GameAnalysis | None:
    """The pending analysis of the most recently finished game, locked for this worker's
    chunk; one another worker holds is skipped (it takes the next one), and one deferred
    to a later hour waits for it."""
    return (
        GameAnalysis.objects.filter(
            status=GameAnalysis.Status.PENDING, finished_at__lte=timezone.now()
        )
        .exclude(pk__in=seen)
        .select_for_update(skip_locked=True)
        .order_by("-finished_at", "-game_id")  # the column: no join to the games
        .first()
    )


def _work_on(row: GameAnalysis, deadline: float, clock) -> int:
    """Weigh the next decisions of ``row``'s game until ``deadline``; the number weighed."""
    began = clock()
    stored = {"done": row.done, "engine": row.engine}  # the progress this chunk goes on from
    if row.engine != hindsight.ENGINE:  # begun by another engine: start over with this one
        row.engine, row.done, row.decisions, row.seconds = hindsight.ENGINE, 0, [], 0.0
    start, done, found, added = row.done, row.done, [], []
    try:
        events = Event.objects.filter(game_id=row.game_id).order_by("seq")
        events = [e.as_rules_event() for e in events]
        found = hindsight.decisions(events)
        slowest = 0.0
        while done < len(found) and (done == start or clock() + slowest < deadline):
            before = clock()
            entry = hindsight.analyse_decision(found[done], row.game_id)
            if entry is not None:
                added.append(entry)
            done += 1
            slowest = max(slowest, clock() - before)
    except Exception as error:
        _failed(row, error)
        return 0
    ready = done >= len(found)
    changes = {
        "engine": row.engine,
        "done": done,
        "total": len(found),
        "decisions": row.decisions + added,
        "seconds": row.seconds + (clock() - began),
        "status": GameAnalysis.Status.READY if ready else GameAnalysis.Status.PENDING,
    }
    if ready:
        changes["computed_at"] = timezone.now()
    # Saved only if nobody stored this chunk meanwhile (another worker).
    GameAnalysis.objects.filter(pk=row.pk, **stored).update(**changes)
    return done - start


def _failed(row: GameAnalysis, error: Exception) -> None:
    attempts = row.attempts + 1
    text = f"{type(error).__name__}: {error}"[:200]
    log.exception("analysis of game %s failed (attempt %s)", row.game_id, attempts)
    changes = {"attempts": attempts, "error": text}
    if attempts >= MAX_ATTEMPTS:
        changes["status"] = GameAnalysis.Status.FAILED
        log.error("gave up the analysis of game %s after %s failures", row.game_id, attempts)
    GameAnalysis.objects.filter(pk=row.pk, attempts=row.attempts).update(**changes)
