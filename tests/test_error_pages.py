"""The error pages are the site's own, in the reader's language; the icon is served."""

import pytest
from django.test import Client, RequestFactory
from django.views.defaults import server_error


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_404_in_the_readers_language():
    response = Client(HTTP_ACCEPT_LANGUAGE="de").get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert 'class="site-header"' in body and '<html lang="de">' in body
    assert "Not found" not in body  # German, not the English words


@pytest.mark.django_db
def test_a_form_without_its_csrf_token_gets_the_sites_403(players):
    client = Client(enforce_csrf_checks=True)
    client.force_login(players["anna"])
    response = client.post("/invitations/new/", {"to": "bernd"})
    assert response.status_code == 403
    assert 'class="site-header"' in response.content.decode()


def test_the_500_page_needs_neither_database_nor_session():
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    body = response.content.decode()
    assert "Something went wrong" in body and "every move is kept" in body


def test_the_favicon_and_the_touch_icon_are_served(client):
    favicon = client.get("/favicon.ico")
    assert favicon.status_code == 301 and favicon["Location"].endswith("img/icon.svg")
    assert client.get(favicon["Location"]).status_code == 200
    touch = client.get("/static/img/touch-icon.png")
    assert touch.status_code == 200 and b"".join(touch.streaming_content)[:4] == b"\x89PNG"
