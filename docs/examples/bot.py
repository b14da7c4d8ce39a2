"""A complete minimal Shanghaien bot: the account's stream, each game's stream and the
command endpoint, with nothing but httpx (docs/api.md, "Streams").

    SHANGHAIEN_URL=https://play.example.org SHANGHAIEN_TOKEN=shg_… \\
        python docs/examples/bot.py [--challenge Deckhand] [--games 1]

It accepts every invitation addressed to it, plays each game it has (any legal command,
never resigning) and, with ``--games N``, stops after N games have ended. The token needs
the scopes ``read`` and ``play``; the account is best made a bot account first
(``POST /api/account/bot/`` with a token holding ``bot``: docs/bots.md).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import threading
import uuid

import httpx

FOREVER = httpx.Timeout(30.0, read=None)  # a stream waits as long as it must (keep-alives)


def lines(client: httpx.Client, path: str, **params):
    """The JSON lines of a stream, until the server ends it (empty lines keep it alive)."""
    with client.stream("GET", path, params=params, timeout=FOREVER) as response:
        response.raise_for_status()
        for text in response.iter_lines():
            if text.strip():
                yield json.loads(text)


def play(client: httpx.Client, game_id: int, rng: random.Random) -> dict:
    """Follow one game to its end, answering each of our turns; its last state."""
    since = None
    while True:  # a stream that breaks is opened again where it stopped: no gap
        try:
            params = {} if since is None else {"since": since}
            for frame in lines(client, f"/api/games/{game_id}/stream/", **params):
                if frame["type"] == "error":
                    raise SystemExit(f"game {game_id}: {frame['message']}")
                if frame["type"] != "state":
                    continue  # chat
                since, game = frame["version"], frame["game"]
                if game["status"] != "active":
                    return game
                if game["view"]["turn"] == "me":
                    move(client, game, rng)
        except httpx.TransportError:
            continue


def move(client: httpx.Client, game: dict, rng: random.Random) -> None:
    legal = game["view"]["legal"]
    choices = [c for c in legal if c["type"] not in ("resign", "abort")] or legal
    body = {
        "command": rng.choice(choices),
        "expected_version": game["version"],
        "client_id": str(uuid.uuid4()),
    }
    answer = client.post(f"/api/games/{game['id']}/commands/", json=body)
    if answer.status_code != 409:  # 409: the game moved on; the stream brings its state
        answer.raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("SHANGHAIEN_URL"))
    parser.add_argument("--token", default=os.environ.get("SHANGHAIEN_TOKEN"))
    parser.add_argument("--challenge", metavar="NAME", help="invite this player first")
    parser.add_argument("--games", type=int, help="stop after this many games ended")
    args = parser.parse_args()
    if not args.server or not args.token:
        parser.error("give --server and --token (or SHANGHAIEN_URL and SHANGHAIEN_TOKEN)")
    headers = {"Authorization": f"Bearer {args.token}"}

    def connect() -> httpx.Client:  # one client a thread
        return httpx.Client(base_url=args.server, headers=headers, timeout=30.0)

    ended: queue.Queue = queue.Queue()
    playing, mine = set(), set()

    def game_thread(game_id: int) -> None:
        with connect() as client:
            ended.put((game_id, play(client, game_id, random.Random(game_id))))

    def follow_account() -> None:
        with connect() as client:
            for event in lines(client, "/api/stream/"):
                kind = event["type"]
                if kind == "invitation" and event["event"] == "received":
                    invitation = event["invitation"]
                    if invitation["id"] not in mine and invitation["status"] == "open":
                        client.post(f"/api/invitations/{invitation['id']}/accept/", json={})
                elif kind == "game_start" and event["game"] not in playing:
                    playing.add(event["game"])
                    threading.Thread(target=game_thread, args=(event["game"],), daemon=True).start()
                elif kind == "error":
                    ended.put((None, event))
                    return

    threading.Thread(target=follow_account, daemon=True).start()
    if args.challenge:
        with connect() as client:
            # a game with a bot account is never rated: ask for a casual one
            answer = client.post("/api/invitations/", json={"to": args.challenge, "rated": False})
            answer.raise_for_status()
            mine.add(answer.json()["id"])
    done = 0
    while args.games is None or done < args.games:
        game_id, game = ended.get()
        if game_id is None:
            raise SystemExit(f"the stream ended: {game['message']}")
        done += 1
        print(f"game {game_id} over: {game['outcome']}", flush=True)


if __name__ == "__main__":
    main()
