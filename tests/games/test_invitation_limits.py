"""Open invitations that fit: a rating range and a pace limit who may accept an open
invitation, on every path that accepts, and the lobby lists the ones a player may accept
first, the others dimmed with the reason."""

import datetime as dt

import pytest
from django.utils import translation

from games.models import Invitation, PlayerRecord
from games.services import fitting, invitations, player_records
from ratings.models import PlayerRating
from shanghaien.lib.errors import BadRequest, Forbidden

from ..helpers.games import play_on, post

pytestmark = pytest.mark.django_db

DAY = 86400


def rate(user, rating, games=5):
    PlayerRating.objects.update_or_create(user=user, defaults={"rating": rating, "games": games})


def pace(user, days):
    PlayerRecord.objects.update_or_create(user=user, defaults={"pace": days * DAY})


def open_invitation(user, **limits):
    return invitations.do_invite(user, to=None, **limits)


# -- the service ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "fits"),
    [(1399, False), (1400, True), (1500, True), (1600, True), (1601, False), (1320, False)],
)
def test_a_rating_range_takes_its_edges_and_refuses_beyond(players, rating, fits):
    invitation = open_invitation(players["anna"], min_rating=1400, max_rating=1600)
    rate(players["carl"], rating)
    if fits:
        game = invitations.do_accept_invitation(invitation.pk, players["carl"])
        assert game.seats.count() == 2
        return
    with pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(invitation.pk, players["carl"])
    assert refused.value.code == "outside_limits"
    assert refused.value.message == (
        f"Only players rated 1400–1600 may accept; your rating is {rating}."
    )
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.OPEN and invitation.game is None


def test_the_rating_compared_is_the_one_shown_whole_points(players):
    invitation = open_invitation(players["anna"], max_rating=1600)
    rate(players["carl"], 1600.4)  # shown as 1600
    invitations.do_accept_invitation(invitation.pk, players["carl"])
    invitation = open_invitation(players["anna"], max_rating=1600)
    rate(players["bernd"], 1600.6)  # shown as 1601
    with pytest.raises(Forbidden, match="your rating is 1601"):
        invitations.do_accept_invitation(invitation.pk, players["bernd"])


def test_one_sided_ranges_say_so(players):
    rate(players["carl"], 1700)
    low_only = open_invitation(players["anna"], min_rating=1800)
    high_only = open_invitation(players["anna"], max_rating=1650)
    with pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(low_only.pk, players["carl"])
    assert refused.value.message == (
        "Only players rated 1800 or more may accept; your rating is 1700."
    )
    with pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(high_only.pk, players["carl"])
    assert refused.value.message == (
        "Only players rated 1650 or less may accept; your rating is 1700."
    )


def test_a_player_without_a_rated_game_counts_as_the_starting_rating(players):
    above = open_invitation(players["anna"], min_rating=1600)
    with pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(above.pk, players["carl"])
    assert refused.value.message == (
        "Only players rated 1600 or more may accept; you have no rated game yet and count as 1500."
    )
    rate(players["carl"], 1800, games=0)  # a row without a rated game is no rating
    with pytest.raises(Forbidden):
        invitations.do_accept_invitation(above.pk, players["carl"])
    around = open_invitation(players["anna"], min_rating=1400, max_rating=1600)
    invitations.do_accept_invitation(around.pk, players["carl"])


@pytest.mark.parametrize(("days", "fits"), [(2.0, True), (2.04, True), (2.06, False), (3, False)])
def test_a_pace_limit_compares_the_pace_as_shown(players, days, fits):
    invitation = open_invitation(players["anna"], max_pace=2)
    pace(players["carl"], days)
    if fits:
        invitations.do_accept_invitation(invitation.pk, players["carl"])
        return
    with pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(invitation.pk, players["carl"])
    shown = f"{round(days, 1):.1f}"
    assert refused.value.message == (
        "Only players who take at most 2 days per move on average may accept; "
        f"you take {shown} days per move."
    )


def test_a_player_with_no_pace_yet_meets_a_pace_limit(players):
    invitation = open_invitation(players["anna"], max_pace=1)
    invitations.do_accept_invitation(invitation.pk, players["carl"])
    PlayerRecord.objects.create(user=players["bernd"], played=0)  # a row, no pace yet
    invitation = open_invitation(players["anna"], max_pace=1)
    invitations.do_accept_invitation(invitation.pk, players["bernd"])


def test_the_reason_is_in_the_players_language(players):
    invitation = open_invitation(players["anna"], max_pace=1)
    pace(players["carl"], 1.5)
    with translation.override("de"), pytest.raises(Forbidden) as refused:
        invitations.do_accept_invitation(invitation.pk, players["carl"])
    assert "1,5" in refused.value.message and "Only" not in refused.value.message


@pytest.mark.parametrize(
    "limits",
    [
        {"min_rating": 1700, "max_rating": 1600},
        {"min_rating": 99},
        {"max_rating": 3001},
        {"min_rating": True},
        {"min_rating": 1500.0},
        {"min_rating": "1500"},
        {"max_pace": 0},
        {"max_pace": 15},
        {"max_pace": 1.5},
    ],
)
def test_bad_limits_are_refused_and_nothing_is_made(players, limits):
    with pytest.raises(BadRequest) as refused:
        open_invitation(players["anna"], **limits)
    assert refused.value.code == "bad_limits"
    assert not Invitation.objects.exists()


def test_limits_are_for_open_invitations_only(players):
    with pytest.raises(BadRequest, match="open invitations"):
        invitations.do_invite(players["anna"], to="bernd", min_rating=1400)
    assert not Invitation.objects.exists()


def test_equal_ends_and_the_bounds_are_taken(players):
    invitation = open_invitation(players["anna"], min_rating=1500, max_rating=1500, max_pace=14)
    assert (invitation.min_rating, invitation.max_rating, invitation.max_pace) == (1500, 1500, 14)
    open_invitation(players["anna"], min_rating=100, max_rating=3000, max_pace=1)


def test_an_invitation_without_limits_reads_nothing(players, django_assert_num_queries):
    invitation = open_invitation(players["anna"])
    with django_assert_num_queries(0):
        fitting.check_fits(invitation, players["carl"])


# -- the pace, kept as games end ------------------------------------------------------------


def at(hours):
    return dt.datetime(2026, 3, 2, tzinfo=dt.UTC) + dt.timedelta(hours=hours)


def test_turns_run_from_the_event_before_to_the_players_last():
    rows = [
        (None, at(0)),  # the game starts
        (0, at(2)),  # seat 0 rolls after 2 h…
        (0, at(3)),  # …places an hour later: a turn of 3 h
        (1, at(13)),  # seat 1: 10 h
        (0, at(14)),  # seat 0: 1 h
        (1, at(200)),  # seat 1: 186 h, counted at most 72 h (3 days per move)
    ]
    times = player_records.turn_times(rows, cap=3 * DAY)
    assert times == {0: (4 * 3600, 2), 1: ((10 + 72) * 3600, 2)}


def test_a_turn_lost_on_time_counts_the_whole_allowance():
    rows = [(None, at(0)), (0, at(1)), (None, at(100))]  # seat 1 timed out
    times = player_records.turn_times(rows, cap=DAY, timed_out=1)
    assert times == {0: (3600, 1), 1: (DAY, 1)}


def test_a_finished_game_keeps_both_paces_and_at_most_the_last_games(players, game):
    play_on(game, seed=3)
    records = {r.user_id: r for r in PlayerRecord.objects.all()}
    for user in (players["anna"], players["bernd"]):
        record = records[user.pk]
        assert len(record.recent_turns) == 1 and record.recent_turns[0][1] > 5
        assert record.pace is not None and record.pace < 60  # played in one go
    record = records[players["anna"].pk]
    record.recent_turns = [[DAY, 1]] * player_records.PACE_GAMES
    record.save()
    again = invitations.do_accept_invitation(
        invitations.do_invite(players["anna"], to="bernd").pk, players["bernd"]
    )
    play_on(again, seed=4)
    record.refresh_from_db()
    assert len(record.recent_turns) == player_records.PACE_GAMES
    assert record.recent_turns[0] == [DAY, 1] and record.recent_turns[-1][1] > 5
    expected = sum(s for s, _ in record.recent_turns) / sum(t for _, t in record.recent_turns)
    assert record.pace == pytest.approx(expected)


def test_the_pace_help_names_the_games_it_counts():
    from games.forms import InvitationForm

    help_text = str(InvitationForm.base_fields["max_pace"].help_text)
    assert f"last {player_records.PACE_GAMES} finished games" in help_text


# -- the API and the lobby ------------------------------------------------------------------


def test_the_api_takes_limits_shows_them_and_refuses_outside(clients, players):
    rate(players["bernd"], 1500)
    rate(players["carl"], 1320)
    body = {"min_rating": 1400, "max_rating": 1600, "max_pace": 3}
    made = post(clients["anna"], "/api/invitations/", body)
    assert made.status_code == 201
    assert {k: made.json()[k] for k in body} == body
    sent = clients["anna"].get("/api/invitations/").json()["sent"][0]
    assert sent["min_rating"] == 1400 and sent["max_pace"] == 3
    lists = clients["carl"].get("/api/invitations/").json()
    assert lists["open"] == []
    (other,) = lists["not_for_you"]
    assert other["id"] == made.json()["id"]
    assert other["reason"] == "Only players rated 1400–1600 may accept; your rating is 1320."
    accept = f"/api/invitations/{other['id']}/accept/"
    refused = post(clients["carl"], accept)
    assert refused.status_code == 403
    assert refused.json()["error"] == {
        "code": "outside_limits",
        "message": "Only players rated 1400–1600 may accept; your rating is 1320.",
    }
    assert clients["bernd"].get("/api/invitations/").json()["open"][0]["id"] == other["id"]
    assert post(clients["bernd"], accept).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"min_rating": "1400"},
        {"max_rating": 1.5},
        {"max_pace": True},
        {"min_rating": 1600, "max_rating": 1400},
        {"max_pace": 30},
        {"to": "bernd", "max_pace": 2},
    ],
)
def test_the_api_refuses_bad_limits(clients, body):
    response = post(clients["anna"], "/api/invitations/", body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_limits"
    assert not Invitation.objects.exists()


def test_the_lobby_form_sends_limits_and_the_lobby_shows_them(clients, players):
    form = {"to": "", "days_per_move": "3", "rated": "on", "min_rating": "1400"}
    response = clients["anna"].post(
        "/invitations/new/", {**form, "max_rating": "1600", "max_pace": "2"}
    )
    assert response.status_code == 302
    invitation = Invitation.objects.get()
    assert (invitation.min_rating, invitation.max_rating, invitation.max_pace) == (1400, 1600, 2)
    own = clients["anna"].get("/").content.decode()
    assert "for ratings 1400–1600" in own
    assert "at most 2 days per move on average" in own


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"min_rating": "1600", "max_rating": "1400"}, "above the highest"),
        ({"min_rating": "abc"}, "Enter a whole number"),
        ({"max_pace": "99"}, "less than or equal to 14"),
        ({"to": "bernd", "max_pace": "2"}, "for open invitations"),
    ],
)
def test_the_lobby_form_refuses_bad_limits(clients, fields, words):
    form = {"to": "", "days_per_move": "3", "rated": "on", **fields}
    response = clients["anna"].post("/invitations/new/", form, follow=True)
    assert words in response.content.decode()
    assert not Invitation.objects.exists()


def test_the_lobby_lists_what_you_may_accept_first_and_the_rest_dimmed(clients, players):
    rate(players["carl"], 1320)
    pace(players["carl"], 2.5)
    fitting_one = open_invitation(players["anna"], max_rating=1400)
    too_low = open_invitation(players["anna"], min_rating=1400, max_rating=1600)
    too_slow = open_invitation(players["bernd"], max_pace=2)
    anyone = open_invitation(players["bernd"])
    page = clients["carl"].get("/").content.decode()
    lists = clients["carl"].get("/").context["invitations"]
    assert [i.pk for i in lists["open"]] == [anyone.pk, fitting_one.pk]
    assert [(i.pk, r) for i, r in lists["not_for_you"]] == [
        (
            too_slow.pk,
            "Only players who take at most 2 days per move on average may accept; "
            "you take 2.5 days per move.",
        ),
        (too_low.pk, "Only players rated 1400–1600 may accept; your rating is 1320."),
    ]
    assert page.count('class="invitation not-for-you"') == 2
    dimmed = page[page.index('class="invitation not-for-you"') :]
    assert "Accept" not in dimmed.split("</section>")[0]
    assert page.index(f"/invitations/{fitting_one.pk}/accept/") < page.index("not-for-you")
    # the answer is the one the service gives: outside refused, inside accepted
    with pytest.raises(Forbidden):
        invitations.do_accept_invitation(too_slow.pk, players["carl"])
    invitations.do_accept_invitation(fitting_one.pk, players["carl"])


def test_the_lobby_form_accept_path_refuses_with_the_reason(clients, players):
    rate(players["carl"], 1320)
    invitation = open_invitation(players["anna"], min_rating=1400)
    url = f"/invitations/{invitation.pk}/accept/"
    response = clients["carl"].post(url, {"client_seed": "", "commitment": ""}, follow=True)
    assert "Only players rated 1400 or more may accept; your rating is 1320." in (
        response.content.decode()
    )
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.OPEN


def test_the_lobby_reads_a_bounded_page_of_open_invitations(clients, players, monkeypatch):
    from games import queries

    monkeypatch.setattr(queries, "OPEN_SHOWN", 2)
    for _ in range(3):
        open_invitation(players["anna"])
        open_invitation(players["bernd"], min_rating=2000)
    lists = queries.invitations_for(players["carl"])
    assert len(lists["open"]) == 2 and len(lists["not_for_you"]) == 2
