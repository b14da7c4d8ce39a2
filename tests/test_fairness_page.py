"""The page /fairness/: open to everyone, in the reader's language, with the verifier to
download (the static file itself) and to read, and the first test vector of the docs."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from shanghaien import fairness_page

from .helpers.i18n import english_in

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
VERIFIER = ROOT / "static" / "fairness" / "verify_fairness.py"


def visible_text(response) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def first_documented_vector() -> dict:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    vectors = text.split("\n## Test vectors\n", 1)[1]
    return json.loads(re.search(r"^```json\n(.*?)^```$", vectors, re.S | re.M).group(1))


def download_link(body: str) -> str:
    links = re.findall(r'<a [^>]*href="([^"]+)"[^>]*download="verify_fairness\.py"', body)
    assert len(links) == 1, links
    return html.unescape(links[0])


def test_the_page_is_at_fairness():
    assert reverse("fairness") == "/fairness/"


def test_a_visitor_sees_the_explanation_the_code_and_a_download_that_exists():
    response = Client().get("/fairness/")
    assert response.status_code == 200
    body = response.content.decode()
    source = VERIFIER.read_text(encoding="utf-8")
    code = re.search(r'<pre class="verifier"[^>]*><code>(.*?)</code></pre>', body, re.S)
    assert code and html.unescape(code.group(1)) == source
    url = download_link(body)
    assert url.startswith(settings.STATIC_URL)
    found = finders.find(url.removeprefix(settings.STATIC_URL))
    assert found and Path(found).read_bytes() == VERIFIER.read_bytes()
    assert "commitment" in visible_text(response).lower()


def test_the_download_is_served():
    body = Client().get("/fairness/").content.decode()
    response = Client().get(download_link(body))
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content
    assert content == VERIFIER.read_bytes()


def test_the_page_shows_the_first_test_vector_of_the_docs():
    vector = first_documented_vector()
    assert fairness_page.example() == {
        "scheme": vector["scheme"],
        "server_seed": vector["server_seed"],
        "client_seeds": vector["client_seeds"],
        "commitment": vector["commitment"],
        "cards": vector["first_10_cards"],
        "first_player": vector["first_player"],
        "dice": vector["first_10_dice"],
    }
    text = visible_text(Client().get("/fairness/"))
    assert vector["scheme"] == "hmac-sha256-v2"  # the scheme new games use
    for shown in (
        vector["scheme"],
        vector["server_seed"],
        vector["commitment"],
        *vector["client_seeds"],
    ):
        assert shown in text
    assert ", ".join(vector["first_10_cards"]) in text
    assert ", ".join(map(str, vector["first_10_dice"])) in text


def test_the_page_needs_no_inline_script_or_style():
    body = Client().get("/fairness/").content.decode()
    assert "<style" not in body and " style=" not in body
    for tag in re.findall(r"<script\b[^>]*>", body):
        assert " src=" in tag or 'type="application/json"' in tag, tag
    assert "css/fairness.css" in body


def test_a_german_visitor_reads_no_english_from_the_catalogue():
    response = Client(HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9").get("/fairness/")
    assert response.status_code == 200
    assert '<html lang="de">' in response.content.decode()
    assert english_in(visible_text(response), "de") == []


def test_a_logged_in_player_sees_it_too(clients):
    response = clients["anna"].get("/fairness/")
    assert response.status_code == 200
    assert 'download="verify_fairness.py"' in response.content.decode()
