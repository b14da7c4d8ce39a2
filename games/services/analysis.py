"""The analysis after the game: the worker weighs a finished game's decisions with the
captain's playouts (``games.bots.analysis``), a short chunk at a time, and stores them.

``do_analyse(budget)`` works for about ``budget`` seconds and returns: it takes the most
recently finished game whose analysis is not done (starting one where there is none),
weighs its next decisions while time is left, and saves them with the progress, so the
next call goes on from there. Nothing is locked while it weighs: the chunk is saved only
if the progress it started from is still the stored one, so two workers never store a
decision twice (the second one's work is dropped). Only games that ended as ``finished``
are analysed; aborted and annulled ones never are. A chunk that fails is logged and
counted; after ``MAX_ATTEMPTS`` failures the analysis is marked failed and left alone.
"""

from __future__ import annotations

import logging
import time

from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from ..bots import analysis
from ..models import Game, GameAnalysis

log = logging.getLogger(__name__)

BUDGET_SECONDS = 0.3  # the work of one call, so that the bots' turns are not held up
MAX_ATTEMPTS = 3


def do_analyse(budget: float = BUDGET_SECONDS, clock=time.monotonic) -> int:
    """Analyse for about ``budget`` seconds; the number of decisions weighed."""
    deadline = clock() + budget
    weighed, seen = 0, set()
    while clock() < deadline:
        row = _next_analysis(seen)
        if row is None:
            break
        seen.add(row.pk)
        weighed += _work_on(row, deadline, clock)
    return weighed


def _next_analysis(seen: set) -> GameAnalysis | None:
    """The most recently finished game with work left, its analysis row made at need."""
    newest = F("game__finished_at").desc(nulls_last=True)
    started = (
        GameAnalysis.objects.filter(status=GameAnalysis.Status.PENDING)
        .filter(game__status=Game.Status.FINISHED)
        .exclude(pk__in=seen)
        .select_related("game")
        .order_by(newest, "-pk")
        .first()
    )
    fresh = (
        Game.objects.filter(status=Game.Status.FINISHED)
        .filter(~Exists(GameAnalysis.objects.filter(game=OuterRef("pk"))))
        .exclude(pk__in=seen)
        .order_by(F("finished_at").desc(nulls_last=True), "-pk")
        .first()
    )
    if fresh is None or (started is not None and _later(started.game, fresh)):
        return started
    row, _ = GameAnalysis.objects.get_or_create(game=fresh)
    return row if row.status == GameAnalysis.Status.PENDING else None  # another worker's


def _later(a: Game, b: Game) -> bool:
    """Whether ``a`` finished no earlier than ``b`` (a known time comes before none)."""
    if a.finished_at is None or b.finished_at is None:
        return b.finished_at is None
    return a.finished_at >= b.finished_at


def _work_on(row: GameAnalysis, deadline: float, clock) -> int:
    """Weigh the next decisions of ``row``'s game until ``deadline``; the number weighed."""
    began = clock()
    start, done, found, added = row.done, row.done, [], []
    try:
        events = [e.as_rules_event() for e in row.game.events.order_by("seq")]
        found = analysis.decisions(events)
        slowest = 0.0
        while done < len(found) and (done == start or clock() + slowest < deadline):
            before = clock()
            entry = analysis.analyse_decision(found[done], row.game_id)
            if entry is not None:
                added.append(entry)
            done += 1
            slowest = max(slowest, clock() - before)
    except Exception as error:
        _failed(row, error)
        return 0
    ready = done >= len(found)
    changes = {
        "done": done,
        "total": len(found),
        "decisions": row.decisions + added,
        "seconds": row.seconds + (clock() - began),
        "status": GameAnalysis.Status.READY if ready else GameAnalysis.Status.PENDING,
    }
    if ready:
        changes["computed_at"] = timezone.now()
    # Saved only if nobody stored this chunk meanwhile (another worker).
    GameAnalysis.objects.filter(pk=row.pk, done=start).update(**changes)
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
