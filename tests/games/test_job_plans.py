"""The worker's jobs read what is due, not what is stored.

The deadline job wakes at each game's stored ``due_at`` (the reminder moment, then the
deadline, holidays and the extra day folded in); the digest job at each player's
``digest_due_at`` (07:00 of their zone); the analysis job takes the pending rows written
when a game finished. On PostgreSQL, with enough rows that a scan would be the cheaper
plan without the indexes, every statement each job runs is EXPLAINed: none reads the
games, events or users table whole.
"""

import datetime as dt
import re
import threading
import zoneinfo

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.holidays import do_declare_holiday
from games import jobs
from games.models import Game, GameAnalysis, Notification
from games.notify import send
from games.services import analysis, endings

from ..helpers.accounts import confirmed_address
from ..helpers.choices import choose
from ..helpers.days import DAY, START
from ..helpers.games import abort_as_before, play_on, post

User = get_user_model()
SECOND = dt.timedelta(seconds=1)


@pytest.fixture(autouse=True)
def forget_rows_without_a_log(request):
    """The games these tests write as bare rows (no event log, an empty snapshot) are
    removed after each test, before the check that every snapshot equals its log."""
    yield
    if request.node.get_closest_marker("django_db") is None:
        return
    bare = list(Game.objects.filter(state={}).values_list("pk", flat=True))
    if bare:
        marks = ", ".join(["%s"] * len(bare))
        with connection.cursor() as cursor:
            for table in ("games_event", "games_notification", "games_gameanalysis"):
                cursor.execute(f"DELETE FROM {table} WHERE game_id IN ({marks})", bare)
            cursor.execute(f"DELETE FROM games_game WHERE id IN ({marks})", bare)


def due_at(game) -> dt.datetime | None:
    return Game.objects.values_list("due_at", flat=True).get(pk=game.pk)


def reminders(game) -> int:
    return Notification.objects.filter(game=game, kind="reminder").count()


# -- deadlines and reminders ----------------------------------------------------------------


@pytest.mark.django_db
def test_the_reminder_is_queued_once_per_turn_then_the_game_times_out(clocked):
    assert due_at(clocked) == START + 4 * DAY  # a fifth of 5 days before the deadline
    assert jobs.check_deadlines(START + 4 * DAY - SECOND) == {"timeouts": 0, "reminders": 0}
    assert jobs.check_deadlines(START + 4 * DAY + SECOND)["reminders"] == 1
    assert reminders(clocked) == 1 and due_at(clocked) == START + 5 * DAY
    assert jobs.check_deadlines(START + 4 * DAY + 2 * SECOND)["reminders"] == 0
    assert reminders(clocked) == 1
    assert jobs.check_deadlines(START + 5 * DAY + SECOND) == {"timeouts": 1, "reminders": 0}
    clocked.refresh_from_db()
    assert clocked.status == "finished" and clocked.result_reason == "timeout"
    assert clocked.due_at is None


@pytest.mark.django_db
def test_a_holiday_of_the_mover_moves_the_due_time_and_the_timeout(clocked, players):
    mover = clocked.to_move
    waiter = next(u for u in players.values() if u.pk != mover.pk and u.username != "carl")
    do_declare_holiday(waiter, dt.date(2026, 3, 4), dt.date(2026, 3, 6))
    assert due_at(clocked) == START + 4 * DAY  # the waiting player's holiday: no change
    do_declare_holiday(mover, dt.date(2026, 3, 4), dt.date(2026, 3, 6))  # 3 days away
    assert due_at(clocked) == START + 7 * DAY
    assert jobs.check_deadlines(START + 7 * DAY - SECOND)["reminders"] == 0
    assert jobs.check_deadlines(START + 7 * DAY + SECOND)["reminders"] == 1
    assert due_at(clocked) == START + 8 * DAY
    assert jobs.check_deadlines(START + 8 * DAY - SECOND)["timeouts"] == 0
    assert jobs.check_deadlines(START + 8 * DAY + SECOND)["timeouts"] == 1
    mover.holidays.all().delete()  # cancelled afterwards: an ended game stays ended
    assert due_at(clocked) is None


@pytest.mark.django_db
def test_an_early_due_time_is_put_right_without_a_reminder(clocked):
    """A move stores the due time without reading the mover's holidays (it can only be
    early): the job folds them in when it wakes, and acts at the right moment."""
    do_declare_holiday(clocked.to_move, dt.date(2026, 3, 4), dt.date(2026, 3, 6))
    Game.objects.filter(pk=clocked.pk).update(due_at=START + 4 * DAY)  # as a move stores it
    assert jobs.check_deadlines(START + 4 * DAY + SECOND) == {"timeouts": 0, "reminders": 0}
    assert due_at(clocked) == START + 7 * DAY and reminders(clocked) == 0


@pytest.mark.django_db
def test_a_cancelled_holiday_brings_the_due_time_back(clocked):
    do_declare_holiday(clocked.to_move, dt.date(2026, 3, 4), dt.date(2026, 3, 6))
    assert due_at(clocked) == START + 7 * DAY
    clocked.to_move.holidays.all().delete()
    assert due_at(clocked) == START + 4 * DAY


@pytest.mark.django_db
def test_an_extra_day_moves_the_due_time(clocked, clients):
    waiter = "bernd" if clocked.to_move.username == "anna" else "anna"
    assert post(clients[waiter], f"/api/games/{clocked.pk}/extend/").status_code == 200
    assert due_at(clocked) == START + 5 * DAY
    assert jobs.check_deadlines(START + 5 * DAY + SECOND)["reminders"] == 1
    assert due_at(clocked) == START + 6 * DAY
    assert jobs.check_deadlines(START + 6 * DAY - SECOND)["timeouts"] == 0
    assert jobs.check_deadlines(START + 6 * DAY + SECOND)["timeouts"] == 1


@pytest.mark.django_db
def test_a_new_turn_sets_the_due_time_and_the_end_clears_it(game):
    game.refresh_from_db()
    assert game.due_at == game.turn_started_at + dt.timedelta(days=game.days_per_move) * 4 / 5
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        endings.end_by_server(locked, "annulled", None)
    assert due_at(game) is None  # ended: never due again


# -- digests --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_digest_once_a_local_day_at_seven_in_each_zone(traveller):
    zones = ("Pacific/Auckland", "America/Los_Angeles", "UTC")
    users = {}
    for zone in zones:
        user = User.objects.create_user(zone.split("/")[-1], password="x", time_zone=zone)
        confirmed_address(user)
        choose(user, daily_digest=True)
        users[zone] = user
        Game.objects.create(state={}, to_move=user)  # a game waits for each
    quiet = User.objects.create_user("quiet", password="x", time_zone="UTC")
    confirmed_address(quiet)
    choose(quiet, daily_digest=True)  # no game waits for quiet: no digest
    seen = {zone: [] for zone in zones}
    moment = START
    while moment < START + 3 * DAY:  # the job runs every minute; each 10 minutes here
        queued = jobs.queue_digests(moment)
        for zone, user in users.items():
            for key in Notification.objects.filter(user=user, kind="digest").values_list(
                "key", flat=True
            ):
                if key not in [k for k, _ in seen[zone]]:
                    seen[zone].append((key, moment))
        assert queued <= len(zones)
        moment += dt.timedelta(minutes=10)
    for zone, found in seen.items():
        local = zoneinfo.ZoneInfo(zone)
        assert len(found) == 3, zone  # three local mornings in three days
        for key, when in found:
            at = when.astimezone(local)
            assert (at.hour, at.minute) == (7, 0), (zone, at)
            assert key == at.date().isoformat()
    assert not Notification.objects.filter(user=quiet).exists()
    quiet.refresh_from_db()
    assert quiet.digest_due_at == dt.datetime(2026, 3, 6, 7, 0, tzinfo=dt.UTC)  # moved on


@pytest.mark.django_db
def test_the_digest_time_follows_the_choice_and_the_zone(traveller):
    user = User.objects.create_user("nomad", password="x", time_zone="UTC")
    assert user.digest_due_at is None
    choose(user, daily_digest=True)
    assert user.digest_due_at == dt.datetime(2026, 3, 3, 7, 0, tzinfo=dt.UTC)
    user.time_zone = "Pacific/Auckland"  # 07:00 there on 3 March is 18:00 UTC on the 2nd
    user.save(update_fields=["time_zone"])
    user.refresh_from_db()
    assert user.digest_due_at == dt.datetime(2026, 3, 2, 18, 0, tzinfo=dt.UTC)
    choose(user, daily_digest=False)
    user.refresh_from_db()
    assert user.digest_due_at is None


# -- the analysis queue ---------------------------------------------------------------------


@pytest.mark.django_db
def test_a_finished_game_is_queued_for_analysis_when_it_ends_an_aborted_one_is_not(game, players):
    finished = play_on(game, seed=7)
    assert finished.status == Game.Status.FINISHED
    row = GameAnalysis.objects.get(game=finished)
    assert row.status == "pending" and row.finished_at == finished.finished_at

    from games.services import invitations

    other = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="anna").pk, players["anna"]
    )
    other = abort_as_before(other)  # a game of the old rule; a dealt game cannot be aborted
    assert other.status == Game.Status.ABORTED
    assert not GameAnalysis.objects.filter(game=other).exists()


@pytest.mark.django_db(transaction=True)
def test_two_workers_never_claim_the_same_analysis(postgres_only):
    rows = [
        GameAnalysis.objects.create(
            game=Game.objects.create(state={}, status="finished"),
            finished_at=START + n * DAY,
        )
        for n in range(2)
    ]
    claimed = {}
    holding, release = threading.Event(), threading.Event()

    def worker(name):
        try:
            with transaction.atomic():
                row = analysis._claim(set())
                claimed[name] = row.pk if row else None
                holding.set()
                release.wait(10)
        finally:
            connection.close()

    first = threading.Thread(target=worker, args=("first",))
    first.start()
    assert holding.wait(10)
    holding.clear()
    second = threading.Thread(target=worker, args=("second",))
    second.start()
    assert holding.wait(10)
    with transaction.atomic():
        third = analysis._claim(set())  # both rows are held: nothing for a third worker
    release.set()
    first.join(10)
    second.join(10)
    assert claimed == {"first": rows[1].pk, "second": rows[0].pk}  # newest first
    assert third is None


# -- the query plans (PostgreSQL) -----------------------------------------------------------

GUARDED = ("games_game", "games_event", "accounts_user")
FAR = START + 400 * DAY


def fill(players, users=3000, finished=4000, active=1500):
    """A site with some history: enough rows that reading a table whole would be the
    planner's choice for any query no index serves; then ANALYZE."""
    people = User.objects.bulk_create(
        User(
            username=f"p{n}",
            email=f"p{n}@example.org",
            notification_choices={"daily_digest": n % 3 == 0},
            digest_due_at=FAR if n % 3 == 0 else None,
            time_zone="Europe/Zurich",
        )
        for n in range(users)
    )
    done = Game.objects.bulk_create(
        Game(state={}, status="finished", finished_at=START - n * SECOND, version=20)
        for n in range(finished)
    )
    Game.objects.bulk_create(
        Game(
            state={},
            to_move=people[n % users],
            deadline=FAR + DAY,
            due_at=FAR,
            turn_started_at=START,
            days_per_move=5,
        )
        for n in range(active)
    )
    GameAnalysis.objects.bulk_create(
        GameAnalysis(game=game, status="ready", finished_at=game.finished_at) for game in done
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO games_event (game_id, seq, kind, payload, seat, created_at)"
            " SELECT g.id, s, 'move', '{}', 0, now()"
            " FROM games_game g, generate_series(1, 20) s WHERE g.status = 'finished'"
        )
        Notification.objects.bulk_create(
            Notification(user=people[n], kind="turn", key=str(n), sent_at=START)
            for n in range(users)
        )
        cursor.execute("ANALYZE")


def plans(captured) -> list[tuple[str, str]]:
    """Each data statement captured, with its plan."""
    found = []
    with connection.cursor() as cursor:
        for query in captured:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "INSERT")):
                continue
            cursor.execute("EXPLAIN " + sql)
            found.append((sql, "\n".join(row[0] for row in cursor.fetchall())))
    return found


def assert_no_scan(captured, index: str) -> None:
    found = plans(captured)
    assert found, "the job ran no statement"
    for sql, plan in found:
        for table in GUARDED:  # the table itself, not one whose name begins with it
            assert f"Seq Scan on {table} " not in plan, f"{sql}\n{plan}"
    assert any(index in plan for _, plan in found), "\n\n".join(p for _, p in found)


def run(job, *args, **kwargs):
    with CaptureQueriesContext(connection) as captured:
        job(*args, **kwargs)
    return captured.captured_queries


@pytest.fixture
def site(postgres_only, clocked, players):
    fill(players)
    return clocked


@pytest.mark.django_db
def test_the_fill_is_big_enough_that_a_scan_shows(site):
    """The plans below mean something: the old analysis query, on this fill, reads the
    games whole."""
    from django.db.models import Exists, OuterRef

    old = (
        Game.objects.filter(status=Game.Status.FINISHED)
        .filter(~Exists(GameAnalysis.objects.filter(game=OuterRef("pk"))))
        .order_by("-finished_at", "-pk")[:1]
    )
    ((_, plan),) = plans(run(lambda: list(old)))
    assert "Seq Scan on games_game" in plan


@pytest.mark.django_db
def test_the_deadline_job_reads_the_due_games_on_their_index(site):
    nothing = run(jobs.check_deadlines, START + DAY)
    assert len(nothing) == 1  # nothing due: one statement
    assert_no_scan(nothing, "game_due_idx")
    reminded = run(jobs.check_deadlines, START + 4 * DAY + SECOND)  # the real game's reminder
    assert reminders(site) == 1
    assert_no_scan(reminded, "game_due_idx")
    ended = run(jobs.check_deadlines, START + 5 * DAY + SECOND)
    site.refresh_from_db()
    assert site.status == "finished"
    assert_no_scan(ended, "game_due_idx")


@pytest.mark.django_db
def test_the_digest_job_reads_the_due_players_on_their_index(site, players):
    nothing = run(jobs.queue_digests, START)
    assert len(nothing) == 1
    assert_no_scan(nothing, "user_digest_due_idx")
    waiting = players["carl"]
    choose(waiting, daily_digest=True)
    Game.objects.create(state={}, to_move=waiting)
    some = run(jobs.queue_digests, START + DAY)
    assert Notification.objects.filter(user=waiting, kind="digest").exists()
    assert_no_scan(some, "user_digest_due_idx")
    # whether a game waits: on an index of the games (the one on to_move, (status, to_move),
    # or the active games' game_waiting_idx, whose to_move comes first)
    on_games = re.compile(
        r"Index (Only )?Scan using (games_game_\w+|game_waiting_idx) on games_game"
    )
    assert any(on_games.search(plan) for _, plan in plans(some))


@pytest.mark.django_db
def test_the_analysis_job_claims_from_its_queue(site):
    nothing = run(analysis.do_analyse)
    statements = [q for q in nothing if q["sql"].startswith("SELECT")]
    assert len(statements) == 1
    # an empty queue: either index of the analyses' own rows, never the games
    assert_no_scan(nothing, "games_gameanalysis")
    # a queue (the migration queues every finished game without an analysis): its index,
    # newest first, no sort of the pending rows
    queued = Game.objects.bulk_create(
        Game(state={}, status="finished", finished_at=START - n * SECOND) for n in range(500)
    )
    GameAnalysis.objects.bulk_create(
        GameAnalysis(game=game, finished_at=game.finished_at) for game in queued
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_gameanalysis")
    with transaction.atomic():
        claim = run(analysis._claim, set())
    assert_no_scan(claim, "analysis_queue_idx")
    some = run(analysis.do_analyse)
    assert GameAnalysis.objects.get(game=queued[0]).status == "ready"  # no decisions in it
    assert_no_scan(some, "analysis_queue_idx")


@pytest.mark.django_db
def test_the_bots_and_the_outbox_read_on_indexes(site):
    assert_no_scan(run(jobs.JOBS["bots"], START), "user_bots_idx")
    Notification.objects.create(user=site.to_move, kind="turn", key="x", game=site)
    outbox = run(send.send_notifications, START)
    for sql, plan in plans(outbox):
        for table in GUARDED:
            assert f"Seq Scan on {table}" not in plan, f"{sql}\n{plan}"


@pytest.mark.django_db
def test_the_guest_job_reads_the_due_guests_on_their_index(site):
    from accounts.guest_accounts import GUEST_LIFETIME, do_make_guest
    from games.queries import bot_of_level
    from games.services import invitations

    nothing = run(jobs.expire_guests, START)
    assert len(nothing) == 1  # nothing due: one statement
    assert_no_scan(nothing, "user_guest_until_idx")
    guest = do_make_guest("203.0.113.5", now=START)
    game = invitations.do_invite(guest, to=bot_of_level("deckhand").username).game_id
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    deleted = run(jobs.expire_guests, START + GUEST_LIFETIME + SECOND)
    assert not User.objects.filter(pk=guest.pk).exists()
    assert not Game.objects.filter(pk=game).exists()
    assert_no_scan(deleted, "user_guest_until_idx")
