"""The turn email of a game's first turn says what happened: the invitation was accepted
(or, to the player who accepted, the game began), not that the opponent moved, which
only the later turns say; in each of the site's languages."""

import pytest
from django.core import mail
from django.utils import translation

from games.access import seating
from games.models import Game, Notification
from games.notify import mail as mails
from games.services import commands

from ...helpers.days import run_worker

pytestmark = pytest.mark.django_db

ACCEPTED = {
    "en": "bernd accepted your invitation. You move first, by",
    "de": "bernd hat deine Einladung angenommen. Du ziehst zuerst, bis",
    "fr": "bernd a accepté votre invitation. Vous jouez en premier, avant le",
    "it": "bernd ha accettato il tuo invito. Muovi tu per primo, entro",
}
BEGUN = {
    "en": "Your game against anna has begun. You move first, by",
    "de": "Deine Partie gegen anna hat begonnen. Du ziehst zuerst, bis",
    "fr": "Votre partie contre anna a commencé. Vous jouez en premier, avant le",
    "it": "La tua partita contro anna è iniziata. Muovi tu per primo, entro",
}
MOVED = {
    "en": "has moved. Your move, by",
    "de": "hat gezogen. Du bist am Zug, bis",
    "fr": "a joué",
    "it": "ha mosso",
}


def turn_email(game: Game, language: str) -> str:
    mover = game.to_move
    notification = Notification(user=mover, game=game, kind="turn", key=f"{game.pk}:x")
    with translation.override(language):
        subject, body = mails.turn(notification)
    return body


@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_the_first_turn_says_the_invitation_was_accepted(clocked, players, language):
    assert clocked.turn_number == 1  # the game began; nobody has moved
    body = turn_email(clocked, language)
    if clocked.to_move == players["anna"]:  # the inviter (seat 0) moves first
        assert body.startswith(ACCEPTED[language]), body
    else:
        assert body.startswith(BEGUN[language]), body
    assert MOVED[language] not in body


@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_each_seat_hears_its_own_words_in_the_first_turn(clocked, players, language):
    with translation.override(language):
        inviter = mails._turn_body(clocked, 0) % {"opponent": "bernd", "when": "x", "url": ""}
        accepter = mails._turn_body(clocked, 1) % {"opponent": "anna", "when": "x", "url": ""}
    assert inviter.startswith(ACCEPTED[language]) and accepter.startswith(BEGUN[language])


def test_a_later_turn_says_the_opponent_moved(clocked):
    mover = clocked.to_move
    commands.do_command(clocked.pk, mover, {"type": "roll"}, clocked.version, "a")
    game = Game.objects.get(pk=clocked.pk)
    if game.rules_state().phase == "direction":
        left = {"type": "direction", "one_at": "left"}
        commands.do_command(clocked.pk, mover, left, game.version, "b")
        game = Game.objects.get(pk=clocked.pk)
    commands.do_command(clocked.pk, mover, {"type": "place", "die": 0}, game.version, "c")
    game = Game.objects.get(pk=clocked.pk)
    assert game.turn_number == 2
    mail.outbox.clear()
    run_worker()
    [email] = mail.outbox
    opponent = seating(game, game.to_move).opponent.username
    assert email.body.startswith(f"{opponent} has moved. Your move, by")
