"""Moderators (staff, not superusers) act through the admin; every action is audited."""

import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import ApiToken
from games.models import ChatMessage, Game
from games.services import chat, commands, invitations
from moderation.models import AuditEntry, Report
from moderation.roles import MODERATORS, PERMISSIONS
from shanghaien.lib.errors import Forbidden

from ..helpers.moderation import act

pytestmark = pytest.mark.django_db


def test_the_moderators_group_has_exactly_the_listed_permissions(moderator):
    group = Group.objects.get(name=MODERATORS)
    held = {(p.content_type.app_label, p.codename) for p in group.permissions.all()}
    assert held == set(PERMISSIONS)
    assert moderator.is_staff and not moderator.is_superuser


def test_annul_needs_a_reason_ends_the_game_without_result_and_is_audited(
    mod_client, moderator, game, clients
):
    page = act(mod_client, "/admin/games/game/", "annul", [game.pk])  # no reason
    assert page.status_code == 200 and b"This field is required" in page.content
    game.refresh_from_db()
    assert game.status == "active"
    act(mod_client, "/admin/games/game/", "annul", [game.pk], reason="duplicate accounts")
    game.refresh_from_db()
    assert game.status == "annulled" and game.winner is None
    for name in ("anna", "bernd"):
        result = clients[name].get(f"/api/games/{game.pk}/").json()["view"]["result"]
        assert result["reason"] == "annulled" and result["winner"] is None
    entry = AuditEntry.objects.get()
    assert (entry.moderator, entry.action, entry.target_id, entry.reason) == (
        moderator,
        "annul",
        str(game.pk),
        "duplicate accounts",
    )


def test_adjudicate_awards_the_win(mod_client, game, clients, players):
    act(mod_client, "/admin/games/game/", "adjudicate", [game.pk], reason="abandoned", winner="1")
    game.refresh_from_db()
    assert game.result_reason == "adjudicated" and game.winner == players["bernd"]
    assert clients["bernd"].get(f"/api/games/{game.pk}/").json()["view"]["result"]["winner"] == "me"
    assert clients["anna"].get(f"/api/games/{game.pk}/").json()["view"]["result"]["winner"] == (
        "opponent"
    )
    assert AuditEntry.objects.get().details == {"winner": "bernd"}


def test_hiding_a_chat_message(mod_client, game, players, clients):
    message = chat.do_chat(game.pk, players["anna"], "rude words")
    act(mod_client, "/admin/games/chatmessage/", "hide", [message.pk], reason="insult")
    message.refresh_from_db()
    assert message.hidden
    assert clients["bernd"].get(f"/api/games/{game.pk}/chat/").json()["chat"] == []
    assert clients["bernd"].get(f"/api/games/{game.pk}/").json()["chat"] == []
    assert AuditEntry.objects.get().action == "hide_message"


def test_a_suspended_user_cannot_log_in_use_a_token_or_act(mod_client, game, players, clients):
    anna = players["anna"]
    _, raw = ApiToken.issue(anna, "bot")
    other = invitations.do_accept_invitation(
        invitations.do_invite(players["carl"], to="anna").pk, anna
    )
    act(mod_client, "/admin/accounts/user/", "suspend", [anna.pk], reason="cheating", days="7")
    anna.refresh_from_db()
    assert anna.is_suspended
    for g, winner in ((game, "bernd"), (other, "carl")):
        g.refresh_from_db()
        assert g.result_reason == "adjudicated" and g.winner.username == winner
    assert not Client().login(username="anna", password="tavern-dice-42")
    page = Client().post("/accounts/login/", {"login": "anna", "password": "tavern-dice-42"})
    assert "Your account is suspended until" in page.content.decode()
    assert "cheating" in page.content.decode()  # the reason the moderator gave
    assert clients["anna"].get("/api/games/").status_code == 401  # the old session is over
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/games/").status_code == 401
    fresh = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="carl").pk, players["carl"]
    )
    with pytest.raises(Forbidden):
        chat.do_chat(game.pk, anna, "hello?")
    entry = AuditEntry.objects.get(action="suspend")
    assert sorted(entry.details["adjudicated_games"]) == sorted([game.pk, other.pk])
    assert fresh.status == "active"
    act(mod_client, "/admin/accounts/user/", "lift_suspension", [anna.pk], reason="appeal won")
    assert Client().login(username="anna", password="tavern-dice-42")
    anna.refresh_from_db()
    assert anna.suspension_reason == ""
    assert AuditEntry.objects.filter(action="lift_suspension").count() == 1


def test_suspending_for_good(mod_client, players):
    act(mod_client, "/admin/accounts/user/", "suspend", [players["carl"].pk], reason="spam")
    players["carl"].refresh_from_db()
    assert players["carl"].suspended_until.year == 9999


def test_closing_a_report(mod_client, game, players):
    report = Report.objects.create(reporter=players["anna"], game=game, reason="stalling")
    act(mod_client, "/admin/moderation/report/", "resolve", [report.pk], reason="warned")
    report.refresh_from_db()
    assert report.status == "resolved" and report.resolved_by.username == "mia"


def test_moderators_can_do_nothing_beyond_their_permissions(mod_client, moderator, game, players):
    anna = players["anna"]
    assert mod_client.get("/admin/games/game/").status_code == 200
    assert mod_client.get(f"/admin/games/game/{game.pk}/change/").status_code == 200  # view
    change = mod_client.post(f"/admin/accounts/user/{anna.pk}/change/", {"username": "hacked"})
    assert change.status_code == 403
    assert mod_client.post(f"/admin/games/game/{game.pk}/delete/").status_code == 403
    assert mod_client.get("/admin/auth/group/").status_code == 403
    assert mod_client.get("/admin/accounts/apitoken/").status_code == 403
    assert not moderator.has_perm("accounts.change_user")
    assert not moderator.has_perm("games.change_game")
    anna.refresh_from_db()
    assert anna.username == "anna"


def test_the_audit_log_cannot_be_changed_through_the_admin(mod_client, game, admin_client):
    act(mod_client, "/admin/games/game/", "annul", [game.pk], reason="test")
    entry = AuditEntry.objects.get()
    for client in (mod_client, admin_client):  # not even a superuser
        assert client.get(f"/admin/moderation/auditentry/{entry.pk}/change/").status_code == 200
        edit = client.post(f"/admin/moderation/auditentry/{entry.pk}/change/", {"reason": "x"})
        assert edit.status_code == 403
        assert client.post(f"/admin/moderation/auditentry/{entry.pk}/delete/").status_code == 403
        assert client.get("/admin/moderation/auditentry/add/").status_code == 403
    entry.refresh_from_db()
    assert entry.reason == "test"
    with pytest.raises(TypeError):
        entry.delete()


def test_the_timeline_tells_the_game_in_words_and_links_each_step(mod_client, game, players):
    mover = game.to_move
    commands.do_command(game.pk, mover, {"type": "roll"}, game.version, "a")
    page = mod_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "round 1 — " in page and f"{mover.username} rolled " in page
    step = mod_client.get(f"/admin/games/game/{game.pk}/board/3/")
    assert step.status_code == 200 and b"after event 3 of 3" in step.content
    first = mod_client.get(f"/admin/games/game/{game.pk}/board/2/")
    assert first.context["view"]["roll"] is None  # the board before the roll


def test_a_player_cannot_reach_the_moderation_pages(clients, game):
    assert clients["anna"].get("/admin/games/game/").status_code == 302  # to the admin login
    data = {"action": "annul", "_selected_action": [str(game.pk)], "apply": "1", "reason": "x"}
    clients["anna"].post("/admin/games/game/", data)
    assert Game.objects.get(pk=game.pk).status == "active"


def test_moderator_services_check_permissions(game, players):
    from moderation.services import do_annul

    with pytest.raises(Forbidden):
        do_annul(game.pk, players["carl"], "no power")
    assert json.loads(json.dumps(Game.objects.get(pk=game.pk).status)) == "active"
    assert not ChatMessage.objects.exists()
