"""Finding players by the start of their name (the header's search, its page and its
endpoint) and the friends page: who is followed, the games waiting against them, and an
invitation in one step; a friend's open invitation marked in the lobby."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import name_search as search
from accounts.follows import do_follow
from accounts.models import Block
from games.models import Invitation, PlayerRecord
from games.services import invitations
from ratings.models import PlayerRating
from shanghaien.lib.errors import BadRequest

pytestmark = pytest.mark.django_db

HOSTILE = [
    "",
    "   ",
    "x" * 151,
    "<script>alert(1)</script>",
    "%",
    "a b",
    "a\x00b",
    "' OR 1=1 --",
    "\ud800",
]


@pytest.fixture
def many(players):
    users = get_user_model()
    users.objects.bulk_create(users(username=f"Sailor{n:02d}", password="!") for n in range(25))
    return players


def names(found):
    return [p.username for p in found.players]


def test_a_prefix_finds_names_in_any_case_by_name_a_page_at_a_time(many):
    first = search.players_named("sAIL")
    assert names(first) == [f"Sailor{n:02d}" for n in range(20)]
    assert first.next == "SAILOR19"
    second = search.players_named("sail", first.next)
    assert names(second) == [f"Sailor{n:02d}" for n in range(20, 25)]
    assert second.next is None
    assert names(search.players_named("  ANN ")) == ["anna"]
    assert names(search.players_named("zz")) == []


def test_guests_closed_and_suspended_accounts_are_not_found(players, django_user_model):
    now = timezone.now()
    django_user_model.objects.create_user("anita", guest_until=now + timedelta(hours=1))
    django_user_model.objects.create_user("annette", is_active=False)
    django_user_model.objects.create_user("annika", suspended_until=now + timedelta(days=1))
    django_user_model.objects.create_user("annabel", suspended_until=now - timedelta(days=1))
    assert names(search.players_named("an")) == ["anna", "annabel"]


def test_the_computer_opponents_are_found_with_their_mark(clients):
    page = clients["anna"].get("/players/?q=capt").content.decode()
    assert "computer · Captain" in page


def test_a_percent_or_underscore_is_not_a_wildcard(players, django_user_model):
    django_user_model.objects.create_user("a_b")
    django_user_model.objects.create_user("axb")
    assert names(search.players_named("a_")) == ["a_b"]


@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_queries_are_refused_in_words(q):
    with pytest.raises(BadRequest) as refused:
        search.players_named(q)
    assert refused.value.code == "bad_query"
    with pytest.raises(BadRequest):
        search.players_named("anna", after="not a key")


def test_the_results_page(many, clients):
    PlayerRating.objects.create(user=many["bernd"], rating=1612.4, games=3)
    PlayerRecord.objects.create(user=many["bernd"], played=7)
    page = clients["anna"].get("/players/?q=B").content.decode()
    assert "bernd" in page and ">1612<" in page and ">7<" in page
    assert 'href="/?to=bernd#invite"' in page
    assert 'href="/?to=anna#invite"' not in clients["anna"].get("/players/?q=a").content.decode()
    sailors = clients["anna"].get("/players/?q=sail").content.decode()
    assert "Sailor19" in sailors and "Sailor20" not in sailors
    assert 'href="/players/?q=sail&amp;after=SAILOR19"' in sailors
    more = clients["anna"].get("/players/?q=sail&after=SAILOR19").content.decode()
    assert "Sailor20" in more and "Sailor19" not in more
    none = clients["anna"].get("/players/?q=qq").content.decode()
    assert "No player's name starts with “qq”." in none


@pytest.mark.parametrize("q", HOSTILE[2:-1])
def test_the_results_page_answers_hostile_queries_with_a_message(clients, q):
    response = clients["anna"].get("/players/", {"q": q})
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()


def test_the_results_page_without_a_query_asks_for_one(clients):
    page = clients["anna"].get("/players/")
    assert page.status_code == 200
    assert "Type the start of a player's name" in page.content.decode()
    assert Client().get("/players/?q=a").status_code == 302  # to the login page


def test_the_endpoint(many, clients):
    PlayerRating.objects.create(user=many["bernd"], rating=1612.4, games=3)
    answer = clients["anna"].get("/api/players/?q=BER")
    assert answer.status_code == 200
    assert answer.json() == {
        "players": [{"username": "bernd", "bot": None, "rating": 1612, "games": 0}],
        "next": None,
    }
    page = clients["anna"].get("/api/players/?q=sail").json()
    assert len(page["players"]) == 20
    assert page["next"] == "/api/players/?q=sail&after=SAILOR19"
    rest = clients["anna"].get(page["next"]).json()
    assert [p["username"] for p in rest["players"]] == [f"Sailor{n}" for n in range(20, 25)]
    refused = clients["anna"].get("/api/players/?q=%3Cb%3E")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "bad_query"
    assert clients["anna"].get("/api/players/").status_code == 400
    assert Client().get("/api/players/?q=a").status_code == 401


def test_the_header_has_the_search_and_the_friends_link(clients, django_user_model):
    page = clients["anna"].get("/rules/").content.decode()
    assert 'role="search"' in page and 'action="/players/"' in page
    assert 'href="/friends/"' in page
    assert 'role="search"' not in Client().get("/rules/").content.decode()


def test_the_friends_page(players, clients, game):
    anna = players["anna"]
    do_follow(anna, "bernd")
    do_follow(anna, "carl")
    page = clients["anna"].get("/friends/").content.decode()
    assert page.index("bernd") < page.index("carl")
    # the game waits for whoever moves first: linked beside bernd only when it is anna's turn
    waiting = f'href="/games/{game.pk}/"' in page
    assert waiting == (game.to_move_id == anna.pk)
    assert 'action="/invitations/new/"' in page and 'name="to" value="carl"' in page
    bernds = clients["bernd"].get("/friends/").content.decode()
    assert "You follow nobody yet." in bernds
    assert Client().get("/friends/").status_code == 302


def test_the_friends_page_links_the_games_waiting_against_a_friend(players, clients, game):
    mover = game.to_move
    other = players["bernd"] if mover.username == "anna" else players["anna"]
    do_follow(mover, other.username)
    page = clients[mover.username].get("/friends/").content.decode()
    assert f'href="/games/{game.pk}/"' in page
    assert f"Your turn in game {game.pk}" in page
    do_follow(other, mover.username)
    assert (
        f'href="/games/{game.pk}/"' not in clients[other.username].get("/friends/").content.decode()
    )


def test_invite_in_one_step_from_the_friends_page(players, clients):
    do_follow(players["anna"], "carl")
    page = clients["anna"].get("/friends/").content.decode()
    form = page[page.index('action="/invitations/new/"') :]
    form = form[: form.index("</form>")]
    fields = dict(
        (part.split('name="')[1].split('"')[0], part.split('value="')[1].split('"')[0])
        for part in form.split("<input")[1:]
    )
    response = clients["anna"].post("/invitations/new/", fields, follow=True)
    assert "Invitation sent." in response.content.decode()
    sent = Invitation.objects.get()
    assert (sent.from_user, sent.to_user, sent.days_per_move, sent.rated) == (
        players["anna"],
        players["carl"],
        3,
        True,
    )
    assert "carl" in clients["carl"].get("/").content.decode()


def test_a_friends_open_invitation_is_marked_in_the_lobby(players, clients):
    invitations.do_invite(players["bernd"])
    invitations.do_invite(players["carl"])
    lobby = clients["anna"].get("/").content.decode()
    assert "from-friend" not in lobby
    do_follow(players["anna"], "bernd")
    lobby = clients["anna"].get("/").content.decode()
    assert lobby.count("invitation from-friend") == 1
    marked = lobby[lobby.index("invitation from-friend") :]
    marked = marked[: marked.index("</div>")]
    assert "bernd" in marked and "carl" not in marked
    Block.objects.create(user=players["bernd"], blocked=players["anna"])
    assert "from-friend" not in clients["anna"].get("/").content.decode()


def test_the_lobby_fills_in_the_name_to_invite(clients):
    lobby = clients["anna"].get("/?to=bernd").content.decode()
    assert 'name="to" value="bernd"' in lobby
    hostile = clients["anna"].get("/?to=%3Cb%3E").content.decode()
    assert "&lt;b&gt;" not in hostile and 'name="to" value=' not in hostile


def test_the_friends_page_costs_the_same_with_more_friends(players, clients, django_user_model):
    do_follow(players["anna"], "bernd")
    with CaptureQueriesContext(connection) as few:
        clients["anna"].get("/friends/")
    for n in range(10):
        django_user_model.objects.create_user(f"mate{n}")
        do_follow(players["anna"], f"mate{n}")
    with CaptureQueriesContext(connection) as more:
        clients["anna"].get("/friends/")
    assert len(more) == len(few)


def test_search_reads_the_prefix_index_in_order(postgres_only, django_user_model):
    users = django_user_model
    users.objects.bulk_create(users(username=f"player{n}", password="!") for n in range(3000))
    users.objects.bulk_create(
        users(username=f"Guest-{n:06d}", password="!", guest_until=timezone.now())
        for n in range(2000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user")
    with CaptureQueriesContext(connection) as captured:
        found = search.players_named("PLA")
    assert len(found.players) == 20
    (statement,) = [q["sql"] for q in captured.captured_queries]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement)
        plan = cursor.fetchone()[0][0]["Plan"]
    assert plan["Node Type"] == "Limit"
    scan = plan["Plans"][0]
    assert scan["Node Type"] == "Index Scan", plan  # in the index's order: no sort
    assert scan["Index Name"] == "user_username_prefix_idx"
    assert scan["Actual Rows"] == 21  # a page and one more, of 3,000 names that match


def test_friends_online_first_and_presence_in_the_results(players, clients):
    from shanghaien.lib.sockets import SocketSlots

    anna = players["anna"]
    do_follow(anna, "bernd")
    do_follow(anna, "carl")
    slots = SocketSlots()
    place = slots.take(players["carl"].pk)  # carl has a page open
    page = clients["anna"].get("/friends/").content.decode()
    assert page.index("carl") < page.index("bernd")  # online first
    carls = page[page.index('<li class="friend') : page.index("bernd")]
    assert "Online now" in carls
    found = clients["anna"].get("/players/?q=c").content.decode()
    assert "Online now" in found
    slots.give_back(place)
    page = clients["anna"].get("/friends/").content.decode()
    assert "Online now" not in page
    assert page.index("bernd") < page.index("carl")


def test_a_hidden_presence_is_not_shown(players, clients, django_user_model):
    from shanghaien.lib.sockets import SocketSlots

    django_user_model.objects.filter(pk=players["carl"].pk).update(
        show_presence=False, last_seen_at=timezone.now()
    )
    SocketSlots().take(players["carl"].pk)
    do_follow(players["anna"], "carl")
    assert "Online now" not in clients["anna"].get("/friends/").content.decode()
    assert (
        "Last seen"
        not in clients["anna"].get("/players/?q=carl").content.decode().split("</thead>")[1]
    )
