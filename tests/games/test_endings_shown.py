"""How a game that is over is told: the annulled game with its moderator's reason, every
other ending in words (never a code), no score for a game that ended without play, and
the lobby's empty state for a player whose games are all over."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games.models import Event, Game
from games.rules.scoring import score as final_score
from games.services import endings

from ..helpers.games import abort_as_before, command_body, on_turn, play_on, post

pytestmark = pytest.mark.django_db

REASON = "Both accounts belong to one person."
RAW_CODES = re.compile(r"\((?:timeout|resignation|aborted|annulled|adjudicated|completed|)\)")


def annul(game, moderator, reason=REASON):
    from moderation.services import do_annul  # the tests may; the games app may not

    return do_annul(game.pk, moderator, reason)


def command(client, game, cmd):
    game.refresh_from_db()
    response = post(client, f"/api/games/{game.pk}/commands/", command_body(cmd, game.version))
    assert response.status_code == 200, response.content
    return response.json()


def finished_list(client) -> list[dict]:
    return client.get("/api/games/?status=finished").json()["games"]


def listed(client, game) -> dict:
    return next(g for g in finished_list(client) if g["id"] == game.pk)


def finished_page(client) -> str:
    return client.get("/games/finished/").content.decode()


def visible(page: str) -> str:
    """The page without its scripts (every page carries the board's words as JSON)."""
    return re.sub(r"<script\b.*?</script>", "", page, flags=re.S)


def row_of(page: str, game) -> str:
    """The finished page's table row of ``game``."""
    rows = re.findall(r"<tr class=\"ended[^\"]*\">.*?</tr>", page, re.S)
    return next(r for r in rows if f'/games/{game.pk}/"' in r)


# -- annulled ------------------------------------------------------------------------------


def test_an_annulled_game_says_why_and_stays_in_both_players_lists(game, moderator, clients):
    play_on(game, seed=2, until_version=10)  # under way: cards may have been played
    annul(game, moderator)
    game.refresh_from_db()
    assert game.status == "annulled"
    event = Event.objects.get(game=game, kind="game_ended")
    assert event.payload == {"reason": "annulled", "winner": None, "note": REASON}
    sentence = f"Game annulled by a moderator: {REASON}"
    for name in ("anna", "bernd"):
        client = clients[name]
        assert client.get(f"/api/games/{game.pk}/").json()["outcome"] == sentence
        entry = listed(client, game)
        assert (entry["status"], entry["outcome"], entry["result"]) == ("annulled", sentence, None)
        assert game.pk not in [g["id"] for g in client.get("/api/games/").json()["games"]]
        row = row_of(finished_page(client), game)
        assert sentence in row and "rated" not in row  # no result: no rating changed
    watcher = clients["carl"].get(f"/api/games/{game.pk}/").json()
    assert watcher["outcome"] == sentence
    # the replay's timeline tells the moderator's reason at the end
    steps = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()["steps"]
    assert steps[-1]["text"] == f"A moderator annulled the game: {REASON}"


def test_a_reason_without_a_stop_gets_one_and_keeps_to_one_line(game, moderator, clients):
    annul(game, moderator, "duplicate\naccounts")
    outcome = clients["anna"].get(f"/api/games/{game.pk}/").json()["outcome"]
    assert outcome == "Game annulled by a moderator: duplicate accounts."
    assert listed(clients["bernd"], game)["outcome"] == outcome


def test_the_reason_shown_is_the_one_the_moderator_gave_through_the_admin(
    mod_client, game, clients
):
    data = {"action": "annul", "_selected_action": [str(game.pk)], "apply": "1"}
    mod_client.post("/admin/games/game/", {**data, "reason": "abandoned by both"})
    assert Game.objects.get(pk=game.pk).status == "annulled"
    outcome = "Game annulled by a moderator: abandoned by both."
    assert clients["anna"].get(f"/api/games/{game.pk}/").json()["outcome"] == outcome


def test_a_game_annulled_with_no_reason_recorded_reads_no_result(game, clients):
    with transaction.atomic():  # as games annulled before the reason was kept
        endings.end_by_server(Game.objects.select_for_update().get(pk=game.pk), "annulled", None)
    outcome = "Game annulled by a moderator: no result."
    assert clients["anna"].get(f"/api/games/{game.pk}/").json()["outcome"] == outcome
    assert listed(clients["anna"], game)["outcome"] == outcome


# The replay and the export keep the reason too.


def test_the_replay_s_outcome_says_the_moderator_s_reason_too(game, moderator, clients):
    annul(game, moderator)
    replay = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()
    assert replay["outcome"] == f"Game annulled by a moderator: {REASON}"


def test_the_export_of_an_annulled_game_still_checks(game, moderator, clients):
    from games.rules.records import check_record

    annul(game, moderator)
    record = clients["anna"].get(f"/api/games/{game.pk}/export/").json()
    assert check_record(record).ok


# -- every ending in words -----------------------------------------------------------------


def assert_in_words(client, game, sentence):
    """The board's JSON, the list's JSON, the finished page and the replay say ``sentence``
    (from the reader's side), and none shows a code in brackets or empty brackets."""
    board = client.get(f"/api/games/{game.pk}/").json()
    entry = listed(client, game)
    assert board["outcome"] == entry["outcome"] == sentence
    assert not RAW_CODES.search(sentence)
    page = visible(finished_page(client))
    assert sentence in row_of(page, game) and not RAW_CODES.search(page)


def play_until_a_card_is_won(game, seed):
    """Random moves until the cards shared out so far score a point (the deck and the
    start player are random: a fixed number of moves may not get there, and won cards
    alone may still score 0 : 0, a tied nation scoring nothing)."""
    version = game.version
    while not any(s.total for s in final_score(game.rules_state().players)):
        version += 4
        game = play_on(game, seed=seed, until_version=version)
        game.refresh_from_db()
    return game


def test_a_timeout_is_told_in_words(game, players, clients):
    game = play_until_a_card_is_won(game, seed=4)
    late = game.to_move.username
    other = "bernd" if late == "anna" else "anna"
    assert endings.do_timeout(game.pk, now=timezone.now() + timedelta(days=30))
    game.refresh_from_db()
    assert game.result_reason == "timeout"
    mine = clients[other].get(f"/api/games/{game.pk}/").json()["view"]["result"]
    score = f"{mine['me']['total']} : {mine['opponent']['total']}"
    assert score != "0 : 0"  # cards were won: the score is told
    assert_in_words(clients[other], game, f"Game over: You won (on time), {score}.")
    replay = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()
    assert "(on time)" in replay["outcome"] and not RAW_CODES.search(replay["outcome"])
    assert replay["steps"][-1]["text"] == f"{late} ran out of time: {other} wins"


def test_a_timeout_before_anything_was_played_has_no_0_0(game, clients):
    game.refresh_from_db()
    late = game.to_move.username
    other = "bernd" if late == "anna" else "anna"
    assert endings.do_timeout(game.pk, now=timezone.now() + timedelta(days=30))
    assert_in_words(clients[other], game, "Game over: You won (on time).")
    assert_in_words(clients[late], game, f"Game over: {other} won (on time).")
    assert "0 : 0" not in row_of(finished_page(clients[late]), game)


def test_a_resignation_is_told_in_words(game, clients):
    game = play_until_a_card_is_won(game, seed=5)
    name, _, other = on_turn(game, clients)
    body = command(clients[other], game, {"type": "resign"})
    mine = body["view"]["result"]
    score = f"{mine['opponent']['total']} : {mine['me']['total']}"  # from the winner's side
    assert score != "0 : 0"
    assert_in_words(clients[name], game, f"Game over: You won (by resignation), {score}.")
    assert listed(clients[other], game)["outcome"].startswith(f"Game over: {name} won (by")


def test_an_abort_is_told_in_words_without_a_score(game, clients):
    name, client, other = on_turn(game, clients)
    abort_as_before(game)  # aborted games from before the rule stay
    for reader in (name, other):
        assert_in_words(clients[reader], game, "Game aborted: no result.")
        row = row_of(finished_page(clients[reader]), game)
        assert ":" not in re.sub(r"<[^>]+>", "", row).replace("Game aborted: no result.", "")
        entry = listed(clients[reader], game)
        assert entry["status"] == "aborted" and entry["result"] is None


def test_a_game_aborted_before_play_has_no_score_table_in_the_page(game, clients):
    name, client, _ = on_turn(game, clients)
    abort_as_before(game)  # aborted games from before the rule stay
    page = visible(finished_page(client))
    assert "Game aborted: no result." in page
    assert "Score" not in page and "0 : 0" not in page and "()" not in page
    # nor the board's page before its script draws it (and without script)
    board = visible(client.get(f"/games/{game.pk}/").content.decode())
    assert "Game aborted: no result." in board and "Score table" not in board
    view = client.get(f"/api/games/{game.pk}/").json()["view"]
    # what the board reads to leave out its score tables: no card won on either side
    for side in ("me", "opponent"):
        assert not view[side]["tricks"] and not any(view[side]["sailors"].values())


# -- the lobby's empty state -----------------------------------------------------------------


def test_a_player_whose_games_are_all_over_is_sent_to_them_not_welcomed(game, clients):
    name, client, _ = on_turn(game, clients)
    command(client, game, {"type": "resign"})
    page = client.get("/").content.decode()
    assert "No games yet" not in page
    assert "No game under way" in page
    assert re.search(r'<a href="/games/finished/">your finished games</a>', page)


def test_a_newcomer_keeps_the_welcome_line(clients):
    page = clients["carl"].get("/").content.decode()
    assert "No games yet: invite someone below, or accept an invitation." in page
    assert "No game under way" not in page


def test_a_player_with_a_game_under_way_sees_the_list_and_no_empty_state(game, clients):
    page = clients["anna"].get("/").content.decode()
    assert "No games yet" not in page and "No game under way" not in page
    assert f"/games/{game.pk}/" in page


def test_even_an_unknown_ending_is_never_shown_as_its_code():
    from games import words

    result = {"reason": "meteor", "winner": "me", "me": {"total": 3}, "opponent": {"total": 1}}
    sentence = words.outcome_sentence(result, {"me": "anna", "opponent": "bernd"}, False)
    assert "meteor" not in sentence and not RAW_CODES.search(sentence)
    line = words.ending_line({"reason": "meteor", "winner": 0}, {0: "anna", 1: "bernd"})
    assert "meteor" not in line
