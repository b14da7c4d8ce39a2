"""The settings page: one place, linked from every page's header, for notifications,
language, time zone, devices, holidays, the address and password, and API tokens; the
time-zone picker's choices; the old addresses and forms coming back to it."""

import datetime as dt
import re
import zoneinfo

import pytest
from django.utils import translation

from accounts.forms import place_zones, time_zone_choices, utc_offset, zone_label
from accounts.models import User
from games.notify import preferences

pytestmark = pytest.mark.django_db

WINTER = dt.datetime(2026, 1, 15, 12, tzinfo=dt.UTC)
SUMMER = dt.datetime(2026, 7, 15, 12, tzinfo=dt.UTC)


def options(page: str) -> list[str]:
    select = re.search(r'<select name="time_zone".*?</select>', page, re.S).group(0)
    return re.findall(r'<option value="([^"]*)"', select)


def test_the_page_holds_every_setting_and_asks_for_a_log_in(client, clients):
    response = client.get("/settings/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    page = clients["anna"].get("/settings/").content.decode()
    for section in ("notifications", "language", "devices", "holidays", "account", "tokens"):
        assert f'id="{section}"' in page and f'href="#{section}"' in page
    assert 'action="/accounts/preferences/"' in page
    assert 'aria-labelledby="channel-turn channel-email"' in page  # the notify form's table
    assert 'action="/accounts/holidays/"' in page and 'action="/accounts/tokens/"' in page
    assert 'name="language"' in page and 'name="time_zone"' in page


@pytest.mark.parametrize("path", ["/", "/rules/", "/ranking/", "/users/bernd/", "/settings/"])
def test_every_page_links_the_settings_and_the_profile_in_the_header(clients, path):
    page = clients["anna"].get(path).content.decode()
    header = page[page.index('<header class="site-header">') : page.index("</header>")]
    assert '<a href="/settings/"' in header and ">Settings</a>" in header
    assert re.search(
        r'<a href="/users/anna/" class="who" aria-label="Your profile: anna">'
        r'<span class="player-name"',
        header,
    )


def test_no_settings_link_for_a_visitor(client):
    assert 'href="/settings/"' not in client.get("/rules/").content.decode()


def test_the_own_profile_points_to_the_settings_and_holds_no_form_of_them(clients):
    page = clients["anna"].get("/users/anna/").content.decode()
    assert 'id="preferences"' in page and 'href="/settings/"' in page  # old #preferences links
    assert 'action="/accounts/preferences/"' not in page and 'name="time_zone"' not in page
    assert (
        'href="/settings/"'
        not in clients["bernd"]
        .get("/users/anna/")
        .content.decode()[clients["bernd"].get("/users/anna/").content.decode().index("<main") :]
    )


def test_the_old_address_of_the_preferences_goes_to_the_settings(clients):
    response = clients["anna"].get("/accounts/preferences/")
    assert response.status_code == 302 and response["Location"] == "/settings/#notifications"


def test_each_form_comes_back_to_its_section(clients):
    anna = clients["anna"]
    sent = anna.post("/accounts/preferences/", {"language": "de", "time_zone": "Asia/Tokyo"})
    assert sent["Location"] == "/settings/#notifications"
    assert User.objects.get(username="anna").time_zone == "Asia/Tokyo"
    assert anna.post("/accounts/holidays/", {"start": "x"})["Location"] == "/settings/#holidays"
    assert anna.post("/accounts/tokens/", {"name": ""})["Location"] == "/settings/#tokens"
    assert anna.post("/accounts/devices/999/remove/")["Location"] == "/settings/#devices"


@translation.override("en")
def test_the_picker_offers_places_only_grouped_by_region():
    zones = place_zones()
    assert {"Europe/Berlin", "America/Argentina/Buenos_Aires", "Asia/Kolkata"} <= zones
    for machine in ("Etc/GMT+1", "Factory", "US/Eastern", "GMT+0", "CET", "EST5EDT", "UTC"):
        assert machine not in zones
    for alias in ("Europe/Kiev", "Asia/Calcutta", "America/Buenos_Aires"):  # old names
        assert alias not in zones
    assert len(zones) < 450  # of ~600 names
    groups = dict(time_zone_choices(now=WINTER))
    europe = [name for name, _label in groups["Europe"]]
    assert europe == sorted(europe, key=lambda n: n.split("/", 1)[1])
    assert ("Europe/Berlin", "Europe — Berlin (UTC+01:00)") in groups["Europe"]
    assert ("America/Argentina/Buenos_Aires", "America — Argentina / Buenos Aires (UTC-03:00)") in (
        groups["America"]
    )
    assert dict(time_zone_choices(now=SUMMER))["Europe"][europe.index("Europe/Berlin")] == (
        "Europe/Berlin",
        "Europe — Berlin (UTC+02:00)",
    )


@translation.override("en")
def test_the_offsets_and_labels():
    assert utc_offset("Asia/Kolkata", WINTER) == "UTC+05:30"
    assert utc_offset("America/St_Johns", WINTER) == "UTC-03:30"
    assert zone_label("UTC", WINTER) == "Universal time (UTC+00:00)"
    assert zone_label("US/Eastern", WINTER) == "US/Eastern (UTC-05:00)"  # an old name, as it is


def test_common_zones_come_first_the_players_own_at_the_top(clients):
    User.objects.filter(username="anna").update(time_zone="Asia/Kolkata")
    names = options(clients["anna"].get("/settings/").content.decode())
    assert names[:3] == ["Asia/Kolkata", "Europe/Berlin", "Europe/Vienna"]
    assert "UTC" in names[:10]
    assert not any(n.startswith(("Etc/", "US/")) or n in ("Factory", "GMT+0") for n in names)
    page = clients["anna"].get("/settings/").content.decode()
    assert '<option value="Asia/Kolkata" selected>' in page
    assert page.count(" selected>Asia — Kolkata") == 1  # only the first of its two options
    assert '<optgroup label="Common time zones">' in page and '<optgroup label="Europe">' in page


def test_a_player_at_the_default_zone_gets_the_browsers_preselected(clients):
    page = clients["anna"].get("/settings/").content.decode()
    assert re.search(r'<select name="time_zone"[^>]*data-zone-unchosen', page)
    User.objects.filter(username="anna").update(time_zone="Europe/Rome")
    page = clients["anna"].get("/settings/").content.decode()
    assert not re.search(r'<select name="time_zone"[^>]*data-zone-unchosen', page)


def test_a_player_keeps_an_old_zone_name_chosen_before():
    user = User.objects.create_user("old", password="x", time_zone="US/Eastern")
    form = preferences.PreferencesForm(instance=user)
    first = form.fields["time_zone"].choices[0][1]
    assert first[0][0] == "US/Eastern"
    data = {"language": "", "time_zone": "US/Eastern"}
    assert preferences.PreferencesForm(data, instance=user).is_valid()


@pytest.mark.parametrize(
    "hostile",
    ["Mars/Olympus_Mons", "../../etc/passwd", "", "Europe/Berlin\x00", "<script>", "x" * 5000]
    + ["europe/berlin", " Europe/Berlin"],
)
def test_any_other_zone_is_refused_with_a_clear_error_and_changes_nothing(clients, hostile):
    before = User.objects.get(username="anna")
    preferences.choose(before, email_on_turn=False)
    response = clients["anna"].post(
        "/accounts/preferences/",
        {"language": "de", "time_zone": hostile, "email_on_turn": "on"},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Not saved:" in page
    if hostile != "":
        assert "Not a time zone: choose one from the list." in page
    after = User.objects.get(username="anna")
    assert (after.time_zone, after.language) == (before.time_zone, before.language)
    assert after.notification_choices == before.notification_choices


def test_every_zone_offered_is_one_the_account_accepts():
    from accounts.models import time_zones

    assert place_zones() <= time_zones()
    for name in place_zones():
        zoneinfo.ZoneInfo(name)
