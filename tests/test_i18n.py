"""Four languages: the catalogues, the choice of language, and times in the reader's zone."""

import datetime as dt
import gettext
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.utils import translation

from accounts.models import User
from games.services import invitations

from .helpers.accounts import confirmed_address
from .helpers.choices import choose
from .helpers.days import run_worker

LOCALE = Path(settings.BASE_DIR) / "locale"
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != "en"]


# -- the catalogues ------------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_is_complete_and_compiled(language):
    po = polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))
    untranslated = [entry.msgid for entry in po.untranslated_entries()]
    fuzzy = [entry.msgid for entry in po.fuzzy_entries()]
    assert untranslated == [], f"{len(untranslated)} untranslated, e.g. {untranslated[:5]}"
    assert fuzzy == [], f"{len(fuzzy)} fuzzy, e.g. {fuzzy[:5]}"
    # the committed .mo says what the .po says (make messages compiles it)
    with open(LOCALE / language / "LC_MESSAGES" / "django.mo", "rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    stale = []
    for entry in po.translated_entries():
        key = f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid
        if entry.msgid_plural:
            got = catalogue.ngettext(entry.msgid, entry.msgid_plural, 1)
            if entry.msgctxt:
                got = catalogue.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 1)
            if got != entry.msgstr_plural[0]:
                stale.append(entry.msgid)
        elif catalogue._catalog.get(key) != entry.msgstr:
            stale.append(entry.msgid)
    assert stale == [], f"the .mo is older than the .po (make messages): {stale[:5]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_the_placeholders(language):
    """Each translation uses the placeholders of its English, no more and no fewer (a
    form of a plural may leave out the count, as "one card" does)."""
    import re

    po = polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))
    placeholder = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
    wrong = []
    for entry in po.translated_entries():
        wanted = set(placeholder.findall(entry.msgid + entry.msgid_plural))
        count = {p for p in wanted if p.startswith("%(n)")}
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in forms:
            got = set(placeholder.findall(text))
            if not (wanted - count <= got <= wanted):
                wrong.append((entry.msgid, text))
    assert wrong == []


# -- choosing the language -----------------------------------------------------------------


@pytest.mark.django_db
def test_the_browser_language_picks_the_page_language():
    page = Client(HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9,en;q=0.5").get("/")
    assert page["Content-Language"] == "de"
    assert '<html lang="de">' in page.content.decode()
    english = Client(HTTP_ACCEPT_LANGUAGE="sv-SE").get("/")
    assert english["Content-Language"] == "en"


@pytest.mark.django_db
def test_the_chooser_sets_a_cookie_for_visitors_and_the_profile_for_players(players, clients):
    visitor = Client(HTTP_ACCEPT_LANGUAGE="de")
    response = visitor.post("/language/", {"language": "it", "next": "/ranking/"})
    assert response.status_code == 302 and response["Location"] == "/ranking/"
    assert visitor.get("/")["Content-Language"] == "it"
    clients["anna"].post("/language/", {"language": "fr", "next": "/"})
    players["anna"].refresh_from_db()
    assert players["anna"].language == "fr"
    # her choice follows her to another browser, whatever that browser asks for
    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="de")
    elsewhere.force_login(players["anna"])
    assert elsewhere.get("/")["Content-Language"] == "fr"
    # an unknown language changes nothing
    clients["anna"].post("/language/", {"language": "xx", "next": "/"})
    players["anna"].refresh_from_db()
    assert players["anna"].language == "fr"


@pytest.mark.django_db
def test_sign_up_keeps_the_page_language_and_the_browser_time_zone():
    client = Client(HTTP_ACCEPT_LANGUAGE="it-IT")
    client.post(
        "/accounts/signup/",
        {
            "username": "giulia",
            "email": "giulia@example.org",
            "password1": "tavern-dice-42",
            "password2": "tavern-dice-42",
            "time_zone": "Europe/Rome",
        },
    )
    giulia = User.objects.get(username="giulia")
    assert (giulia.language, giulia.time_zone) == ("it", "Europe/Rome")
    Client().post(
        "/accounts/signup/",
        {
            "username": "nemo",
            "email": "nemo@example.org",
            "password1": "tavern-dice-42",
            "password2": "tavern-dice-42",
            "time_zone": "Mars/Olympus_Mons",
        },
    )
    assert User.objects.get(username="nemo").time_zone == "UTC"


# -- times in the reader's zone, emails in the recipient's language -----------------------


@pytest.mark.django_db
def test_the_lobby_shows_deadlines_in_the_players_zone(players, clients, game):
    anna = players["anna"]
    anna.time_zone = "America/New_York"
    anna.save()
    page = clients["anna"].get("/").content.decode()
    assert "<time datetime=" in page
    assert " EST<" in page or " EDT<" in page
    assert " UTC<" not in page


@pytest.mark.django_db
def test_a_german_players_emails_are_german_with_times_in_their_zone(players):
    bernd = players["bernd"]
    confirmed_address(bernd)
    bernd.language, bernd.time_zone = "de", "Europe/Berlin"
    choose(bernd, email_on_turn=True)
    bernd.save()
    with translation.override("en"):  # anna, an English player, triggers it
        invitations.do_invite(players["anna"], to="bernd")
    run_worker()
    (email,) = mail.outbox
    with translation.override("de"):
        expected = translation.gettext("%(name)s invites you to a game of Shanghaien")
    assert email.subject.endswith(expected % {"name": "anna"})
    assert expected != "%(name)s invites you to a game of Shanghaien"  # really translated


@pytest.mark.django_db
def test_a_reminder_gives_the_deadline_in_the_players_zone(game):
    from games.models import Notification
    from games.notify.mail import compose

    mover = game.to_move
    confirmed_address(mover)
    mover.language, mover.time_zone = "de", "Asia/Tokyo"
    mover.save()
    row = Notification.objects.create(
        user=mover, kind="reminder", key=f"{game.pk}:{game.turn_number}", game=game
    )
    subject, body = compose(row)
    assert "JST" in body and "UTC" not in body
    deadline = game.deadline.astimezone(dt.timezone(dt.timedelta(hours=9)))
    assert deadline.strftime("%H:%M") in body
    with translation.override("de"):
        assert subject.startswith(
            translation.gettext("Reminder: your move against %(opponent)s")[:8]
        )


def test_the_catalogues_hold_every_string_of_the_code(tmp_path):
    """makemessages on a copy of the code finds no string the catalogues lack, and none
    they keep for nothing (`make messages` brings them up to date)."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("xgettext") is None:
        message = "GNU gettext (xgettext) is not installed: apt-get install gettext"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    root = Path(settings.BASE_DIR)
    for name in (
        "accounts",
        "games",
        "moderation",
        "ratings",
        "shanghaien",
        "templates",
        "tournaments",
    ):
        shutil.copytree(root / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "manage.py", tmp_path)
    (tmp_path / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    environment = {**os.environ, "DJANGO_DEBUG": "1", "PYTHONPATH": str(tmp_path)}
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--locale", "de", "--no-location"],
        cwd=tmp_path,
        env=environment,
        check=True,
        capture_output=True,
    )
    fresh = polib.pofile(str(tmp_path / "locale" / "de" / "LC_MESSAGES" / "django.po"))
    kept = polib.pofile(str(LOCALE / "de" / "LC_MESSAGES" / "django.po"))

    def keys(po):
        return {(entry.msgctxt, entry.msgid) for entry in po if not entry.obsolete}

    assert sorted(keys(fresh) - keys(kept), key=str) == [], "not in the catalogues yet"
    assert sorted(keys(kept) - keys(fresh), key=str) == [], "no longer in the code"


@pytest.mark.django_db
@pytest.mark.parametrize("back", ["//evil.example/", "https://evil.example/", "javascript:x"])
def test_the_chooser_goes_back_only_to_this_site(back):
    response = Client().post("/language/", {"language": "de", "next": back})
    assert response.status_code in (200, 204, 302)
    assert "evil" not in response.get("Location", "") and "javascript" not in response.get(
        "Location", ""
    )
