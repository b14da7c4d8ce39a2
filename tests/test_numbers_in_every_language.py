"""Numbers that a browser reads (SVG geometry, CSS in ``style=``, ``data-*`` attributes)
are written the same in every language: a page of the site, walked in German, French and
Italian, holds no decimal comma and no grouped thousands where a number is read, only
where it is shown as text."""

import re
import uuid

import pytest

from games.models import Game
from games.services import commands, invitations
from ratings.models import RatingChange

from .games.test_analysis import analyse_all, quick_playouts  # noqa: F401  (a fixture)
from .helpers.games import play_on
from .helpers.i18n import unlocalised_svg

pytestmark = pytest.mark.django_db

DECIMAL_COMMA = re.compile(r"(?<![\d,])-?\d+,\d+(?![\d,])")
GROUPED = re.compile(r"^-?\d{1,3}(?:[.\u00a0\u202f' ]\d{3})+$")


def localised_numbers(html: str) -> list[str]:
    """The ``style=`` and ``data-*`` attributes of a page that hold a number written the
    way one language writes it for a reader ("150,5", "1.500"): [] if none do."""
    wrong = []
    for name, value in re.findall(r'\s(style|data-[\w-]+)="([^"]*)"', html):
        if name == "style":
            # colours and font lists have commas between numbers: rgb(1, 2, 3) has spaces
            if DECIMAL_COMMA.search(value.replace(", ", " ")):
                wrong.append(f'{name}="{value}"')
        elif DECIMAL_COMMA.fullmatch(value.strip()) or GROUPED.match(value.strip()):
            wrong.append(f'{name}="{value}"')
    return wrong


def test_the_check_finds_what_it_looks_for():
    assert localised_numbers('<div style="width: 12,5%">') == ['style="width: 12,5%"']
    assert localised_numbers('<p data-rating="1.500">') == ['data-rating="1.500"']
    assert localised_numbers('<p data-score="3,25">') == ['data-score="3,25"']
    assert localised_numbers('<div style="color: rgb(1, 2, 3); width: 12.5%" data-n="1500">') == []
    assert unlocalised_svg('<svg><circle cx="150,5" cy="2"/></svg>') == ['cx="150,5"']


@pytest.fixture
def site(game, players, quick_playouts):  # noqa: F811
    """A finished game with its analysis, ratings that moved, and a game under way."""
    finished = play_on(game, seed=7)
    assert finished.status == Game.Status.FINISHED
    analyse_all()
    for loser in ("anna", "carl"):
        winner = "carl" if loser == "anna" else "anna"
        invitation = invitations.do_invite(players[winner], to=loser)
        rated = invitations.do_accept_invitation(invitation.pk, players[loser])
        commands.do_command(
            rated.pk, players[loser], {"type": "resign"}, rated.version, str(uuid.uuid4())
        )
    assert RatingChange.objects.filter(user=players["anna"]).count() >= 2
    invitation = invitations.do_invite(players["bernd"], to="carl")
    active = invitations.do_accept_invitation(invitation.pk, players["carl"])
    return {"finished": finished.pk, "active": active.pk}


@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_every_page_writes_its_read_numbers_the_same_in_every_language(
    site, players, clients, language
):
    anna = players["anna"]
    anna.language = language
    anna.save(update_fields=["language"])
    pages = [
        "/",
        "/users/anna/",
        "/users/bernd/",
        "/settings/",
        "/games/finished/",
        f"/games/{site['finished']}/",
        f"/games/{site['finished']}/replay/",
        f"/games/{site['finished']}/replay/analysis/",
        f"/games/{site['active']}/",
        "/rules/",
        "/fairness/",
        "/ranking/",
    ]
    drawn = 0
    for path in pages:
        response = clients["anna"].get(path)
        assert response.status_code == 200, path
        html = response.content.decode()
        assert f'lang="{language}"' in html or path.endswith("/analysis/"), path
        assert unlocalised_svg(html) == [], path
        assert localised_numbers(html) == [], path
        drawn += html.count("<svg")
    assert drawn >= 2  # the rating chart and the analysis chart at least
