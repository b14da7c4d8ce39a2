"""The installable app: the manifest and its icons, the service worker and what it keeps,
the offline page, and the lobby's mark that lets the worker keep a copy of it."""

from __future__ import annotations

import html
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from shanghaien import pwa

from .helpers.i18n import english_in

ROOT = Path(__file__).resolve().parents[1]
SITE_CSS = ROOT / "static" / "css" / "site.css"
ASSETS = ("/manifest.webmanifest", "/sw.js", "/offline/")


def body_of(response) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, ...]]]:
    """Width, height and the pixels (RGBA) of an 8-bit RGB or RGBA PNG without interlace."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        content = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", content)
        elif kind == b"IDAT":
            chunks.append(content)
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                nearest = min(
                    (abs(guess - left), 0, left),
                    (abs(guess - up), 1, up),
                    (abs(guess - corner), 2, corner),
                )[2]
                line[x] = (line[x] + nearest) & 0xFF
        rows.append(bytes(line))
        previous = line
    pixels = [
        tuple(row[x : x + channels]) + ((255,) if channels == 3 else ())
        for row in rows
        for x in range(0, stride, channels)
    ]
    return width, height, pixels


def static_png(client, url: str) -> tuple[int, int, list[tuple[int, ...]]]:
    response = client.get(url)
    assert response.status_code == 200, url
    assert response["Content-Type"] == "image/png", url
    return png_pixels(body_of(response))


def worker_config(response) -> dict:
    match = re.search(r"^const CONFIG = (\{.*\});$", response.content.decode(), re.MULTILINE)
    assert match, "no CONFIG in /sw.js"
    return json.loads(match.group(1))


# -- the manifest -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_manifest_names_the_app_and_opens_the_lobby(client):
    response = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == manifest["short_name"] == "Shanghaien"
    assert manifest["description"]
    assert manifest["lang"] == "de"
    assert (manifest["id"], manifest["start_url"], manifest["scope"]) == ("/", "/", "/")
    assert manifest["display"] == "standalone"
    # the header's brown and the page's paper, as the stylesheet has them
    css = SITE_CSS.read_text()
    header = re.search(r"\.site-header \{[^}]*background: (#[0-9a-f]{6})", css).group(1)
    paper = re.search(r"--paper: (#[0-9a-f]{6})", css).group(1)
    assert (manifest["theme_color"], manifest["background_color"]) == (header, paper)
    # translated, so kept an hour at most, and apart for each language and visitor
    max_age = int(re.search(r"max-age=(\d+)", response["Cache-Control"]).group(1))
    assert 0 < max_age <= 3600
    vary = {part.strip() for part in response["Vary"].split(",")}
    assert {"Accept-Language", "Cookie"} <= vary


@pytest.mark.django_db
def test_the_manifest_icons_exist_with_their_declared_sizes(client):
    icons = json.loads(client.get("/manifest.webmanifest").content)["icons"]
    declared = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert declared == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for icon in icons:
        assert icon["type"] == "image/png"
        width, height, pixels = static_png(client, icon["src"])
        assert f"{width}x{height}" == icon["sizes"], icon["src"]
        if icon["purpose"] == "maskable":
            # the dark ground fills the whole square, corners included: a mask cuts anywhere
            corners = [pixels[0], pixels[width - 1], pixels[-width], pixels[-1]]
            assert all(p == (0x2B, 0x1D, 0x12, 255) for p in corners), corners
            # the dice keep within the safe zone, the circle of 40 % around the middle
            for index, (r, g, b, _) in enumerate(pixels):
                if abs(r - 0x2B) + abs(g - 0x1D) + abs(b - 0x12) > 24:  # past anti-aliasing
                    x, y = index % width - width / 2, index // width - height / 2
                    assert (x * x + y * y) ** 0.5 <= 0.4 * width, (x, y)


@pytest.mark.django_db
def test_the_badge_is_a_white_silhouette_on_transparency(client):
    width, height, pixels = static_png(client, "/static/img/badge-96.png")
    assert (width, height) == (96, 96)
    seen = [p for p in pixels if p[3] > 0]
    assert all(p[:3] == (255, 255, 255) for p in seen), "Android draws the badge's alpha only"
    share = len(seen) / len(pixels)
    assert 0.2 < share < 0.8, share  # a shape, neither blank nor a filled square


# -- the service worker -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_worker_is_served_from_the_root_and_never_from_an_old_copy(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == "text/javascript"
    assert response["Cache-Control"] == "no-cache"
    config = worker_config(response)
    assert re.fullmatch(r"[0-9a-f]{16}", config["version"])
    assert config["offline"] == "/offline/" and config["lobby"] == "/"
    assert config["fallback"] == {"title": "Shanghaien", "body": ""}
    assert {config["icon"], config["badge"]} <= set(config["precache"])


@pytest.mark.django_db
def test_everything_the_worker_keeps_is_there(client, players):
    config = worker_config(client.get("/sw.js"))
    assert config["precache"][0] == "/offline/"
    for url in config["precache"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert body_of(response), url


def scripts_and_styles(page: str) -> set[str]:
    """The stylesheets and scripts a page loads, with every module the scripts import."""
    found = set(re.findall(r'<link rel="stylesheet" href="([^"]+)"', page))
    todo = re.findall(r'<script type="module" src="([^"]+)"', page)
    while todo:
        url = todo.pop()
        if url in found:
            continue
        found.add(url)
        source = (ROOT / "static" / url.removeprefix(settings.STATIC_URL)).read_text()
        for module in re.findall(r'^import .*?from "(\./[^"]+)";', source, re.MULTILINE):
            todo.append(url.rsplit("/", 1)[0] + "/" + module.removeprefix("./"))
    return found


@pytest.mark.django_db
def test_the_worker_keeps_every_file_the_lobby_and_the_offline_page_load(clients):
    precache = set(worker_config(clients["anna"].get("/sw.js"))["precache"])
    lobby = clients["anna"].get("/").content.decode()
    offline = Client().get("/offline/").content.decode()
    needed = scripts_and_styles(lobby) | scripts_and_styles(offline)
    assert {"/static/js/live.js", "/static/js/words.js", "/static/js/pwa.js"} <= needed
    assert needed <= precache, needed - precache


def test_the_version_follows_the_list_the_code_and_the_files(monkeypatch):
    config = {"precache": ["/offline/", "/static/css/site.css"]}
    version = pwa.worker_version(config, "// the worker")
    assert pwa.worker_version(dict(config), "// the worker") == version  # stable
    longer = {"precache": [*config["precache"], "/static/js/live.js"]}
    assert pwa.worker_version(longer, "// the worker") != version
    assert pwa.worker_version(config, "// the worker, changed") != version
    from django.utils import translation

    with translation.override("fr"):  # the same worker in every language
        assert pwa.worker_version(config, "// the worker") == version
    # a file changed under the same name (no hashed names without collectstatic)
    monkeypatch.setattr(pwa, "served_content", lambda url: b"body { color: red }")
    assert pwa.worker_version(config, "// the worker") != version


def test_imports_are_followed_from_the_file_as_served(settings, tmp_path):
    """After collectstatic a hashed module imports its neighbours by their plain names
    (Django rewrites no import by default): those are what the browser asks for."""
    settings.STATIC_ROOT = str(tmp_path)
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "live.js").write_text(
        'import { t } from "./words.js";\nimport {\n  a,\n  b,\n} from "../lib/more.js";\n'
        'import "./side.js";\nconst text = "import x from \'./not-code.js\'";\n'
    )
    urls = pwa.shell_urls()
    assert urls[: len(pwa.SHELL)] == [f"/static/{name}" for name in pwa.SHELL]
    assert {"/static/js/words.js", "/static/lib/more.js", "/static/js/side.js"} <= set(urls)
    assert "/static/js/not-code.js" not in urls
    assert len(urls) == len(set(urls))


@pytest.mark.django_db
def test_a_changed_shell_gives_the_served_worker_a_new_version(client, monkeypatch):
    before = worker_config(client.get("/sw.js"))
    monkeypatch.setattr(pwa, "SHELL", (*pwa.SHELL, "js/since.js"))
    after = worker_config(client.get("/sw.js"))
    assert "/static/js/since.js" in after["precache"]
    assert after["version"] != before["version"]


# -- the offline page and the lobby ------------------------------------------------------


@pytest.mark.django_db
def test_the_offline_page_speaks_german_and_offers_to_try_again(players):
    response = Client(HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9").get("/offline/")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<html lang="de">' in page
    assert 'id="try-again"' in page and "<h1>" in page
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert english_in(text, "de") == []
    assert "<script>" not in page and "style=" not in page  # nothing the policy forbids


@pytest.mark.django_db
def test_the_offline_page_holds_nothing_of_the_logged_in_player(clients):
    anna = clients["anna"]
    anna.post("/invitations/new/", {"to": "nobody-at-all", "days_per_move": "-1"})
    page = anna.get("/offline/").content.decode()
    body = page.split("<body", 1)[1]
    assert "anna" not in body
    assert "data-user" not in body and "data-offline-page" in body
    assert "csrfmiddlewaretoken" not in page and "/static/js/live.js" not in page
    assert 'class="messages"' not in page
    # the flash message about the invitation is left for the next page
    assert 'class="messages"' in anna.get("/").content.decode()


@pytest.mark.django_db
def test_only_the_lobby_of_a_logged_in_player_is_marked_for_an_offline_copy(clients, client):
    assert clients["anna"].get("/")["X-Offline-Copy"] == "lobby"
    assert "X-Offline-Copy" not in client.get("/")
    assert "X-Offline-Copy" not in clients["anna"].get("/games/finished/")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ASSETS)
def test_the_content_security_policy_covers_the_app(client, path):
    policy = client.get(path)["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy


@pytest.mark.django_db
def test_every_page_links_the_manifest_and_the_banner_in_its_words(client, clients):
    for page in (client.get("/").content.decode(), clients["anna"].get("/").content.decode()):
        assert '<link rel="manifest" href="/manifest.webmanifest"' in page
        assert '<meta name="theme-color" content="#2b1d12">' in page
        assert '<meta name="apple-mobile-web-app-capable" content="yes">' in page
        assert '<script type="module" src="/static/js/pwa.js"></script>' in page
        banner = re.search(r'<div id="offline-banner"[^>]*>(.*?)</div>', page, re.S).group(1)
        assert banner.count("hidden>") == 2 and "<time></time>" in banner


@pytest.mark.django_db
def test_the_worker_is_the_same_for_every_visitor_and_language(client, players):
    """A different worker for a logged-in player, or another language, would install a
    new worker under the open page at every login: it is byte for byte the same."""
    anonymous = client.get("/sw.js", HTTP_ACCEPT_LANGUAGE="it").content
    anna = players["anna"]
    anna.language = "de"
    anna.save()
    player = Client()
    player.force_login(anna)
    assert player.get("/sw.js", HTTP_ACCEPT_LANGUAGE="fr").content == anonymous
    assert client.get("/sw.js", HTTP_ACCEPT_LANGUAGE="en").content == anonymous
