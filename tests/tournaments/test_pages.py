"""The tournament pages (the list, the form, a tournament's page, its buttons, the rules),
what a tournament tells its players (the outbox, in their language), and the live
notice an open page hears."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from games.models import Notification
from games.notify import mail as mails
from tournaments import queries
from tournaments.models import Entry, Match, Tournament

from ..helpers.accounts import confirmed_address
from .conftest import active_games, end_game, higher_seed_wins, open_tournament, play_stage, started

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def html(response) -> str:
    return response.content.decode()


# -- the list ---------------------------------------------------------------------------


def test_the_list_shows_open_and_running_featured_first(make_players, staff):
    creator, *players = make_players(5)
    running = started(creator, "round_robin", players[:3])
    plain = open_tournament(creator, "knockout")
    featured = open_tournament(staff, "knockout")
    assert featured.featured and not plain.featured
    Tournament.objects.filter(pk=plain.pk).update(name="Plain cup")
    Tournament.objects.filter(pk=featured.pk).update(name="Staff cup")
    Tournament.objects.filter(pk=running.pk).update(name="Running cup")
    page = html(Client().get("/tournaments/"))  # anyone may look
    assert page.index("Staff cup") < page.index("Plain cup") < page.index("Running cup")
    mine = html(logged_in(players[0]).get("/tournaments/"))
    assert "Your tournaments" in mine and mine.index("Running cup") < mine.index("Staff cup")


def test_the_list_pages_by_its_cursor(make_players, monkeypatch):
    monkeypatch.setattr(queries, "LIST_PAGE", 2)
    creators = make_players(5, prefix="c")
    names = []
    for i, creator in enumerate(creators):
        t = open_tournament(creator, "knockout")
        Tournament.objects.filter(pk=t.pk).update(
            name=f"Cup {i}", signup_deadline=timezone.now() + dt.timedelta(days=i + 1)
        )
        names.append(f"Cup {i}")
    client = Client()
    seen, url = [], "/tournaments/"
    for _ in range(5):
        page = html(client.get(url))
        seen += [name for name in names if name in page and name not in seen]
        marker = 'href="?which=signup&amp;after='
        if marker not in page:
            break
        url = "/tournaments/?which=signup&after=" + page.split(marker)[1].split('"')[0]
    assert seen == names
    assert client.get("/tournaments/?which=signup&after=garbage%00").status_code == 200


# -- the form ---------------------------------------------------------------------------


def form_data(**changes):
    deadline = timezone.localtime() + dt.timedelta(days=3)
    data = {
        "name": "Autumn cup",
        "description": "Friendly",
        "format": "groups_knockout",
        "rated": "on",
        "clock": "days",
        "days_per_move": "3",
        "bank_start": "72",
        "bank_increment": "24",
        "bank_cap": "168",
        "min_rating": "",
        "max_rating": "",
        "min_players": "4",
        "max_players": "16",
        "group_size": "4",
        "advance": "2",
        "signup_deadline": deadline.strftime("%Y-%m-%dT%H:%M"),
    }
    data.update(changes)
    return data


def test_the_form_makes_a_tournament(make_players):
    (anna,) = make_players(1)
    client = logged_in(anna)
    assert client.get("/tournaments/new/").status_code == 200
    response = client.post("/tournaments/new/", form_data(clock="bank", extra_wild="on"))
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert response["Location"] == f"/tournaments/{t.pk}/"
    assert (t.name, t.format, t.extra_wild, t.rated) == (
        "Autumn cup",
        "groups_knockout",
        True,
        True,
    )
    assert (t.bank_start_hours, t.bank_increment_hours, t.bank_cap_hours) == (72, 24, 168)
    assert t.created_by == anna and t.status == "signup"


def test_the_form_and_the_pages_say_the_clock_as_the_lobby_does(make_players):
    """The clock's fields are the invitation form's (games.forms.ClockForm), and the
    pages give the terms in the lobby's words (games.clock.bank_text)."""
    anna, bernd = make_players(2)
    form = html(logged_in(anna).get("/tournaments/new/"))
    for name in ("bank_start", "bank_increment", "bank_cap", "days_per_move"):
        assert f'<select name="{name}"' in form
    assert 'type="radio" name="clock" value="bank"' in form
    logged_in(anna).post("/tournaments/new/", form_data(clock="bank"))
    logged_in(bernd).post("/tournaments/new/", form_data(name="Slow cup", days_per_move="7"))
    banked, slow = Tournament.objects.order_by("pk")
    words = "Time bank 3 days, +1 day a move, at most 7 days"
    assert words in html(Client().get(f"/tournaments/{banked.pk}/"))
    assert "7 days per move" in html(Client().get(f"/tournaments/{slow.pk}/"))
    listing = html(Client().get("/tournaments/"))
    assert words in listing and "7 days per move" in listing
    german = html(Client(headers={"accept-language": "de"}).get(f"/tournaments/{banked.pk}/"))
    assert "Zeitkonto 3 Tage, +1 Tag pro Zug, höchstens 7 Tage" in german


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": ""}, "name"),
        ({"format": "swiss"}, "format"),
        ({"days_per_move": "4"}, "days_per_move"),
        ({"clock": "bank", "bank_start": ""}, "bank_start"),
        ({"clock": "bank", "bank_start": "73"}, "bank_start"),
        ({"clock": "bank", "bank_start": "168", "bank_cap": "72"}, "bank_cap"),
        ({"min_rating": "1600", "max_rating": "1400"}, "max_rating"),
        ({"min_players": "9", "max_players": "4"}, "max_players"),
        ({"min_players": "-1"}, "min_players"),
        ({"signup_deadline": "2001-01-01T10:00"}, "signup_deadline"),
        ({"signup_deadline": "soon"}, "signup_deadline"),
        ({"group_size": "99999999999999999999"}, "group_size"),
    ],
)
def test_a_bad_form_shows_its_errors_and_makes_nothing(make_players, changes, field):
    (anna,) = make_players(1)
    response = logged_in(anna).post("/tournaments/new/", form_data(**changes))
    assert response.status_code == 400
    assert response.context["form"].errors.get(field), response.context["form"].errors
    assert 'aria-invalid="true"' in html(response)
    assert not Tournament.objects.exists()


def test_the_service_refusal_is_shown_on_the_form(make_players):
    (anna,) = make_players(1)
    client = logged_in(anna)
    for _ in range(10):  # a player's own tournaments are limited
        if client.post("/tournaments/new/", form_data()).status_code != 302:
            break
    response = client.post("/tournaments/new/", form_data())
    assert response.status_code == 400
    assert response.context["form"].non_field_errors()
    count = Tournament.objects.count()
    assert client.post("/tournaments/new/", form_data()).status_code == 400
    assert Tournament.objects.count() == count


def test_the_form_needs_a_login_and_its_token(make_players):
    (anna,) = make_players(1)
    assert Client().get("/tournaments/new/").status_code == 302
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(anna)
    assert guarded.post("/tournaments/new/", form_data()).status_code == 403
    assert not Tournament.objects.exists()


# -- a tournament's page and its buttons ----------------------------------------------


def test_sign_up_leave_and_the_errors_as_messages(make_players):
    creator, anna, bernd = make_players(3)
    t = open_tournament(creator, "knockout", max_players=2)
    client = logged_in(anna)
    page = html(client.get(f"/tournaments/{t.pk}/"))
    assert f'action="/tournaments/{t.pk}/join/"' in page
    response = client.post(f"/tournaments/{t.pk}/join/", follow=True)
    assert Entry.objects.filter(tournament=t, user=anna).exists()
    assert "You are signed up." in html(response)
    assert f'action="/tournaments/{t.pk}/leave/"' in html(response)
    client.post(f"/tournaments/{t.pk}/leave/")
    assert not Entry.objects.filter(tournament=t, user=anna).exists()
    # a refusal says why, and changes nothing
    client.post(f"/tournaments/{t.pk}/join/")
    logged_in(creator).post(f"/tournaments/{t.pk}/join/")
    response = logged_in(bernd).post(f"/tournaments/{t.pk}/join/", follow=True)
    assert response.status_code == 200
    assert not Entry.objects.filter(tournament=t, user=bernd).exists()
    assert 'class="error"' in html(response)
    assert logged_in(bernd).post(f"/tournaments/{t.pk}/dance/").status_code == 404
    assert logged_in(bernd).post("/tournaments/99999999/join/").status_code == 404
    assert logged_in(bernd).get(f"/tournaments/{t.pk}/join/").status_code == 405
    assert Client().post(f"/tournaments/{t.pk}/join/").status_code == 302  # log in first


def test_a_running_page_shows_groups_crosstables_games_and_then_the_bracket(make_players):
    creator, *players = make_players(9)
    t = started(creator, "groups_knockout", players[:8], group_size=4, advance=2)
    client = logged_in(players[0])
    page = html(client.get(f"/tournaments/{t.pk}/"))
    assert "Group A" in page and "Group B" in page and "Crosstable" in page
    for mg in active_games(t):
        assert f'href="/games/{mg.game_id}/"' in page
    assert f'action="/tournaments/{t.pk}/withdraw/"' in page
    play_stage(t, higher_seed_wins)
    t.refresh_from_db()
    page = html(client.get(f"/tournaments/{t.pk}/"))
    assert "Knock-out" in page and "Semi-finals" in page
    assert page.count('class="bracket-match') == 2
    while t.status == "running":
        play_stage(t, higher_seed_wins)
        t.refresh_from_db()
    page = html(client.get(f"/tournaments/{t.pk}/"))
    assert "won the tournament" in page and t.winner.username in page
    assert "Final places" in page and "Final" in page
    assert "MP" in page and "SB" in page


def test_withdrawing_from_the_page(make_players):
    creator, *players = make_players(5)
    t = started(creator, "round_robin", players[:4])
    client = logged_in(players[1])
    response = client.post(f"/tournaments/{t.pk}/withdraw/", follow=True)
    assert "remaining games are forfeited" in html(response)
    assert Entry.objects.get(tournament=t, user=players[1]).status == "withdrawn"
    assert "Withdrawn" in html(client.get(f"/tournaments/{t.pk}/"))


def test_a_missing_tournament_is_a_404(make_players):
    (anna,) = make_players(1)
    for path in ("/tournaments/0/", "/tournaments/424242/", "/tournaments/9" * 3 + "9999999999/"):
        assert logged_in(anna).get(path).status_code == 404


def test_the_rules_page_in_each_language():
    for language, words in {
        "en": "Tournament rules",
        "de": "Turnierregeln",
        "fr": "Règlement des tournois",
        "it": "Regolamento dei tornei",
    }.items():
        page = html(Client(headers={"accept-language": language}).get("/tournaments/rules/"))
        assert words in page, language


@pytest.mark.parametrize("players", [8, 64])
def test_a_page_reads_in_a_fixed_number_of_statements(
    make_players, players, django_assert_max_num_queries
):
    creator, *people = make_players(players + 1)
    t = started(creator, "groups_knockout", people, group_size=4, advance=2)
    for mg in active_games(t)[: players // 2]:
        end_game(mg.game_id, mg.match.entry_a.user)
    client = logged_in(people[0])
    client.get(f"/tournaments/{t.pk}/")  # the session and the account read once
    with CaptureQueriesContext(connection) as statements:
        response = client.get(f"/tournaments/{t.pk}/")
    assert response.status_code == 200
    assert len(statements) <= 16, [q["sql"][:80] for q in statements.captured_queries]
    with django_assert_max_num_queries(4):
        queries.tournament_view(t.pk)


def test_the_page_reads_the_same_count_at_8_and_64(make_players):
    counts = []
    for n, prefix in ((8, "s"), (64, "b")):
        creator, *people = make_players(n + 1, prefix=prefix)
        t = started(creator, "groups_knockout", people, group_size=4, advance=2)
        client = logged_in(people[0])
        client.get(f"/tournaments/{t.pk}/")
        with CaptureQueriesContext(connection) as statements:
            client.get(f"/tournaments/{t.pk}/")
        counts.append(len(statements))
    assert counts[0] == counts[1]


# -- what the players are told -------------------------------------------------------------


def rows(kind="tournament"):
    return list(Notification.objects.filter(kind=kind, channel="email").order_by("key", "user_id"))


def email(notification, language):
    notification.user.refresh_from_db()
    with translation.override(language):
        return mails._compose(notification, mails.kinds.get("tournament"))


def test_each_event_queues_one_email_per_player_in_their_language(make_players):
    creator, *players = make_players(5)
    for player in players:
        confirmed_address(player)
    t = started(creator, "knockout", players)
    told = rows()
    assert sorted(n.user_id for n in told) == sorted(p.pk for p in players)
    assert {n.key for n in told} == {f"{t.pk}:started"}
    subject, body = email(told[0], "en")
    assert subject == f"The tournament {t.name} has begun"
    assert f"/tournaments/{t.pk}/" in body
    players[0].language = "de"
    players[0].save(update_fields=["language"])
    de = next(n for n in told if n.user_id == players[0].pk)
    de.user.refresh_from_db()
    subject, body = mails.compose(de)
    assert subject == f"Das Turnier {t.name} hat begonnen"
    assert body.startswith("Deine ersten Partien haben begonnen")
    assert "Um die E-Mails zu deinen Turnieren abzubestellen, öffne:" in body

    # the next stage: a new game for each player still in, once each
    Notification.objects.all().delete()
    play_stage(t, higher_seed_wins)
    t.refresh_from_db()
    began = rows()
    in_play = {mg.game_id for mg in active_games(t)}
    assert began and all(n.key.startswith(f"{t.pk}:game:") for n in began)
    assert {n.game_id for n in began} == in_play
    assert len(began) == 2 * len(in_play)
    subject, body = email(began[0], "de")
    assert (
        subject == f"Eine neue Partie im Turnier {t.name}" and f"/games/{began[0].game_id}/" in body
    )

    # the end: everyone, with their place
    Notification.objects.all().delete()
    while t.status == "running":
        play_stage(t, higher_seed_wins)
        t.refresh_from_db()
    ended = rows()
    assert sorted(n.user_id for n in ended) == sorted(p.pk for p in players)
    assert {n.key for n in ended} == {f"{t.pk}:ended"}
    winner = next(n for n in ended if n.user_id == t.winner_id)
    assert email(winner, "en")[1].startswith("You won it.")
    assert email(winner, "de")[1].startswith("Du hast es gewonnen.")
    loser = next(n for n in ended if n.user_id != t.winner_id)
    place = Entry.objects.get(tournament=t, user_id=loser.user_id).final_place
    assert f"place {place} of 4" in email(loser, "en")[1]
    assert f"Platz {place} von 4" in email(loser, "de")[1]


def test_a_cancelled_tournament_tells_its_players(make_players, staff):
    creator, *players = make_players(3)
    for player in players:
        confirmed_address(player)
    t = open_tournament(creator, "knockout")
    for player in players:
        logged_in(player).post(f"/tournaments/{t.pk}/join/")
    logged_in(staff).post(f"/tournaments/{t.pk}/cancel/")
    told = rows()
    assert sorted(n.user_id for n in told) == sorted(p.pk for p in players)
    assert {n.key for n in told} == {f"{t.pk}:cancelled"}
    assert email(told[0], "en")[0] == f"The tournament {t.name} was cancelled"
    assert email(told[0], "de")[0] == f"Das Turnier {t.name} wurde abgesagt"


def test_a_notification_of_a_gone_tournament_is_not_sent(make_players):
    (anna,) = make_players(1)
    confirmed_address(anna)
    for key in ("999999:started", "x:started", "1:game", "1:game:x"):
        notification = Notification(user=anna, kind="tournament", key=key)
        assert isinstance(email(notification, "en"), str)


# -- live ----------------------------------------------------------------------------------


def test_a_change_is_told_after_the_commit(
    make_players, monkeypatch, django_capture_on_commit_callbacks
):
    told = []
    monkeypatch.setattr("games.live.topics.topic_changed", lambda *args: told.append(args))
    creator, anna = make_players(2)
    t = open_tournament(creator, "knockout")
    with django_capture_on_commit_callbacks(execute=True):
        logged_in(anna).post(f"/tournaments/{t.pk}/join/")
    t.refresh_from_db()
    assert told and told[-1] == ("tournament", t.pk, t.version)


def test_the_page_names_its_topic_for_the_script(make_players):
    creator, anna = make_players(2)
    t = open_tournament(creator, "knockout")
    page = html(logged_in(anna).get(f"/tournaments/{t.pk}/"))
    assert f'data-watch="tournament" data-watch-id="{t.pk}"' in page
    assert Match.objects.count() == 0
