"""No admin page tells the deck order of a game in progress, to moderators or superusers.

A moderator may also play, so the admin must keep from them what the board keeps from
the players: which cards are still in the deck, and in which order.
"""

import re

import pytest
from django.contrib.auth.models import Group
from django.db import transaction
from django.test import Client

from games.models import Command, Event, Game
from games.redaction import SECRET_FIELDS, redacted
from games.services import endings
from moderation.roles import MODERATORS

from ..helpers.accounts import log_in_with_second_factor
from ..helpers.games import play_on

pytestmark = pytest.mark.django_db

HIDDEN = "hidden until the game is over"


@pytest.fixture(params=["moderator", "superuser"])
def staff_client(request, players, django_user_model):
    """A moderator who plays the game (anna, seat 0), or a superuser."""
    if request.param == "moderator":
        user = players["anna"]
        user.is_staff = True
        user.save()
        user.groups.add(Group.objects.get(name=MODERATORS))
    else:
        user = django_user_model.objects.create_superuser("root", password="x")
    client = Client()
    log_in_with_second_factor(client, user)
    client.user = user
    return client


@pytest.fixture
def game_under_way(game):
    """The game, some way into its second round, with commands recorded."""
    game = play_on(game, seed=3, until_version=20)
    assert game.status == Game.Status.ACTIVE
    assert game.rules_state().round >= 2
    return game


def tokens(html: str, card_ids) -> set[str]:
    """The card ids that appear in ``html`` as whole tokens ("T1" is not in "T15")."""
    return {c for c in card_ids if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", html)}


def admin_pages(game) -> dict[str, bool]:
    """Every admin page about ``game``: path -> whether it shows the start event's payload."""
    started = Event.objects.get(game=game, kind="game_started")
    later = Event.objects.filter(game=game, kind="round_started").last()
    command = Command.objects.filter(game=game).first()
    g = f"/admin/games/game/{game.pk}"
    pages = {
        f"{g}/change/": True,  # the event inline, and the narrated timeline
        f"{g}/history/": False,
        "/admin/games/game/": False,
        "/admin/games/event/": True,
        f"/admin/games/event/?game__id__exact={game.pk}": True,
        "/admin/games/event/?kind=game_started": True,
        f"/admin/games/event/{started.pk}/change/": True,
        f"/admin/games/event/{started.pk}/history/": False,
        f"/admin/games/event/{later.pk}/change/": False,
        "/admin/games/command/": False,
        f"/admin/games/command/{command.pk}/change/": False,
    }
    for seq in sorted({1, 2, 3, later.seq, game.version // 2, game.version, game.version + 5}):
        pages[f"{g}/board/{seq}/"] = False
    return pages


def test_no_admin_page_shows_the_deck_of_a_game_in_progress(staff_client, game_under_way):
    game = game_under_way
    in_deck = game.rules_state().deck  # not yet dealt: what no one may know
    assert len(in_deck) >= 24
    for path, shows_payload in admin_pages(game).items():
        page = staff_client.get(path)
        if path.startswith("/admin/games/command/"):
            # Moderators are not given the commands at all; superusers are.
            may_see = staff_client.user.has_perm("games.view_command")
            assert page.status_code == (200 if may_see else 403), path
        else:
            assert page.status_code == 200, path
        html = page.content.decode()
        assert not tokens(html, in_deck), f"{path} shows cards of the deck"
        if shows_payload:
            assert HIDDEN in html, path
    # The dealt cards are no secret: the payloads are shown, all but the deck.
    started = Event.objects.get(game=game, kind="game_started")
    page = staff_client.get(f"/admin/games/event/{started.pk}/change/").content.decode()
    assert "first_player" in page and "extra_wild" in page
    tavern = Event.objects.filter(game=game, kind="round_started").last().payload["tavern"]
    game_page = staff_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert tokens(game_page, tavern) == set(tavern)


def test_once_the_game_is_over_the_whole_payload_is_shown(staff_client, game_under_way):
    game = game_under_way
    started = Event.objects.get(game=game, kind="game_started")
    deck = started.payload["deck"]
    with transaction.atomic():
        endings.end_by_server(
            Game.objects.select_for_update().get(pk=game.pk), "annulled", winner=None
        )
    for path in (
        f"/admin/games/event/{started.pk}/change/",
        f"/admin/games/game/{game.pk}/change/",
    ):
        html = staff_client.get(path).content.decode()
        assert HIDDEN not in html, path
        assert tokens(html, deck) == set(deck), path
        # In the deck's order, as the log holds it.
        positions = [re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", html).start() for c in deck]
        assert positions == sorted(positions), path


@pytest.mark.parametrize(
    "path",
    [
        "/admin/games/event/?payload__deck__0={top}",
        "/admin/games/event/?payload__deck__contains={top}",
        "/admin/games/event/?payload__contains={top}",
        "/admin/games/event/?payload__icontains={top}",
        "/admin/games/event/?payload__has_key=deck",
        "/admin/games/event/?game__state__deck__0={top}",
        "/admin/games/game/?state__deck__0={top}",
        "/admin/games/game/?state__icontains={top}",
        "/admin/games/game/?events__payload__deck__0={top}",
        "/admin/games/command/?game__state__deck__0={top}",
        "/admin/games/command/?game__events__payload__deck__0={top}",
        "/admin/games/seat/?game__state__deck__0={top}",
        "/admin/games/invitation/?game__state__deck__0={top}",
        "/admin/games/chatmessage/?game__events__payload__deck__0={top}",
        "/admin/moderation/report/?game__state__deck__0={top}",
        "/admin/accounts/user/?seats__game__events__payload__deck__0={top}",
    ],
)
def test_a_changelist_cannot_be_filtered_on_the_secrets(staff_client, game, path):
    started = Event.objects.get(game=game, kind="game_started")
    top = started.payload["deck"][0]
    # The probe would work if allowed: the query answers it.
    assert Event.objects.filter(payload__deck__0=top).exists()
    app, model = path.split("/")[2:4]
    # Refused as a suspicious request, or the whole list is out of reach for this user.
    may_see = staff_client.user.has_perm(f"{app}.view_{model}")
    page = staff_client.get(path.format(top=top))
    assert page.status_code == (400 if may_see else 403), (path, page.status_code)
    assert top not in page.content.decode()


def test_a_rating_change_leads_to_no_game(staff_client, game):
    """A rating change knows its game by the id alone: no lookup reaches the game's row."""
    started = Event.objects.get(game=game, kind="game_started")
    top = started.payload["deck"][0]
    page = staff_client.get(f"/admin/ratings/ratingchange/?game__state__deck__0={top}")
    assert page.status_code == 302 and page.url.endswith("?e=1")  # an unknown lookup


def test_harmless_filters_still_work(staff_client, game):
    for path in (
        "/admin/games/event/?kind=game_started",
        f"/admin/games/event/?game__id__exact={game.pk}",
        "/admin/games/game/?status__exact=active",
        "/admin/games/game/?q=anna",
    ):
        assert staff_client.get(path).status_code == 200, path


def test_the_board_before_the_first_event_is_not_found(staff_client, game):
    assert staff_client.get(f"/admin/games/game/{game.pk}/board/0/").status_code == 404


def test_redacted_hides_the_secret_fields_until_the_game_is_over():
    payload = {"deck": ["T1", "american-1"], "first_player": 1, "extra_wild": False}
    shown = redacted("game_started", payload, game_over=False)
    assert shown == {"deck": HIDDEN, "first_player": 1, "extra_wild": False}
    assert redacted("game_started", payload, game_over=True) == payload
    assert redacted("rolled", {"seat": 0, "dice": [2, 5]}, game_over=False)["dice"] == [2, 5]
    assert SECRET_FIELDS["game_started"] == {"deck"}
