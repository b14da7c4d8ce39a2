"""A player's devices for push notifications: the API a browser subscribes through, what
it refuses, the profile's list, and what logging out does."""

import json

import pytest
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from accounts.devices import DEVICES_MAX, device_name
from accounts.models import PushSubscription
from games.notify.preferences import wants
from shanghaien.lib import webpush

from ...helpers.choices import choices_of_player
from ...helpers.push_service import Device, b64url

pytestmark = pytest.mark.django_db

URL = "/api/push/subscriptions/"
FCM = "https://fcm.googleapis.com/fcm/send/"
JSON = {"content_type": "application/json"}


@pytest.fixture(autouse=True)
def local_endpoints(settings):
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = True


def subscribe(client, body, **extra):
    return client.post(URL, json.dumps(body), content_type="application/json", **extra)


def test_a_browser_subscribes_and_the_settings_page_lists_it(clients, players):
    device = Device()
    chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
    response = subscribe(clients["anna"], device.subscription(FCM + "abc"), HTTP_USER_AGENT=chrome)
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Chrome on Android"
    stored = PushSubscription.objects.get()
    assert (stored.user, stored.endpoint, stored.p256dh) == (
        players["anna"],
        FCM + "abc",
        device.p256dh,
    )
    assert stored.vapid_key == webpush.public_key()
    listed = clients["anna"].get("/api/push/").json()
    assert listed["public_key"] == webpush.public_key()
    assert [d["name"] for d in listed["devices"]] == ["Chrome on Android"]
    page = clients["anna"].get("/settings/").content.decode()
    assert "Chrome on Android" in page and f"/accounts/devices/{stored.pk}/remove/" in page
    assert f'data-push-key="{webpush.public_key()}"' in page
    assert "Chrome on Android" not in clients["bernd"].get("/users/anna/").content.decode()


def test_subscribing_again_refreshes_and_another_account_takes_the_browser_over(clients):
    first, again = Device(), Device()
    subscribe(clients["anna"], first.subscription(FCM + "same"))
    assert subscribe(clients["anna"], again.subscription(FCM + "same")).status_code == 201
    assert PushSubscription.objects.get().p256dh == again.p256dh
    subscribe(clients["bernd"], again.subscription(FCM + "same"))
    assert PushSubscription.objects.get().user.username == "bernd"  # never two accounts
    assert devices_counted() == {"anna": 0, "bernd": 1, "carl": 0}


def devices_counted() -> dict:
    from accounts.models import User

    users = User.objects.filter(bot_level="").order_by("username")
    counted = dict(users.values_list("username", "push_devices"))
    for user in users:
        assert user.push_devices == user.push_subscriptions.count(), user
    return counted


def test_the_count_of_devices_stays_true_however_they_go(clients, players):
    for n in range(3):
        subscribe(clients["anna"], Device().subscription(f"{FCM}{n}"))
    assert devices_counted()["anna"] == 3
    first = PushSubscription.objects.order_by("id").first()
    clients["anna"].post(f"/api/push/subscriptions/{first.pk}/remove/", **JSON)
    PushSubscription.objects.filter(endpoint=f"{FCM}1").delete()  # as a 410 does
    assert devices_counted()["anna"] == 1
    clients["anna"].post("/accounts/logout/")  # this browser's device goes with the session
    assert devices_counted()["anna"] == 0


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://fcm.googleapis.com/fcm/send/x",  # not https
        "https://fcm.googleapis.com.evil.example/x",
        "https://evil.example/fcm.googleapis.com/x",
        "https://10.0.0.7/push",
        "https://[::1]/push",
        "https://user:pw@fcm.googleapis.com/x",
        "https://fcm.googleapis.com:8443/x",
        "ftp://fcm.googleapis.com/x",
        "javascript:alert(1)",
        "https://fcm.googleapis.com/" + "x" * 1100,
        "https://fcm.googleapis.com/a b",
        "",
        12,
        None,
        ["https://fcm.googleapis.com/x"],
    ],
)
def test_an_endpoint_that_is_no_push_service_is_refused(clients, endpoint):
    body = {**Device().subscription("x"), "endpoint": endpoint}
    response = subscribe(clients["anna"], body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_endpoint"
    assert not PushSubscription.objects.exists()


def test_local_endpoints_only_when_debugging(clients, settings):
    body = Device().subscription("http://127.0.0.1:9/push/x")
    assert subscribe(clients["anna"], body).status_code == 201
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = False
    body = Device().subscription("http://localhost:9/push/y")
    assert subscribe(clients["anna"], body).json()["error"]["code"] == "bad_endpoint"
    for push_service in (
        "https://updates.push.services.mozilla.com/wpush/v2/x",
        "https://web.push.apple.com/QGx",
        "https://wns2-db5p.notify.windows.com/w/?token=x",
    ):
        assert subscribe(clients["anna"], Device().subscription(push_service)).status_code == 201


@pytest.mark.parametrize(
    "keys",
    [
        {"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(b"a" * 16)},  # not on the curve
        {"p256dh": "BAD KEY", "auth": b64url(b"a" * 16)},
        {"p256dh": Device().p256dh, "auth": b64url(b"a" * 15)},
        {"p256dh": Device().p256dh[:-4], "auth": b64url(b"a" * 16)},
        {"p256dh": Device().p256dh, "auth": "é" * 22},
        {"p256dh": Device().p256dh},
        {"p256dh": 5, "auth": None},
        "keys",
        {"p256dh": Device().p256dh, "auth": b64url(b"a" * 16), "extra": 1},
    ],
)
def test_keys_that_cannot_be_encrypted_for_are_refused(clients, keys):
    response = subscribe(clients["anna"], {"endpoint": FCM + "k", "keys": keys})
    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("bad_keys", "bad_request")
    assert not PushSubscription.objects.exists()


def test_refusals_name_their_cause(clients, client, players, settings):
    body = Device().subscription(FCM + "x")
    assert subscribe(client, body).status_code == 401  # a stranger
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(players["anna"])
    assert subscribe(strict, body).json()["error"]["code"] == "csrf_failed"
    assert subscribe(clients["anna"], {**body, "sneaky": 1}).status_code == 400
    assert clients["anna"].get(URL).status_code == 405
    for n in range(DEVICES_MAX):
        subscribe(clients["anna"], Device().subscription(f"{FCM}{n}"))
    refused = subscribe(clients["anna"], Device().subscription(FCM + "one-too-many"))
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_devices"
    assert PushSubscription.objects.count() == DEVICES_MAX
    settings.VAPID_PRIVATE_KEY, settings.DEV_SECRET_KEY = "", "not the key in use"
    refused = subscribe(clients["bernd"], body)
    assert refused.json()["error"]["code"] == "push_unavailable"
    assert clients["bernd"].get("/api/push/").json()["public_key"] == ""


def test_a_flood_of_subscriptions_is_limited(clients):
    codes = [
        subscribe(clients["anna"], Device().subscription(FCM + "same")).status_code
        for _ in range(31)
    ]
    assert codes[:30] == [201] * 30 and codes[30] == 429


def test_removing_a_device_from_the_api_and_the_profile(clients):
    subscribe(clients["anna"], Device().subscription(FCM + "1"))
    subscribe(clients["anna"], Device().subscription(FCM + "2"))
    one, two = PushSubscription.objects.order_by("id")
    assert (
        clients["bernd"].post(f"/api/push/subscriptions/{one.pk}/remove/", **JSON).status_code
        == 404
    )
    assert clients["bernd"].post(f"/accounts/devices/{one.pk}/remove/").status_code == 302
    assert PushSubscription.objects.count() == 2  # not bernd's to remove
    assert clients["anna"].post(f"/api/push/subscriptions/{one.pk}/remove/", **JSON).json() == {
        "removed": one.pk
    }
    response = clients["anna"].post(f"/accounts/devices/{two.pk}/remove/", follow=True)
    assert "no longer receives notifications" in response.content.decode()
    assert not PushSubscription.objects.exists()
    for bad in ("x", "-1", "99999999999999999999999", "1.0"):
        assert (
            clients["anna"].post(f"/api/push/subscriptions/{bad}/remove/", **JSON).status_code
            == 404
        )


def test_logging_out_of_a_browser_stops_its_notifications(clients, players):
    subscribe(clients["anna"], Device().subscription(FCM + "this-browser"))
    other = Client()
    other.force_login(players["anna"])
    subscribe(other, Device().subscription(FCM + "her-phone"))
    clients["anna"].post("/accounts/logout/")
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [FCM + "her-phone"]


def test_an_api_token_can_subscribe_a_device_and_the_session_is_untouched(players):
    from accounts.models import ApiToken

    _, raw = ApiToken.issue(players["anna"], "phone app")
    response = Client().post(
        URL,
        json.dumps(Device().subscription(FCM + "app")),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 201


def test_the_preferences_choose_email_and_push_per_kind(clients, players):
    anna = players["anna"]
    form = {"language": "", "time_zone": "UTC", "email_on_turn": "on", "push_timeouts": "on"}
    clients["anna"].post("/accounts/preferences/", form)
    names = ("email_on_turn", "push_on_turn", "email_timeouts", "push_timeouts")
    assert tuple(choices_of_player(anna, names).values()) == (
        True,
        False,
        False,
        True,
    )
    assert not wants(anna, "timeout", "push")  # no device: nothing to push to
    subscribe(clients["anna"], Device().subscription(FCM + "phone"))
    anna.refresh_from_db()
    assert wants(anna, "timeout", "push") and not wants(anna, "turn", "push")
    assert not wants(anna, "digest", "push")  # the digest is an email only
    page = clients["anna"].get("/settings/").content.decode()
    assert 'aria-labelledby="channel-turn channel-push"' in page


@pytest.mark.parametrize(
    "agent, name",
    [
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            "Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Firefox on Linux",
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
            "SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
            "Samsung Internet on Android",
        ),
        ("", "A browser"),
        ("curl/8.5", "A browser"),
    ],
)
def test_devices_are_named_as_their_owner_knows_them(agent, name):
    assert device_name(agent) == name


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=8,
)
bodies = (
    st.fixed_dictionaries(
        {},
        optional={
            "endpoint": st.one_of(
                json_values,
                st.builds(lambda s: FCM + s, st.text(max_size=30)),
                st.sampled_from(["http://127.0.0.1:1/x", "https://fcm.googleapis.com"]),
            ),
            "keys": st.one_of(
                json_values,
                st.fixed_dictionaries({"p256dh": json_values, "auth": json_values}),
            ),
            "expirationTime": json_values,
        },
    )
    | json_values
)


@hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=bodies)
def test_no_body_a_stranger_sends_crashes_or_stores_a_bad_device(clients, body):
    response = subscribe(clients["anna"], body)
    assert response.status_code in (400, 409, 429), (body, response.content)
    assert "error" in response.json()
    assert not PushSubscription.objects.exists()


def test_the_key_pair_command_prints_a_key_the_server_signs_with(settings):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("vapid_keys", stdout=out)
    first, second = out.getvalue().splitlines()
    private = first.removeprefix("VAPID_PRIVATE_KEY=")
    settings.VAPID_PRIVATE_KEY = private
    assert webpush.public_key() == second.removeprefix("# public key: ")
    assert len(webpush.b64url_decode(private)) == 32
    out2 = StringIO()
    call_command("vapid_keys", stdout=out2)
    assert out2.getvalue() != out.getvalue()  # a new pair each time


def test_the_admin_lists_devices_without_their_endpoints(admin_client, clients):
    subscribe(clients["anna"], Device().subscription(FCM + "secret-endpoint"))
    device = PushSubscription.objects.get()
    for url in (
        "/admin/accounts/pushsubscription/",
        f"/admin/accounts/pushsubscription/{device.pk}/change/",
    ):
        page = admin_client.get(url)
        assert page.status_code == 200
        assert (
            "secret-endpoint" not in page.content.decode()
            and device.auth not in page.content.decode()
        )
