"""A whole tournament of each format, played through the services to its winner, then
read in each of the site's four languages: its page, and the notification of its end
each player gets in their own language.

The words expected are the catalogues' own (``gettext`` under each language), and each
must differ from the English: a page that fell back to English fails."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games.models import Notification
from games.notify import mail as mails
from tournaments.models import Tournament

from .conftest import higher_seed_wins, play_stage, started

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "de", "fr", "it")


def said(language: str, msgid: str, **values) -> str:
    with translation.override(language):
        text = gettext(msgid)
    if language != "en":
        assert text != msgid, (language, msgid)
    return text % values if values else text


@pytest.mark.parametrize(
    ("fmt", "count", "terms"),
    [
        ("round_robin", 4, {}),
        ("groups_knockout", 6, {"group_size": 3, "advance": 2}),
        ("knockout", 5, {}),
    ],
)
def test_a_whole_tournament_read_in_each_language(make_players, staff, fmt, count, terms):
    players = make_players(count)  # rated from the highest down: p0 is the first seed
    for player, language in zip(players, LANGUAGES * 2, strict=False):
        player.email, player.language = f"{player.username}@example.org", language
        player.save(update_fields=["email", "language"])
        EmailAddress.objects.create(user=player, email=player.email, verified=True, primary=True)
    tournament = started(staff, fmt, players, **terms)
    for _stage in range(6):
        if tournament.status != Tournament.Status.RUNNING:
            break
        play_stage(tournament, higher_seed_wins)
        tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.winner_id == players[0].pk

    for language in LANGUAGES:
        answer = Client(headers={"accept-language": language}).get(f"/tournaments/{tournament.pk}/")
        assert answer.status_code == 200
        page = answer.content.decode()
        won = said(language, "<strong>%(name)s</strong> won the tournament.", name="p0")
        assert won in page, language
        assert said(language, "Final places") in page
        if fmt == "round_robin":
            assert said(language, "Standings") in page and said(language, "Crosstable") in page
        if fmt == "groups_knockout":
            assert said(language, "Group %(letter)s", letter="A") in page
        if fmt != "round_robin":
            assert said(language, "Final") in page

    ended = Notification.objects.filter(
        kind="tournament", key=f"{tournament.pk}:ended", channel="email"
    ).select_related("user")
    assert sorted(n.user_id for n in ended) == sorted(p.pk for p in players)
    for notification in ended:
        language = notification.user.language
        with translation.override(language):
            subject, body = mails._compose(notification, mails.kinds.get("tournament"))
        assert subject == said(language, "The tournament %(name)s is over", name=tournament.name)
        if notification.user_id == players[0].pk:
            assert body.startswith(said(language, "You won it. Congratulations!"))
