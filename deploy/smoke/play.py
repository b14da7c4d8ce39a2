"""One whole game through the proxy, over HTTPS and WSS, as two players play it.

Both sign up and log in through the site's forms, one invites the other and the other
accepts (the JSON API), then each opens the game's socket and, on their turn, sends one of
the legal commands the server offers (never resign or abort) until the game is over. Caddy
must have sent the two sockets to different web processes, so every move also crosses from
one process to the other through Redis. Also checked through the proxy: /metrics answers
404, a hashed static file comes from Caddy's volume, plain HTTP is redirected to HTTPS.
With --metrics, each process's /metrics is then scraped as Prometheus would on the
internal network: refused without the token, the listed series with it, and the web
processes' moves applied adding up to the moves played.

With --poll-until FILE it only asks for /healthz through the proxy, over and over, until
FILE exists (during a rolling upgrade), and fails if one request was not answered 200.

    python deploy/smoke/play.py --site localhost --address 127.0.77.6 --ca root.crt \
        --admin 127.0.77.6:2019 --out result.json

Exits non-zero, saying why, on the first thing that goes wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import re
import socket
import ssl
import sys
import time
import uuid
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from websockets.asyncio.client import connect

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
PASSWORD = "a long tavern password"
TIMEOUT = 30  # seconds for any one answer
GAP = 0.06  # seconds between two commands on one socket (the server allows 20 a second)


class Failed(Exception):
    pass


class Connection(http.client.HTTPSConnection):
    """HTTPS to the site's name (SNI, certificate, Host) at the proxy's own address."""

    def __init__(self, site: str, address: str, tls: ssl.SSLContext):
        super().__init__(site, 443, timeout=TIMEOUT, context=tls)
        self.address = address
        self.tls = tls

    def connect(self):
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)


class Player:
    """A browser without a browser: cookies, forms with their CSRF token, the JSON API."""

    def __init__(self, name: str, site: str, address: str, tls: ssl.SSLContext):
        self.name, self.site, self.address, self.tls = name, site, address, tls
        self.origin = f"https://{site}"
        self.cookies: dict[str, str] = {}

    @property
    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def request(self, method: str, path: str, body: bytes | None = None, headers=None):
        connection = Connection(self.site, self.address, self.tls)
        sent = {"Cookie": self.cookie_header, **(headers or {})}
        if method != "GET":
            sent.update({"Origin": self.origin, "Referer": self.origin + path})
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode(errors="replace")
        finally:
            connection.close()
        for line in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(line)
            for key, morsel in jar.items():
                self.cookies[key] = morsel.value
        return response, text

    def sign_up(self) -> None:
        response, page = self.request("GET", "/accounts/signup/")
        if response.status != 200 or not TOKEN.search(page):
            raise Failed(f"the sign-up form answered {response.status}")
        fields = {
            "csrfmiddlewaretoken": TOKEN.findall(page)[-1],
            "username": self.name,
            "email": f"{self.name}@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "time_zone": "Europe/Berlin",
        }
        response, page = self.request(
            "POST",
            "/accounts/signup/",
            urlencode(fields).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        if response.status != 302 or response.getheader("Location") != "/accounts/confirm-email/":
            raise Failed(f"signing up {self.name} answered {response.status}: {page[-500:]}")
        # The sign-up asks to confirm the address; logging in with the password lets a
        # new player in before that.
        response, page = self.request("GET", "/accounts/login/")
        if response.status != 200 or not TOKEN.search(page):
            raise Failed(f"the log-in form answered {response.status}")
        fields = {
            "csrfmiddlewaretoken": TOKEN.findall(page)[-1],
            "login": self.name,
            "password": PASSWORD,
        }
        response, page = self.request(
            "POST",
            "/accounts/login/",
            urlencode(fields).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        if response.status != 302 or "sessionid" not in self.cookies:
            raise Failed(f"logging {self.name} in answered {response.status}: {page[-500:]}")

    def api(self, method: str, path: str, data: dict | None = None) -> dict:
        headers = {"Accept": "application/json"}
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers.update(
                {"Content-Type": "application/json", "X-CSRFToken": self.cookies["csrftoken"]}
            )
        response, text = self.request(method, path, body, headers)
        if response.status not in (200, 201):
            raise Failed(f"{self.name}: {method} {path} answered {response.status}: {text[:500]}")
        return json.loads(text)

    async def socket(self, path: str):
        return await connect(
            f"wss://{self.site}{path}",
            host=self.address,
            port=443,
            ssl=self.tls,
            server_hostname=self.site,
            origin=self.origin,
            additional_headers={"Cookie": self.cookie_header},
            proxy=None,
            open_timeout=TIMEOUT,
        )


def upstreams(admin: str) -> dict[str, int]:
    """Caddy's admin API: the requests (sockets included) each upstream has open now."""
    host, port = admin.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        connection.request("GET", "/reverse_proxy/upstreams")
        listed = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    return {entry["address"]: entry["num_requests"] for entry in listed}


async def receive(ws, who: str) -> dict:
    try:
        message = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
    except TimeoutError:
        raise Failed(f"{who}'s socket: nothing in {TIMEOUT} s") from None
    if message.get("type") == "error":
        raise Failed(f"{who}'s socket answered an error: {message}")
    return message


class Seat:
    def __init__(self, name: str, ws):
        self.name, self.ws = name, ws
        self.version, self.view = -1, None
        self.last_sent = 0.0

    def take(self, message: dict) -> None:
        if message["type"] == "state" and message["version"] >= self.version:
            self.version, self.view = message["version"], message["game"]["view"]

    async def until_version(self, version: int) -> None:
        while self.version < version:
            self.take(await receive(self.ws, self.name))


async def play_game(players: list[Player], game: int, admin: str, seed: int) -> dict:
    rng = random.Random(seed)
    seats = []
    for player in players:  # one after the other: Caddy sends the second to the idler process
        ws = await player.socket(f"/ws/games/{game}/")
        seat = Seat(player.name, ws)
        seat.take(await receive(ws, player.name))
        if seat.view is None:
            raise Failed(f"{player.name}'s socket did not begin with the game's state")
        seats.append(seat)
    held = upstreams(admin)
    print(f"sockets open, per upstream: {held}", flush=True)
    if len(held) < 2 or min(held.values()) < 1:
        raise Failed(f"the two sockets are not on two web processes: {held}")
    moves, started = 0, time.monotonic()
    try:
        while seats[0].view["status"] == "active":
            mover = next((s for s in seats if s.view["turn"] == "me"), None)
            if mover is None:
                raise Failed(f"an active game with nobody's turn: {seats[0].view}")
            legal = [c for c in mover.view["legal"] if c["type"] not in ("resign", "abort")]
            if not legal:
                raise Failed(f"{mover.name} has the turn and no legal command")
            client_id = uuid.uuid4().hex
            frame = {
                "type": "command",
                "command": rng.choice(legal),
                "expected_version": mover.version,
                "client_id": client_id,
            }
            await asyncio.sleep(max(0.0, mover.last_sent + GAP - time.monotonic()))
            mover.last_sent = time.monotonic()
            await mover.ws.send(json.dumps(frame))
            while True:
                message = await receive(mover.ws, mover.name)
                mover.take(message)
                if message["type"] == "ack" and message.get("client_id") == client_id:
                    break
            moves += 1
            for seat in seats:  # both see the move: one of them through the other process
                await seat.until_version(message["version"])
            if moves > 1000:
                raise Failed("more than 1000 moves: the game does not end")
    finally:
        for seat in seats:
            await seat.ws.close()
    return {"moves": moves, "seconds": round(time.monotonic() - started, 1), "sockets": held}


def check_proxy(player: Player, site: str, address: str) -> dict:
    response, _ = player.request("GET", "/metrics")
    if response.status != 404:
        raise Failed(f"/metrics from outside answered {response.status}, not 404")
    response, page = player.request("GET", "/")
    found = re.search(r"/static/[\w./-]+\.[0-9a-f]{12}\.css", page)
    if response.status != 200 or not found:
        raise Failed(f"the home page answered {response.status} without a hashed stylesheet")
    response, _ = player.request("GET", found.group(0))
    served = (response.status, response.headers.get("Cache-Control"), response.headers["Server"])
    if served != (200, "public, max-age=31536000, immutable", "Caddy"):
        raise Failed(f"{found.group(0)} was not served by Caddy from the volume: {served}")
    plain = http.client.HTTPConnection(address, 80, timeout=TIMEOUT)
    try:
        plain.request("GET", "/", headers={"Host": site})
        redirect = plain.getresponse()
        location = redirect.getheader("Location")
    finally:
        plain.close()
    if redirect.status not in (301, 308) or location != f"https://{site}/":
        raise Failed(f"plain HTTP answered {redirect.status} to {location}")
    return {"static": found.group(0), "metrics": 404, "http": redirect.status}


WEB_SERIES = (
    "shanghaien_http_requests_total",
    "shanghaien_http_request_duration_seconds_bucket",
    "shanghaien_websockets_open",
    "shanghaien_moves_applied_total",
    "shanghaien_outbox_lag_seconds",
    "shanghaien_bot_turns_waiting",
)
WORKER_SERIES = ("shanghaien_worker_job_duration_seconds_bucket",)


def scrape(address: str, token: str | None) -> tuple[int, str]:
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        connection.request("GET", "/metrics", headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def samples(text: str, name: str) -> float:
    """The sum of every sample of the series ``name`` (all its labels)."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and line[len(name)] in " {":
            total += float(line.rsplit(" ", 1)[1])
    return total


def check_metrics(targets: dict[str, str], token: str, moves: int) -> dict:
    """Each process's /metrics, as Prometheus scrapes it on the internal network: refused
    without the token, and with it the listed series; the web processes' counts of moves
    applied add up to the moves played (each move is applied by one process, once)."""
    applied = 0.0
    for name, address in targets.items():
        status, _ = scrape(address, None)
        if status != 401:
            raise Failed(f"{name}'s /metrics answered {status} without the token, not 401")
        status, text = scrape(address, token)
        if status != 200:
            raise Failed(f"{name}'s /metrics answered {status} with the token")
        wanted = WORKER_SERIES if name == "worker" else WEB_SERIES
        lines = text.splitlines()
        missing = [s for s in wanted if not any(x.startswith((f"{s} ", f"{s}{{")) for x in lines)]
        if missing:
            raise Failed(f"{name}'s /metrics lacks {missing}")
        if name != "worker":
            applied += samples(text, "shanghaien_moves_applied_total")
    if applied != moves:
        raise Failed(f"the web processes counted {applied:g} moves applied, not {moves}")
    return {"metrics": {"scraped": sorted(targets), "moves_applied": int(applied)}}


def poll(player: Player, until: Path, out: str) -> None:
    """Ask for /healthz through the proxy, one request after the other, until ``until``
    exists; every answer but 200 (or no answer) is a failure."""
    counts: dict[str, int] = {}
    failures = []
    started = time.monotonic()
    while not until.exists():
        try:
            response, _ = player.request("GET", "/healthz?skip=worker")
            outcome = str(response.status)
        except OSError as error:
            outcome = type(error).__name__
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome != "200":
            failures.append(f"{time.monotonic() - started:.1f} s: {outcome}")
        time.sleep(0.05)
    with open(out, "w") as file:
        json.dump({"answers": counts, "failures": failures}, file)
    if failures:
        sys.exit(f"poll: {len(failures)} requests not answered 200: {failures[:10]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", required=True, help="SITE_ADDRESS: the name the site answers")
    parser.add_argument("--address", required=True, help="where the proxy listens")
    parser.add_argument("--ca", required=True, help="the root certificate of Caddy's local CA")
    parser.add_argument("--admin", required=True, help="Caddy's admin API, host:port")
    parser.add_argument("--out", required=True, help="where to write what happened (JSON)")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--poll-until", type=Path, help="only ask for /healthz until this exists")
    parser.add_argument(
        "--metrics",
        action="append",
        default=[],
        metavar="NAME=HOST:PORT",
        help="a process whose /metrics to scrape after the game (web1, web2, worker)",
    )
    parser.add_argument("--metrics-token", default="", help="METRICS_TOKEN of the .env")
    args = parser.parse_args()
    tls = ssl.create_default_context(cafile=args.ca)
    if args.poll_until:
        poll(Player("poll", args.site, args.address, tls), args.poll_until, args.out)
        return
    suffix = uuid.uuid4().hex[:6]
    anna, bernd = (Player(f"{n}_{suffix}", args.site, args.address, tls) for n in ("anna", "bernd"))
    try:
        for player in (anna, bernd):
            player.sign_up()
        print(f"signed up {anna.name} and {bernd.name} over HTTPS", flush=True)
        checked = check_proxy(anna, args.site, args.address)
        invitation = anna.api("POST", "/api/invitations/", {"to": bernd.name})
        game = bernd.api("POST", f"/api/invitations/{invitation['id']}/accept/", {})["game"]
        print(f"{anna.name} invited {bernd.name}; game {game} started", flush=True)
        played = asyncio.run(play_game([anna, bernd], game, args.admin, args.seed))
        final = anna.api("GET", f"/api/games/{game}/")
        if final["status"] != "finished":
            raise Failed(f"game {game} is {final['status']} after the last move")
        result = final["view"]["result"]
        if args.metrics:
            targets = dict(target.split("=", 1) for target in args.metrics)
            checked |= check_metrics(targets, args.metrics_token, played["moves"])
            print(f"metrics scraped from {', '.join(targets)}: {checked['metrics']}", flush=True)
    except (Failed, OSError, ssl.SSLError) as error:
        sys.exit(f"play: {type(error).__name__}: {error}")
    summary = {
        "game": game,
        "players": [anna.name, bernd.name],
        **played,
        "version": final["version"],
        "outcome": final["outcome"],
        "result": result,
        "seed": args.seed,
        **checked,
    }
    with open(args.out, "w") as out:
        json.dump(summary, out, indent=1)
    print(f"game {game} over after {played['moves']} moves: {final['outcome']}", flush=True)


if __name__ == "__main__":
    main()
