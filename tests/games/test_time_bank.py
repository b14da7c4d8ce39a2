"""The time bank: its arithmetic, a game played turn by turn, and the worker ending a
game whose bank ran out (time-machine moves the clock)."""

import datetime as dt
import json
import random
import uuid
from types import SimpleNamespace

import pytest

from accounts.holidays import do_declare_holiday
from games import clock, jobs, rules
from games.clock import Bank, bank_after_turn, effective_deadline, reminder_due
from games.messages import GameSummary, GameView
from games.messages import Invitation as MessageInvitation
from games.models import Game, Invitation
from games.services import commands, endings, invitations
from shanghaien.lib.errors import BadRequest

from ..helpers.days import DAY, START, still_running_at

HOUR = dt.timedelta(hours=1)
TERMS = {"start_hours": 72, "increment_hours": 24, "cap_hours": 168}


def game_of(banks, seat=0, extended=False, **terms):
    """A game as the clock reads it, seat ``seat`` to move since START."""
    bank = Bank(**{**TERMS, **terms})
    mover = SimpleNamespace(pk=7, zone=dt.UTC)
    return SimpleNamespace(
        bank_start_hours=bank.start_hours,
        bank_increment_hours=bank.increment_hours,
        bank_cap_hours=bank.cap_hours,
        days_per_move=3,
        banks=list(banks),
        turn_started_at=START,
        deadline=START + dt.timedelta(seconds=banks[seat]) + (DAY if extended else dt.timedelta()),
        extended=extended,
        to_move_id=mover.pk,
        to_move=mover,
    )


def holiday(start, end):
    return SimpleNamespace(start=start, end=end)


# -- the arithmetic -------------------------------------------------------------------------


def test_what_is_left_plus_the_increment_is_the_next_bank():
    assert bank_after_turn(Bank(72, 24, 168), dt.timedelta(hours=50)) == 74 * 3600


def test_the_bank_never_holds_more_than_the_cap():
    assert bank_after_turn(Bank(72, 24, 96), dt.timedelta(hours=90)) == 96 * 3600
    assert bank_after_turn(Bank(72, 48, 72), dt.timedelta(hours=72)) == 72 * 3600


def test_a_move_at_the_last_second_leaves_the_increment():
    assert bank_after_turn(Bank(72, 24, 168), dt.timedelta(seconds=0.4)) == 24 * 3600
    # a move the server took a moment late counts as none left, never less
    assert bank_after_turn(Bank(72, 24, 168), -dt.timedelta(seconds=3)) == 24 * 3600


def test_with_no_increment_a_spent_bank_is_empty():
    assert bank_after_turn(Bank(72, 0, 72), dt.timedelta(hours=5)) == 5 * 3600
    assert bank_after_turn(Bank(72, 0, 72), dt.timedelta(0)) == 0


def test_the_deadline_is_the_turns_start_plus_the_movers_bank():
    game = game_of([10 * 3600, 50 * 3600], seat=1)
    assert clock.turn_time(game, 1) == dt.timedelta(hours=50)
    assert effective_deadline(game, holidays=[]) == START + 50 * HOUR


def test_holidays_stop_the_bank(monkeypatch):
    """Away 4–5 March (two days) during a 72-hour turn begun on 2 March at noon: the
    deadline moves two days on, and the time left at a move counts without them."""
    game = game_of([72 * 3600, 72 * 3600])
    away = [holiday(dt.date(2026, 3, 4), dt.date(2026, 3, 5))]
    assert effective_deadline(game, away, dt.UTC) == START + 5 * DAY
    monkeypatch.setattr(clock.Holiday.objects, "filter", lambda **kw: away)
    clock.end_turn(game, 0, START + 4 * DAY, game.to_move)  # a move on 6 March at noon
    assert game.banks == [(24 + 24) * 3600, 72 * 3600]  # a day left, and a day more


def test_an_extra_day_not_used_is_left_in_the_bank(monkeypatch):
    game = game_of([72 * 3600, 72 * 3600], extended=True, cap_hours=240)
    monkeypatch.setattr(clock.Holiday.objects, "filter", lambda **kw: [])
    clock.end_turn(game, 0, START + 3 * DAY, game.to_move)
    assert game.banks == [(24 + 24) * 3600, 72 * 3600]


def test_the_reminder_comes_at_a_fifth_of_what_the_turn_began_with():
    game = game_of([72 * 3600, 50 * 3600], seat=1)
    deadline = effective_deadline(game, [])
    assert reminder_due(game, deadline) == START + 40 * HOUR
    extended = game_of([72 * 3600, 50 * 3600], seat=1, extended=True)
    deadline = effective_deadline(extended, [])
    assert reminder_due(extended, deadline) == START + DAY + 40 * HOUR


def test_a_game_without_a_bank_keeps_its_days_per_move():
    game = SimpleNamespace(bank_start_hours=None, days_per_move=3, banks=None, deadline=None)
    assert clock.turn_time(game, 0) == 3 * DAY
    clock.end_turn(game, 0, START, None)  # nothing to keep, nothing read
    assert game.banks is None


# -- the terms ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bank",
    [
        {"start_hours": 25, "increment_hours": 24, "cap_hours": 168},
        {"start_hours": 72.0, "increment_hours": 24, "cap_hours": 168},
        {"start_hours": True, "increment_hours": 24, "cap_hours": 168},
        {"start_hours": 72, "increment_hours": 6, "cap_hours": 168},
        {"start_hours": 72, "increment_hours": 24, "cap_hours": 48},
        {"start_hours": 72, "increment_hours": 24, "cap_hours": 721},
        {"start_hours": 72, "increment_hours": 24, "cap_hours": "168"},
        {"start_hours": 72, "increment_hours": 24},
        {"start_hours": 72, "increment_hours": 24, "cap_hours": 168, "more": 1},
        [72, 24, 168],
        "3 days",
    ],
)
@pytest.mark.django_db
def test_bad_terms_are_refused_and_nothing_is_made(players, bank):
    with pytest.raises(BadRequest) as refused:
        invitations.do_invite(players["anna"], to="bernd", bank=bank)
    assert refused.value.code == "bad_bank"
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_the_refusal_names_the_field(players):
    bad = {**TERMS, "cap_hours": 48}
    with pytest.raises(BadRequest, match="cap_hours"):
        invitations.do_invite(players["anna"], to="bernd", bank=bad)
    with pytest.raises(BadRequest, match="increment_hours"):
        invitations.do_invite(players["anna"], to="bernd", bank={**TERMS, "increment_hours": 1})


# -- a game played ----------------------------------------------------------------------------


def play_turn(game, rng):
    """Random legal commands (never resigning) until the player to move changes."""
    by_seat = {s.seat: s.user for s in game.seats.all()}
    game.refresh_from_db()
    mover = game.to_move_id
    while game.to_move_id == mover and game.status == Game.Status.ACTIVE:
        state = game.rules_state()
        command = rules.random_command(state, state.turn, rng)
        user = by_seat[state.turn]
        commands.do_command(game.pk, user, command, game.version, str(uuid.uuid4()))
        game.refresh_from_db()
    return game


@pytest.fixture
def banked(traveller, players):
    """A bank game between anna and bernd (3 days, +1 day a move, at most 90 hours),
    started at START."""
    terms = {"start_hours": 72, "increment_hours": 24, "cap_hours": 90}
    invitation = invitations.do_invite(players["anna"], to="bernd", bank=terms)
    return invitations.do_accept_invitation(invitation.pk, players["bernd"])


@pytest.mark.django_db
def test_a_bank_game_spends_and_refills_each_players_bank(banked, traveller):
    rng = random.Random(3)
    assert banked.banks == [72 * 3600, 72 * 3600]
    assert banked.deadline == START + 3 * DAY
    first = banked.rules_state().turn
    traveller.move_to(START + 2 * DAY)  # two days spent of three
    game = play_turn(banked, rng)
    assert game.banks[first] == (24 + 24) * 3600 and game.banks[1 - first] == 72 * 3600
    assert game.deadline == START + 2 * DAY + 3 * DAY  # the other's whole bank
    traveller.move_to(START + 2 * DAY + 2 * HOUR)  # two hours spent
    game = play_turn(game, rng)
    assert game.banks[1 - first] == 90 * 3600  # 70 hours left + 24, capped at 90
    assert game.deadline == START + 2 * DAY + 2 * HOUR + 48 * HOUR
    game.rules_state()
    traveller.move_to(game.deadline - dt.timedelta(seconds=1))  # at the last second
    game = play_turn(game, rng)
    assert game.banks[first] == 24 * 3600 + 1
    assert game.deadline == game.turn_started_at + 90 * HOUR


@pytest.mark.django_db
def test_the_game_shows_its_clock(banked, players, clients):
    body = clients["anna"].get(f"/api/games/{banked.pk}/").json()
    clock_json = body["clock"]
    assert clock_json["bank"] == TERMS | {"cap_hours": 90}
    assert clock_json["banks"] == {"me": 72 * 3600, "opponent": 72 * 3600}


@pytest.mark.django_db
def test_the_worker_ends_a_game_on_an_empty_bank_and_not_before(banked, traveller):
    mover = banked.to_move_id
    assert banked.due_at == START + 3 * DAY - 72 * HOUR / 5  # the reminder first
    assert still_running_at(banked, START + 3 * DAY - dt.timedelta(seconds=1), traveller)
    assert not still_running_at(banked, START + 3 * DAY, traveller)
    assert banked.result_reason == "timeout"
    assert banked.winner_id is not None and banked.winner_id != mover


@pytest.mark.django_db
def test_a_holiday_moves_the_end_of_a_bank(banked, traveller):
    mover = banked.to_move
    do_declare_holiday(mover, dt.date(2026, 3, 4), dt.date(2026, 3, 4))  # one day away
    assert still_running_at(banked, START + 3 * DAY + HOUR, traveller)
    result = jobs.check_deadlines(START + 4 * DAY - dt.timedelta(seconds=1))
    assert result["timeouts"] == 0
    assert not still_running_at(banked, START + 4 * DAY, traveller)
    assert banked.result_reason == "timeout" and banked.winner_id != mover.pk


@pytest.mark.django_db
def test_the_game_end_leaves_the_banks_as_they_are(banked, traveller):
    traveller.move_to(START + DAY)
    assert endings.do_timeout(banked.pk) is False
    traveller.move_to(START + 3 * DAY)
    assert endings.do_timeout(banked.pk) is True
    ended = Game.objects.get(pk=banked.pk)
    assert ended.banks == [72 * 3600, 72 * 3600] and ended.deadline is None


@pytest.mark.django_db
def test_a_rematch_keeps_the_terms(banked, players, clients):
    mover = banked.to_move
    commands.do_command(banked.pk, mover, {"type": "resign"}, banked.version, "bye")
    export = clients["anna"].get(f"/api/games/{banked.pk}/export/").json()
    assert export["bank"] == {**TERMS, "cap_hours": 90}
    other = players["bernd"] if mover.username == "anna" else players["anna"]
    rematch = invitations.do_rematch(banked.pk, other)
    assert Bank.of(rematch) == Bank(72, 24, 90)
    game = invitations.do_accept_invitation(rematch.pk, mover)
    assert Bank.of(game) == Bank(72, 24, 90) and game.banks == [72 * 3600] * 2


# -- the API ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bank",
    [
        {"start_hours": 72, "increment_hours": 24, "cap_hours": 48},
        {"start_hours": 72, "increment_hours": 24, "cap_hours": 1000},
        {"start_hours": 72.0, "increment_hours": 24, "cap_hours": 168},
        {"start_hours": 72, "increment_hours": True, "cap_hours": 168},
        {"start_hours": 72, "increment_hours": 24},
        "3 days",
        7,
    ],
)
@pytest.mark.django_db
def test_the_api_refuses_bad_terms_and_makes_nothing(players, clients, bank):
    from ..helpers.games import post

    response = post(clients["anna"], "/api/invitations/", {"to": "bernd", "bank": bank})
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "bad_bank"
    assert "bank" in response.json()["error"]["message"]
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_an_unknown_field_of_the_bank_is_named(players, clients):
    from ..helpers.games import post

    bank = {**TERMS, "minutes": 1}
    response = post(clients["anna"], "/api/invitations/", {"to": "bernd", "bank": bank})
    assert response.status_code == 400
    assert "bank.minutes" in response.json()["error"]["message"]
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_the_api_invites_with_a_bank_and_shows_it(players, clients):
    from ..helpers.games import post

    response = post(clients["anna"], "/api/invitations/", {"to": "bernd", "bank": TERMS})
    assert response.status_code == 201, response.content
    assert response.json()["bank"] == TERMS
    listed = clients["bernd"].get("/api/invitations/").json()["received"]
    assert listed[0]["bank"] == TERMS
    plain = post(clients["anna"], "/api/invitations/", {"to": "bernd"})
    assert plain.json()["bank"] is None
    accepted = post(clients["bernd"], f"/api/invitations/{response.json()['id']}/accept/")
    game_id = accepted.json()["game"]
    summary = clients["bernd"].get("/api/games/").json()
    row = next(g for g in summary["games"] if g["id"] == game_id)
    assert row["bank"] == TERMS
    answer = clients["bernd"].get(f"/api/games/{game_id}/")
    GameView.model_validate_json(answer.content)  # as the protocol declares it
    GameSummary.model_validate_json(json.dumps(row))
    MessageInvitation.model_validate_json(json.dumps(listed[0]))
    view = answer.json()
    assert view["clock"]["kind"] == "bank"
    assert view["clock"]["banks"] == {"me": 72 * 3600, "opponent": 72 * 3600}


# -- the lobby's form -------------------------------------------------------------------------

FORM = {"to": "bernd", "days_per_move": "3", "message": "", "rated": "on"}


@pytest.mark.django_db
def test_the_lobby_form_invites_with_a_bank(players, clients):
    terms = {"clock": "bank", "bank_start": "48", "bank_increment": "12", "bank_cap": "120"}
    clients["anna"].post("/invitations/new/", {**FORM, **terms})
    invitation = Invitation.objects.get()
    assert Bank.of(invitation) == Bank(48, 12, 120)


@pytest.mark.django_db
def test_days_per_move_leave_the_bank_out(players, clients):
    terms = {"clock": "days", "bank_start": "48", "bank_increment": "12", "bank_cap": "120"}
    clients["anna"].post("/invitations/new/", {**FORM, **terms})
    assert Bank.of(Invitation.objects.get()) is None


@pytest.mark.parametrize(
    "terms",
    [
        {"bank_start": "72", "bank_increment": "24", "bank_cap": "48"},
        {"bank_start": "25", "bank_increment": "24", "bank_cap": "168"},
        {"bank_start": "72", "bank_increment": "6", "bank_cap": "168"},
        {"bank_start": "72", "bank_increment": "24", "bank_cap": "721"},
        {"bank_start": "72", "bank_increment": "24"},
        {"bank_start": "72.0", "bank_increment": "24", "bank_cap": "168"},
    ],
)
@pytest.mark.django_db
def test_the_lobby_form_refuses_bad_terms(players, clients, terms):
    response = clients["anna"].post(
        "/invitations/new/", {**FORM, "clock": "bank", **terms}, follow=True
    )
    assert "The invitation was not sent" in response.content.decode()
    assert not Invitation.objects.exists()


# -- the pace -------------------------------------------------------------------------------


def test_a_bank_games_turn_counts_at_most_what_it_began_with():
    from games.services import player_records

    def at(hours):
        return START + dt.timedelta(hours=hours)

    rows = [
        (None, at(0)),  # the game starts; both banks 24 h, +12 h a move, at most 30 h
        (0, at(20)),  # seat 0: 20 h, 4 h left: 16 h
        (1, at(21)),  # seat 1: 1 h, 23 h left: 30 h (the cap)
        (0, at(71)),  # seat 0: 50 h, counted at its 16 h: 0 left, 12 h
        (1, at(72)),  # seat 1: 1 h
    ]
    times = player_records.turn_times(rows, cap=3 * 86400, bank=Bank(24, 12, 30))
    assert times == {0: ((20 + 16) * 3600, 2), 1: (2 * 3600, 2)}
    lost = [*rows, (None, at(200))]  # seat 0 ran out of its 12 h
    times = player_records.turn_times(lost, cap=3 * 86400, timed_out=0, bank=Bank(24, 12, 30))
    assert times[0] == ((20 + 16 + 12) * 3600, 3)


# -- the lobby shows the terms ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "Time bank 3 days, +1 day a move, at most 90 hours"),
        ("de", "Zeitkonto 3 Tage, +1 Tag pro Zug, höchstens 90 Stunden"),
        ("fr", "Réserve de temps 3 jours, +1 jour par coup, au plus 90 heures"),
        ("it", "Riserva di tempo 3 giorni, +1 giorno a mossa, al massimo 90 ore"),
    ],
)
@pytest.mark.django_db
def test_the_lobby_shows_a_bank_games_terms(banked, players, clients, language, sentence):
    bernd = players["bernd"]
    bernd.language = language
    bernd.save()
    invitations.do_invite(players["anna"], to="bernd", bank={**TERMS, "increment_hours": 0})
    page = clients["bernd"].get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert sentence in page  # the game's line
    nothing = {"en": "nothing added", "de": "nichts dazu", "fr": "rien d", "it": "niente in"}
    assert nothing[language] in page  # the invitation's terms


@pytest.mark.django_db
def test_a_computer_opponent_has_a_bank_but_never_runs_out(players, traveller):
    from ..helpers.games import the_bots

    the_bots()
    invitation = invitations.do_invite(players["anna"], to="Deckhand", bank=TERMS)
    game = Game.objects.get(pk=invitation.game_id)
    assert game.banks == [72 * 3600, 72 * 3600]
    bot, person = (s.user for s in game.seats.order_by("-user__bot_level"))
    assert bot.is_computer and not person.is_computer
    game.to_move = bot
    assert clock.next_due(game, START, START + 30 * DAY) is None  # no clock runs for it
    game.to_move = person
    assert clock.next_due(game, START + 3 * DAY, START) is not None
