"""Bot accounts (docs/bots.md, "Bring your own bot"): a person's program playing through
the API. The upgrade, the mark beside the name, never rated, a limit on the games under
way, no holidays, no chat, and losing on time like anyone."""

import datetime as dt
import json
import random
import uuid

import pytest
from django.test import Client

from accounts.holidays import do_declare_holiday
from accounts.models import ApiToken, Holiday, User
from games import bot_turns, jobs, rules
from games.models import Game, Invitation
from games.services import chat, commands, invitations
from games.words_js import words_json
from shanghaien.lib.errors import BadRequest, Forbidden, RateLimited
from tournaments.models import Entry
from tournaments.services import entries

from ..helpers.days import DAY, START
from ..helpers.games import post, the_bots

BOT_URL = "/api/account/bot/"
PASSWORD = "tavern-dice-42"


def token_client(user, scopes=("read", "play", "bot")) -> Client:
    _token, raw = ApiToken.issue(user, "my bot", scopes=scopes)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def make_bot(user) -> User:
    user.bot_account = True
    user.save(update_fields=["bot_account"])
    return user


@pytest.fixture
def robo(django_user_model):
    """A bot account, as the upgrade leaves it."""
    return make_bot(django_user_model.objects.create_user("robo", password=PASSWORD))


def casual_game(inviter, invited) -> Game:
    invitation = invitations.do_invite(inviter, to=invited.username, rated=False)
    return invitations.do_accept_invitation(invitation.pk, invited)


# -- the upgrade ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_session_makes_its_account_a_bot_account_for_good(players, clients):
    response = post(clients["anna"], BOT_URL)
    assert response.status_code == 200, response.content
    assert response.json() == {"username": "anna", "bot_account": True}
    anna = User.objects.get(username="anna")
    assert anna.bot_account and anna.is_program and not anna.is_computer
    again = post(clients["anna"], BOT_URL)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "already_bot_account"


@pytest.mark.django_db
def test_a_token_with_the_bot_scope_upgrades(players):
    response = post(token_client(players["anna"], ("bot",)), BOT_URL)
    assert response.status_code == 200
    assert User.objects.get(username="anna").bot_account


@pytest.mark.django_db
@pytest.mark.parametrize("scopes", [("read",), ("play",), ("read", "play")])
def test_a_token_without_the_bot_scope_is_refused(players, scopes):
    response = post(token_client(players["anna"], scopes), BOT_URL)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "insufficient_scope"
    assert not User.objects.get(username="anna").bot_account


@pytest.mark.django_db
def test_nobody_upgrades_without_logging_in(players):
    response = post(Client(), BOT_URL)
    assert response.status_code == 401


@pytest.mark.django_db
def test_an_account_that_played_stays_a_persons(players, clients, game):
    response = post(clients["anna"], BOT_URL)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "has_played"
    assert not User.objects.get(username="anna").bot_account
    # the game over, still: it was played
    game.status = Game.Status.FINISHED
    game.save(update_fields=["status"])
    assert post(clients["anna"], BOT_URL).json()["error"]["code"] == "has_played"


@pytest.mark.django_db
@pytest.mark.parametrize("side", ["sent", "received"])
def test_an_open_invitation_must_go_first(players, clients, side):
    anna, bernd = players["anna"], players["bernd"]
    if side == "sent":
        invitation = invitations.do_invite(anna, to="bernd")
    else:
        invitation = invitations.do_invite(bernd, to="anna")
    response = post(clients["anna"], BOT_URL)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "open_invitations"
    assert not User.objects.get(username="anna").bot_account
    if side == "sent":
        invitations.do_cancel_invitation(invitation.pk, anna)
    else:
        invitations.do_decline_invitation(invitation.pk, anna)
    assert post(clients["anna"], BOT_URL).status_code == 200


@pytest.mark.django_db
def test_an_open_invitation_to_anyone_counts_too(players, clients):
    invitations.do_invite(players["anna"])
    assert post(clients["anna"], BOT_URL).json()["error"]["code"] == "open_invitations"


@pytest.mark.django_db
def test_a_guest_staff_or_computer_account_is_refused(django_user_model, players):
    from accounts.guest_accounts import do_make_guest

    guest = do_make_guest("203.0.113.9")
    staff = django_user_model.objects.create_user("mate", password=PASSWORD, is_staff=True)
    the_bots()
    captain = User.objects.get(bot_level="captain")
    for user, code in ((guest, "guest_account"), (staff, "staff_account")):
        client = Client()
        client.force_login(user)
        response = post(client, BOT_URL)
        assert response.status_code == 409
        assert response.json()["error"]["code"] == code
        user.refresh_from_db()
        assert not user.bot_account
    # a computer opponent never logs in: the service refuses it all the same
    from accounts.bot_accounts import do_become_bot_account
    from shanghaien.lib.errors import Conflict

    with pytest.raises(Conflict) as refused:
        do_become_bot_account(captain)
    assert refused.value.code == "computer_account"


@pytest.mark.django_db
def test_a_holiday_to_come_must_be_cancelled_first(players, clients, traveller):
    anna = players["anna"]
    holiday = do_declare_holiday(anna, dt.date(2026, 3, 10), dt.date(2026, 3, 11))
    response = post(clients["anna"], BOT_URL)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "holidays_declared"
    Holiday.objects.filter(pk=holiday.pk).delete()
    assert post(clients["anna"], BOT_URL).status_code == 200


@pytest.mark.django_db
def test_a_tournament_entry_must_go_first(players, clients):
    from django.utils import timezone

    tournament = entries.do_create(
        players["bernd"],
        name="Harbour cup",
        format="knockout",
        signup_deadline=timezone.now() + dt.timedelta(hours=2),
        min_players=2,
        max_players=8,
    )
    entries.do_join(tournament.pk, players["anna"])
    response = post(clients["anna"], BOT_URL)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "tournament_entry"
    entries.do_leave(tournament.pk, players["anna"])
    assert post(clients["anna"], BOT_URL).status_code == 200


# -- what a bot account cannot do ---------------------------------------------------------


@pytest.mark.django_db
def test_a_bot_account_cannot_join_or_make_a_tournament(players, robo):
    from django.utils import timezone

    terms = {
        "name": "Harbour cup",
        "format": "knockout",
        "signup_deadline": timezone.now() + dt.timedelta(hours=2),
        "min_players": 2,
        "max_players": 8,
    }
    tournament = entries.do_create(players["bernd"], **terms)
    response = post(token_client(robo), f"/api/tournaments/{tournament.pk}/join/")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "bot_account"
    assert not Entry.objects.filter(user=robo).exists()
    with pytest.raises(Forbidden) as refused:
        entries.do_create(robo, **terms)
    assert refused.value.code == "bot_account"


@pytest.mark.django_db
def test_a_bot_account_takes_no_holidays(robo, traveller):
    response = post(
        token_client(robo), "/api/holidays/", {"start": "2026-03-10", "end": "2026-03-11"}
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "bot_account"
    assert not Holiday.objects.filter(user=robo).exists()


@pytest.mark.django_db
def test_a_game_with_a_bot_account_has_no_chat(players, robo, clients):
    game = casual_game(players["anna"], robo)
    response = post(clients["anna"], f"/api/games/{game.pk}/chat/", {"text": "ahoy"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "bot_game"
    with pytest.raises(Forbidden):
        chat.do_chat(game.pk, robo, "beep")


@pytest.mark.django_db
def test_a_bot_account_accepts_itself_and_is_never_auto_played(players, robo):
    invitation = invitations.do_invite(players["anna"], to="robo", rated=False)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.OPEN and invitation.game is None
    assert robo.pk not in bot_turns.bot_ids()


# -- never rated ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_rated_invitation_to_a_bot_account_is_refused(players, robo, clients):
    response = post(clients["anna"], "/api/invitations/", {"to": "robo", "days_per_move": 3})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bot_unrated"
    assert not Invitation.objects.exists()
    body = {"to": "robo", "days_per_move": 3, "rated": False}
    assert post(clients["anna"], "/api/invitations/", body).status_code == 201


@pytest.mark.django_db
def test_a_bot_account_cannot_ask_for_a_rated_game(players, robo):
    client = token_client(robo)
    for body in ({"to": "anna", "days_per_move": 3}, {"days_per_move": 3}):
        response = post(client, "/api/invitations/", {**body, "rated": True})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "bot_unrated"
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_a_bot_account_cannot_take_a_rated_open_invitation(players, robo):
    invitation = invitations.do_invite(players["anna"])  # rated, to anyone
    response = post(token_client(robo), f"/api/invitations/{invitation.pk}/accept/")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bot_unrated"
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.OPEN and not Game.objects.exists()


@pytest.mark.django_db
def test_an_invitation_rated_before_the_upgrade_is_not_taken_rated(players):
    invitation = invitations.do_invite(players["anna"], to="bernd")  # rated
    bernd = make_bot(players["bernd"])  # past the upgrade's checks, as a race could
    with pytest.raises(BadRequest) as refused:
        invitations.do_accept_invitation(invitation.pk, bernd)
    assert refused.value.code == "bot_unrated"
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_the_lobby_form_says_why_and_sends_nothing(players, robo, clients):
    form = {"to": "robo", "days_per_move": 3, "rated": "on"}
    response = clients["anna"].post("/invitations/new/", form, follow=True)
    assert "never rated" in response.content.decode()
    assert not Invitation.objects.exists()


@pytest.mark.django_db
def test_the_computer_plays_a_bot_account_casually_only(robo):
    the_bots()
    client = token_client(robo)
    response = post(client, "/api/invitations/", {"to": "Deckhand", "days_per_move": 3})
    assert response.json()["error"]["code"] == "bot_unrated"
    body = {"to": "Deckhand", "days_per_move": 3, "rated": False}
    response = post(client, "/api/invitations/", body)
    assert response.status_code == 201
    game = Game.objects.get()
    assert not game.rated and game.status == Game.Status.ACTIVE


@pytest.mark.django_db
def test_a_rematch_with_a_bot_account_stays_casual(players, robo, clients):
    game = casual_game(players["anna"], robo)
    game.status = Game.Status.FINISHED
    game.save(update_fields=["status"])
    response = post(clients["anna"], f"/api/games/{game.pk}/rematch/")
    assert response.status_code == 201
    assert response.json()["rated"] is False


# -- the mark beside the name -----------------------------------------------------------------


@pytest.mark.django_db
def test_the_mark_shows_in_the_game_json_the_search_and_the_pages(players, robo, clients):
    game = casual_game(players["anna"], robo)
    view = clients["anna"].get(f"/api/games/{game.pk}/").json()
    assert view["bots"] == {"me": None, "opponent": "bot"}
    found = clients["anna"].get("/api/players/?q=ro").json()["players"]
    assert [(p["username"], p["bot"]) for p in found] == [("robo", "bot")]
    mark = '<span class="tag bot">bot</span>'
    pages = ("/", f"/games/{game.pk}/", f"/games/{game.pk}/replay/", "/live/", "/players/?q=robo")
    for page in (*pages, "/users/robo/", "/users/anna/"):
        response = clients["anna"].get(page)
        assert response.status_code == 200, page
        assert mark in response.content.decode(), page
    profile = clients["anna"].get("/users/robo/").content.decode()
    assert "a program run by its owner" in profile
    # its rating: never, rather than "not yet"
    assert "Never rated: games with a bot account are always casual." in profile
    assert "no rated game finished yet" not in profile
    assert "no rated game finished yet" in clients["anna"].get("/users/bernd/").content.decode()
    # a person's name is shown without a mark
    page = clients["bernd"].get("/users/anna/").content.decode()
    heading = page[page.index("<h1>") : page.index("</h1>")]
    assert "anna" in heading and "tag bot" not in heading


@pytest.mark.django_db
def test_the_board_knows_the_words_of_the_mark(players):
    from django.utils import translation

    with translation.override("de"):
        words = words_json()
    assert set(words["bots"]) == {"deckhand", "boatswain", "captain", "admiral", "bot"}
    assert words["bots"]["bot"] and words["bots"]["bot"] != words["bots"]["captain"]


@pytest.mark.django_db
def test_the_program_mark_and_properties(players, robo):
    the_bots()
    captain = User.objects.get(bot_level="captain")
    anna = players["anna"]
    assert (captain.is_computer, captain.is_program, captain.program_mark) == (
        True,
        True,
        "captain",
    )
    assert (robo.is_computer, robo.is_program, robo.program_mark) == (False, True, "bot")
    assert (anna.is_computer, anna.is_program, anna.program_mark) == (False, False, "")


# -- the limit on games under way -----------------------------------------------------------------


@pytest.fixture
def full_robo(settings, players, robo):
    """robo at its limit of two games under way (against bernd and carl)."""
    settings.BOT_ACCOUNT_GAMES = 2
    casual_game(players["bernd"], robo)
    casual_game(players["carl"], robo)
    return robo


def assert_too_many(response):
    assert response.status_code == 429, response.content
    assert response.json()["error"]["code"] == "too_many_games"
    assert int(response["Retry-After"]) >= 1


@pytest.mark.django_db
def test_a_full_bot_account_cannot_invite(full_robo):
    client = token_client(full_robo)
    before = Invitation.objects.count()
    for body in ({"to": "anna"}, {}):
        response = post(client, "/api/invitations/", {**body, "days_per_move": 3, "rated": False})
        assert_too_many(response)
    assert Invitation.objects.count() == before


@pytest.mark.django_db
def test_a_full_bot_account_cannot_accept(players, full_robo):
    invitation = invitations.do_invite(players["anna"], to="robo", rated=False)
    response = post(token_client(full_robo), f"/api/invitations/{invitation.pk}/accept/")
    assert_too_many(response)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.OPEN
    assert Game.objects.filter(status=Game.Status.ACTIVE, seats__user=full_robo).count() == 2


@pytest.mark.django_db
def test_nobody_accepts_a_full_bot_accounts_invitation(settings, players, robo, clients):
    settings.BOT_ACCOUNT_GAMES = 2
    offer = invitations.do_invite(robo, rated=False)  # to anyone, while below the limit
    casual_game(players["bernd"], robo)
    casual_game(players["carl"], robo)
    response = post(clients["anna"], f"/api/invitations/{offer.pk}/accept/")
    assert_too_many(response)
    assert "robo" in response.json()["error"]["message"]
    offer.refresh_from_db()
    assert offer.status == Invitation.Status.OPEN


@pytest.mark.django_db
def test_a_full_bot_account_cannot_offer_a_rematch(settings, players, robo):
    settings.BOT_ACCOUNT_GAMES = 2
    over = casual_game(players["anna"], robo)
    over.status = Game.Status.FINISHED
    over.save(update_fields=["status"])
    casual_game(players["bernd"], robo)
    casual_game(players["carl"], robo)
    response = post(token_client(robo), f"/api/games/{over.pk}/rematch/")
    assert_too_many(response)
    assert not over.rematches.exists()


@pytest.mark.django_db
def test_a_full_bot_account_cannot_play_the_computer(full_robo):
    the_bots()
    body = {"to": "Captain", "days_per_move": 3, "rated": False}
    assert_too_many(post(token_client(full_robo), "/api/invitations/", body))
    assert not Game.objects.filter(seats__user__bot_level="captain").exists()


@pytest.mark.django_db
def test_open_invitations_count_in_the_limit(settings, players, robo):
    settings.BOT_ACCOUNT_GAMES = 2
    casual_game(players["anna"], robo)
    invitations.do_invite(robo, to="bernd", rated=False)
    with pytest.raises(RateLimited) as refused:
        invitations.do_invite(robo, to="carl", rated=False)
    assert refused.value.code == "too_many_games"
    assert Invitation.objects.filter(from_user=robo).count() == 1


@pytest.mark.django_db
def test_a_game_that_ends_makes_room(players, full_robo):
    game = Game.objects.filter(seats__user=full_robo).first()
    game.status = Game.Status.FINISHED
    game.save(update_fields=["status"])
    invitation = invitations.do_invite(players["anna"], to="robo", rated=False)
    assert invitations.do_accept_invitation(invitation.pk, full_robo).status == "active"


@pytest.mark.django_db
def test_a_person_is_not_held_to_the_bot_limit(settings, players):
    settings.BOT_ACCOUNT_GAMES = 1
    casual_game(players["anna"], players["bernd"])
    casual_game(players["anna"], players["carl"])  # a person: no such limit
    assert Game.objects.filter(seats__user=players["anna"]).count() == 2


# -- losing on time like anyone ---------------------------------------------------------------


def bots_turn(game, person) -> Game:
    """``game`` once the person has played until it is the bot account's turn."""
    rng = random.Random(5)
    game.refresh_from_db()
    while game.to_move_id == person.pk:
        state = game.rules_state()
        command = rules.random_command(state, state.turn, rng)
        commands.do_command(game.pk, person, command, game.version, str(uuid.uuid4()))
        game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


@pytest.mark.django_db
def test_a_bot_account_that_never_answers_loses_on_time(players, robo, traveller):
    anna = players["anna"]
    game = bots_turn(casual_game(anna, robo), anna)
    version, deadline = game.version, game.deadline
    assert deadline is not None and game.due_at is not None
    # the worker's computer opponents never move for it, however long it waits
    traveller.move_to(deadline - dt.timedelta(seconds=1))
    assert bot_turns.play_bot_turns(pause=0) == 0
    assert jobs.check_deadlines(deadline - dt.timedelta(seconds=1))["timeouts"] == 0
    game.refresh_from_db()
    assert game.version == version and game.status == Game.Status.ACTIVE
    traveller.move_to(deadline + dt.timedelta(seconds=1))
    assert jobs.check_deadlines(deadline + dt.timedelta(seconds=1))["timeouts"] == 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result_reason == "timeout" and game.winner_id == anna.pk
    assert not game.rated


@pytest.mark.django_db
def test_the_bot_account_may_be_given_an_extra_day(players, robo, clients, traveller):
    game = bots_turn(casual_game(players["anna"], robo), players["anna"])
    before = game.deadline
    response = post(clients["anna"], f"/api/games/{game.pk}/extend/")
    assert response.status_code == 200, json.dumps(response.json())
    game.refresh_from_db()
    assert game.deadline == before + DAY and game.deadline > START


@pytest.mark.django_db
def test_the_lobby_marks_a_bot_accounts_invitations(players, robo, clients):
    invitations.do_invite(robo, rated=False)  # to anyone
    invitations.do_invite(robo, to="anna", rated=False)
    lobby = clients["anna"].get("/").content.decode()
    mark = '<span class="tag bot">bot</span>'
    assert lobby.count(mark) == 2
    invitations.do_invite(players["anna"], to="robo", rated=False)
    assert clients["anna"].get("/").content.decode().count(mark) == 3  # and the one to it
    assert clients["bernd"].get("/").content.decode().count(mark) == 1  # the open one
