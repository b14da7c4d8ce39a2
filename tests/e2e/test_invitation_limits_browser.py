"""An open invitation limited to a rating range: anna opens it from the lobby's form; carl,
rated below it, sees it dimmed with the reason and no button, and is refused when he
forces it through the API; bernd, inside, accepts and the game starts."""

import json
import urllib.error
import urllib.request

import pytest

from accounts.models import ApiToken
from games.models import Invitation
from games.services import invitations
from ratings.models import PlayerRating

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REASON = "Only players rated 1400–1600 may accept; your rating is 1320."
SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


def rated(user, rating):
    PlayerRating.objects.create(user=user, rating=rating, games=4)


def force_accept(base_url, user, invitation_id):
    _, token = in_thread(ApiToken.issue, user, "test")
    request = urllib.request.Request(
        f"{base_url}/api/invitations/{invitation_id}/accept/",
        data=b"{}",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        urllib.request.urlopen(request)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    raise AssertionError("accepted")


def test_a_rating_range_is_refused_outside_and_accepted_inside(
    asgi_server, browser, django_user_model, screenshot
):
    anna, bernd, carl, dora = (
        django_user_model.objects.create_user(name, password="x")
        for name in ("anna", "bernd", "carl", "dora")
    )
    in_thread(rated, bernd, 1500)
    in_thread(rated, carl, 1320)
    # one invitation carl may accept, above the limited one in his list
    in_thread(invitations.do_invite, dora, to=None, max_rating=1400, max_pace=3)

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    log_in_by_cookie(context, asgi_server, anna)
    page.goto(asgi_server + "/")
    page.fill("#id_min_rating", "1400")
    page.fill("#id_max_rating", "1600")
    page.fill("#id_message", "A close game?")
    with page.expect_navigation():
        page.get_by_role("button", name="Send invitation").click()
    assert "Invitation sent." in page.inner_text(".messages")
    own = page.locator(".invitation", has_text="To anyone")
    assert "for ratings 1400–1600" in own.inner_text()  # the creator sees the limits
    invitation = in_thread(lambda: Invitation.objects.get(from_user=anna))
    assert (invitation.min_rating, invitation.max_rating) == (1400, 1600)

    # carl, outside: dimmed with the reason, no accept button; the API refuses him
    log_in_by_cookie(context, asgi_server, carl)
    page.goto(asgi_server + "/")
    dimmed = page.locator(".invitation.not-for-you")
    assert dimmed.count() == 1 and "anna" in dimmed.inner_text()
    assert REASON in dimmed.inner_text()
    assert dimmed.get_by_role("button").count() == 0
    fitting = page.locator(".invitation:not(.not-for-you)", has_text="dora")
    assert fitting.get_by_role("button", name="Accept").count() == 1
    rows = page.locator(".invitation").all_inner_texts()
    assert [i for i, t in enumerate(rows) if "dora" in t] < [
        i for i, t in enumerate(rows) if "anna" in t
    ]  # the one he may accept comes first
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"invitation-limits-en-{size}")
        shot = screenshot(page, f"invitation-limits-en-{size}-panel")  # the rows up close
        page.locator("section.panel").first.screenshot(path=str(shot))
    status, body = force_accept(asgi_server, carl, invitation.pk)
    assert status == 403
    assert body["error"] == {"code": "outside_limits", "message": REASON}
    in_thread(invitation.refresh_from_db)
    assert invitation.status == Invitation.Status.OPEN

    # bernd, inside: accepts from the lobby, the game starts
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in_by_cookie(context, asgi_server, bernd)
    page.goto(asgi_server + "/")
    row = page.locator(".invitation", has_text="anna")
    assert "not-for-you" not in row.get_attribute("class")
    with page.expect_navigation():
        row.get_by_role("button", name="Accept").click()
    assert "/games/" in page.url
    page.wait_for_selector("#board")
    in_thread(invitation.refresh_from_db)
    assert invitation.status == Invitation.Status.ACCEPTED
    assert invitation.to_user_id == bernd.pk and invitation.game_id is not None
    context.close()


def test_the_lobby_shows_limits_and_reasons_in_german(
    asgi_server, browser, django_user_model, screenshot
):
    anna, carl, dora = (
        django_user_model.objects.create_user(name, password="x")
        for name in ("anna", "carl", "dora")
    )
    in_thread(rated, carl, 1320)
    in_thread(invitations.do_invite, anna, to=None, min_rating=1400, max_rating=1600)
    in_thread(invitations.do_invite, dora, to=None, max_rating=1400, max_pace=3)
    context = browser.new_context(locale="de-DE", viewport={"width": 1366, "height": 768})
    page = context.new_page()
    log_in_by_cookie(context, asgi_server, carl)
    page.goto(asgi_server + "/")
    dimmed = page.locator(".invitation.not-for-you").inner_text()
    assert "Nur Spieler mit einer Wertung von 1400–1600 dürfen annehmen" in dimmed
    assert "deine Wertung ist 1320" in dimmed
    assert "höchstens 3 Tage pro Zug im Schnitt" in page.inner_text("main")
    assert page.locator("label[for=id_max_pace]").inner_text().startswith("Langsamstes Tempo")
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"invitation-limits-de-{size}")
        shot = screenshot(page, f"invitation-limits-de-{size}-panel")  # the rows up close
        page.locator("section.panel").first.screenshot(path=str(shot))
    context.close()
