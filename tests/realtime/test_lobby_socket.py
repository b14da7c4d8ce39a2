import pytest
from channels.db import database_sync_to_async

from games.services import invitations

from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)


async def lobby(sockets, user):
    socket, ok, _ = await sockets("/ws/lobby/", user)
    assert ok
    hello = check(await socket.receive_json_from(timeout=5))
    assert hello["type"] == "hello"
    return socket, hello


async def test_invitations_reach_both_sides(sockets, players):
    anna, _ = await lobby(sockets, players["anna"])
    bernd, _ = await lobby(sockets, players["bernd"])
    invitation = await database_sync_to_async(invitations.do_invite)(players["anna"], to="bernd")
    for socket in (anna, bernd):
        message = check(await socket.receive_json_from(timeout=5))
        assert message["type"] == "invitation" and message["event"] == "received"
        assert message["invitation"]["id"] == invitation.pk
    await database_sync_to_async(invitations.do_decline_invitation)(invitation.pk, players["bernd"])
    message = await anna.receive_json_from(timeout=5)
    assert message["event"] == "declined" and message["invitation"]["status"] == "declined"


async def test_your_turn_and_games_changed_are_pushed(sockets, players):
    anna, hello = await lobby(sockets, players["anna"])
    assert hello["your_turn"] == 0
    invitation = await database_sync_to_async(invitations.do_invite)(players["bernd"], to="anna")
    assert (await anna.receive_json_from(timeout=5))["event"] == "received"
    game = await database_sync_to_async(invitations.do_accept_invitation)(
        invitation.pk, players["anna"]
    )
    messages = []
    while not await anna.receive_nothing(timeout=0.3):
        messages.append(check(await anna.receive_json_from(timeout=5)))
    kinds = [m["type"] for m in messages]
    assert "games_changed" in kinds
    await database_sync_to_async(game.refresh_from_db)()
    anna_moves = await database_sync_to_async(lambda: game.to_move_id)() == players["anna"].pk
    assert ("your_turn" in kinds) == anna_moves
    changed = next(m for m in messages if m["type"] == "games_changed")
    assert changed["game"] == game.pk and changed["your_turn"] == int(anna_moves)


async def test_the_lobby_answers_ping_and_refuses_other_messages(sockets, players):
    socket, _ = await lobby(sockets, players["carl"])
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.send_to(text_data="nope")
    assert (await socket.receive_json_from(timeout=5))["code"] == "malformed_json"
    await socket.send_json_to({"type": "command"})
    assert (await socket.receive_json_from(timeout=5))["code"] == "unknown_type"
    await socket.send_json_to({"type": "ping", "at": 1})  # an unknown field
    refused = await socket.receive_json_from(timeout=5)
    assert refused["code"] == "bad_request" and "at" in refused["message"]
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}


@pytest.fixture
def a_topic():
    """A topic registered as an app above games would: ids 1–8 exist, 9 is hidden."""
    from games.live import topics

    topics.register("test_topic", lambda user, pk: pk < 9)
    yield "test_topic"
    del topics.TOPICS["test_topic"]


async def test_a_watched_topic_is_told_of_its_changes(sockets, players, a_topic):
    from games.live import topics

    socket, _ = await lobby(sockets, players["anna"])
    other, _ = await lobby(sockets, players["bernd"])
    await socket.send_json_to({"type": "watch", "topic": a_topic, "id": 3})
    assert check(await socket.receive_json_from(timeout=5)) == {
        "type": "watching",
        "topic": a_topic,
        "id": 3,
    }
    await database_sync_to_async(topics.changed)(a_topic, 3, 7)
    frame = check(await socket.receive_json_from(timeout=5))
    assert frame == {"type": "changed", "topic": a_topic, "id": 3, "version": 7}
    assert await other.receive_nothing(timeout=0.3)  # not watching
    await database_sync_to_async(topics.changed)(a_topic, 4, 1)  # another id
    assert await socket.receive_nothing(timeout=0.3)


async def test_a_bad_watch_gets_an_error_and_the_socket_stays(sockets, players, a_topic):
    socket, _ = await lobby(sockets, players["carl"])
    for frame, code in (
        ({"type": "watch", "topic": "nothing", "id": 1}, "unknown_topic"),
        ({"type": "watch", "topic": a_topic, "id": 9}, "not_found"),
        ({"type": "watch", "topic": a_topic, "id": 0}, "bad_request"),
        ({"type": "watch", "topic": a_topic, "id": "1"}, "bad_request"),
        ({"type": "watch", "topic": a_topic}, "bad_request"),
        ({"type": "watch", "topic": a_topic, "id": 1, "x": 1}, "bad_request"),
        ({"type": "watch", "topic": ["a"], "id": 1}, "bad_request"),
    ):
        await socket.send_json_to(frame)
        refused = check(await socket.receive_json_from(timeout=5))
        assert refused["type"] == "error" and refused["code"] == code, frame
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}


async def test_a_socket_watches_a_few_topics_the_oldest_dropped(sockets, players, a_topic):
    from games.live import topics

    socket, _ = await lobby(sockets, players["anna"])
    for pk in range(1, topics.WATCHED_MAX + 2):
        await socket.send_json_to({"type": "watch", "topic": a_topic, "id": pk})
        assert (await socket.receive_json_from(timeout=5))["type"] == "watching"
    await database_sync_to_async(topics.changed)(a_topic, 1, 2)  # the oldest: dropped
    assert await socket.receive_nothing(timeout=0.3)
    await database_sync_to_async(topics.changed)(a_topic, topics.WATCHED_MAX + 1, 2)
    assert (await socket.receive_json_from(timeout=5))["type"] == "changed"
