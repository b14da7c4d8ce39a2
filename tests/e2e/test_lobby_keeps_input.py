"""The lobby refreshes itself when an invitation arrives: what the player was typing stays."""

import json
import urllib.request

import pytest

from accounts.models import ApiToken

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_half_typed_invitation_survives_the_lobby_refreshing(
    asgi_server, page, django_user_model
):
    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    log_in_by_cookie(page.context, asgi_server, anna)
    page.goto(asgi_server + "/")
    page.wait_for_function("() => document.body.dataset.user === 'anna'")
    page.fill("#id_message", "A quick game before din")
    page.check("#id_extra_wild")
    page.fill("#id_to", "car")  # still typing, the focus in the field
    page.wait_for_timeout(500)  # the lobby socket is open
    # bernd invites anna through the server (its process tells anna's lobby socket)
    _, token = in_thread(ApiToken.issue, bernd, "test")
    request = urllib.request.Request(
        asgi_server + "/api/invitations/",
        data=json.dumps({"to": "anna"}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert urllib.request.urlopen(request).status == 201
    page.wait_for_selector("text=bernd invites you", timeout=10000)  # the lobby refreshed
    assert page.input_value("#id_to") == "car"
    assert page.input_value("#id_message") == "A quick game before din"
    assert page.is_checked("#id_extra_wild")
    assert page.evaluate("document.activeElement.id") == "id_to"
    page.keyboard.type("l")  # the caret stayed at the end
    assert page.input_value("#id_to") == "carl"
