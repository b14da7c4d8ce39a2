"""The moderators' console: a report handled in one step, audited, and both players told
(on their pages and by email), once however often it is sent."""

import threading

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext

from accounts.models import SUSPENDED_FOR_GOOD, Notice
from games.models import ChatMessage, Game
from games.services.chat import do_chat
from moderation.models import AuditEntry, Report
from moderation.services import do_handle_report, do_report
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden

from ..helpers.accounts import confirmed_address, log_in_with_second_factor
from ..helpers.days import run_worker

pytestmark = pytest.mark.django_db

CONSOLE = "/moderation/"


@pytest.fixture
def insult(game, players):
    """bernd reports anna's insult, in the middle of their chat."""
    for n in range(5):
        do_chat(game.pk, players["anna" if n % 2 else "bernd"], f"line {n}")
    message = do_chat(game.pk, players["anna"], "you cheating\nlittle <b>rat</b>" + " !" * 200)
    for n in range(5, 9):
        do_chat(game.pk, players["bernd" if n % 2 else "anna"], f"line {n}")
    return do_report(players["bernd"], "insult", message_id=message.pk)


def handle(report, moderator, handling, reason="insults in the chat", days=None):
    return do_handle_report(report.pk, moderator, handling, reason, days=days)


def notices(user):
    return list(Notice.objects.filter(user=user).values_list("subject", "body"))


# -- the service ------------------------------------------------------------------------


def test_hiding_the_message_closes_its_reports_audits_and_tells_both(
    insult, moderator, players, game
):
    carl_too = do_report(players["anna"], "own goal", message_id=insult.message_id)
    handle(insult, moderator, "hide")
    assert ChatMessage.objects.get(pk=insult.message_id).hidden
    assert set(Report.objects.values_list("status", flat=True)) == {"resolved"}
    assert Report.objects.get(pk=carl_too.pk).resolved_by == moderator
    actions = sorted(AuditEntry.objects.values_list("action", "target_id"))
    assert actions == sorted(
        [
            ("hide_message", str(insult.message_id)),
            ("resolve_report", str(insult.pk)),
            ("resolve_report", str(carl_too.pk)),
        ]
    )
    assert all(e.reason == "insults in the chat" for e in AuditEntry.objects.all())
    [(subject, body)] = notices(players["bernd"])
    assert subject == "Your report was handled" and "took action" in body
    told = notices(players["anna"])  # the reported player, who also reported: both notices
    hidden = next(body for subject, body in told if subject.startswith("A moderator hid"))
    assert f"game {game.pk}" in hidden and "insults in the chat" in hidden
    assert "you cheating\nlittle <b>rat</b>" + " !" * 200 in hidden  # whole, as written


def test_warning_is_in_the_history_and_the_reporter_hears_only_that_action_was_taken(
    insult, moderator, players
):
    handle(insult, moderator, "warn", "be civil")
    entry = AuditEntry.objects.get(action="warn")
    assert (entry.target_type, entry.target_id) == ("user", str(players["anna"].pk))
    [(subject, body)] = notices(players["anna"])
    assert subject == "A warning from the moderators" and "be civil" in body
    [(_, told)] = notices(players["bernd"])
    assert "warn" not in told and "be civil" not in told  # not the sanction, nor its reason
    assert not ChatMessage.objects.get(pk=insult.message_id).hidden


@pytest.mark.parametrize(("days", "until"), [(7, "until"), (None, "for good")])
def test_suspending_uses_the_suspension_and_says_until_when(
    insult, moderator, players, game, days, until
):
    players["anna"].language = "de"
    players["anna"].save()
    handle(insult, moderator, "suspend", "threats", days=days)
    anna = players["anna"]
    anna.refresh_from_db()
    assert anna.is_suspended and anna.suspension_reason == "threats"
    assert (anna.suspended_until == SUSPENDED_FOR_GOOD) == (days is None)
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == players["bernd"]
    [(subject, body)] = notices(anna)
    assert subject == "Dein Konto ist gesperrt"  # in her language
    assert "threats" in body
    if days:
        local = timezone.localtime(anna.suspended_until, anna.zone)
        assert str(local.year) in body
    else:
        assert "dauerhaft" in body


def test_unfounded_tells_the_reporter_only(insult, moderator, players):
    handle(insult, moderator, "unfounded", "banter between friends")
    assert Report.objects.get().status == "resolved"
    assert notices(players["anna"]) == []
    [(_, body)] = notices(players["bernd"])
    assert "no action was taken" in body
    [entry] = AuditEntry.objects.all()
    assert entry.details == {"outcome": "unfounded"}


def test_a_report_on_a_game_acts_on_the_reporters_opponent(game, moderator, players):
    report = do_report(players["bernd"], "stalling", game_id=game.pk)
    with pytest.raises(BadRequest):
        handle(report, moderator, "hide")  # no message to hide
    handle(report, moderator, "warn", "do not stall")
    assert AuditEntry.objects.get(action="warn").target_id == str(players["anna"].pk)


@pytest.mark.parametrize("reason", ["", "   ", "\x00", "x" * 1001, None, 5])
def test_a_reason_is_required(insult, moderator, reason):
    with pytest.raises(BadRequest):
        do_handle_report(insult.pk, moderator, "hide", reason)
    assert Report.objects.get().status == "open"
    assert not AuditEntry.objects.exists() and not Notice.objects.exists()


@pytest.mark.parametrize(
    ("handling", "days"), [("delete", None), ("", None), ("suspend", 0), ("suspend", "7")]
)
def test_bad_handlings_are_refused(insult, moderator, handling, days):
    with pytest.raises(BadRequest):
        do_handle_report(insult.pk, moderator, handling, "why", days=days)
    assert Report.objects.get().status == "open" and not AuditEntry.objects.exists()


def test_a_second_submission_does_nothing_twice(insult, moderator, players):
    handle(insult, moderator, "suspend", days=1)
    with pytest.raises(Conflict) as refused:
        handle(insult, moderator, "suspend", days=30)
    assert "already handled by mia" in refused.value.message
    assert AuditEntry.objects.filter(action="suspend").count() == 1
    assert Notice.objects.count() == 2


def test_players_may_not_handle_reports(insult, players):
    with pytest.raises(Forbidden):
        handle(insult, players["carl"], "unfounded")
    assert Report.objects.get().status == "open"


def test_a_failed_step_leaves_nothing(insult, moderator, players, admin_user):
    insult.message.user.is_superuser = True  # a superuser cannot be suspended here
    insult.message.user.save()
    with pytest.raises(Forbidden):
        handle(insult, moderator, "suspend", days=7)
    assert Report.objects.get().status == "open"
    assert not AuditEntry.objects.exists() and not Notice.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_moderators_at_once_handle_it_once(players, game, moderator, admin_user):
    message = do_chat(game.pk, players["anna"], "rude")
    report = do_report(players["bernd"], "rude", message_id=message.pk)
    barrier = threading.Barrier(2)
    outcomes = []

    def act(who, handling):
        try:
            barrier.wait()
            handle(report, who, handling)
            outcomes.append("done")
        except Conflict:
            outcomes.append("conflict")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=act, args=(moderator, "hide")),
        threading.Thread(target=act, args=(admin_user, "warn")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict", "done"]
    assert AuditEntry.objects.filter(action="resolve_report").count() == 1
    assert Notice.objects.filter(user=players["bernd"]).count() == 1


# -- the notices: on the next page and by email -------------------------------------------


def test_both_players_see_their_notice_until_they_dismiss_it(insult, moderator, players, clients):
    for name in ("anna", "bernd"):
        confirmed_address(players[name])
    players["anna"].language = "fr"
    players["anna"].save()
    handle(insult, moderator, "hide", "insulte")
    page = clients["bernd"].get("/").content.decode()
    assert 'class="notice site-notice"' in page and "took action" in page
    french = clients["anna"].get("/").content.decode()
    assert "insulte" in french and "Un modérateur a masqué" in french
    notice = Notice.objects.get(user=players["bernd"])
    # someone else's notice is not theirs to dismiss
    clients["anna"].post(f"/notices/{notice.pk}/dismiss/", {"next": "/"})
    assert Notice.objects.get(pk=notice.pk).dismissed_at is None
    back = clients["bernd"].post(f"/notices/{notice.pk}/dismiss/", {"next": "/ranking/"})
    assert back["Location"] == "/ranking/"
    assert "site-notice" not in clients["bernd"].get("/").content.decode()
    again = clients["bernd"].post(f"/notices/{notice.pk}/dismiss/", {"next": "https://x.example/"})
    assert again["Location"] == "/"  # again: nothing to do; never to another site
    run_worker()
    sent = {m.to[0]: m for m in mail.outbox}
    assert "took action" in sent["bernd@example.org"].body
    assert "insulte" in sent["anna@example.org"].body
    assert sent["anna@example.org"].subject == "Un modérateur a masqué un de vos messages"


# -- the console page ---------------------------------------------------------------------


@pytest.fixture
def console(moderator):
    client = Client()
    log_in_with_second_factor(client, moderator)
    return client


def test_the_console_shows_the_message_in_its_chat(console, insult, game, players):
    html = console.get(CONSOLE).content.decode()
    case = html.split(f'id="report-{insult.pk}"', 1)[1]
    assert "you cheating<br>little &lt;b&gt;rat&lt;/b&gt;" + " !" * 200 in case  # whole, escaped
    chat = case.split('<ol class="chat-context">', 1)[1].split("</ol>", 1)[0]
    lines = chat.split("<li")[1:]
    assert len(lines) == 7  # three before, the message, three after
    assert 'class="reported"' in lines[3] and "line 4" in lines[2] and "line 5" in lines[4]
    assert "line 1" not in chat and "line 8" not in chat
    assert f'href="/games/{game.pk}/"' in case and "bernd" in case
    assert "0 warnings" in case


def test_the_console_is_for_moderators_with_a_second_factor(insult, clients, moderator):
    assert Client().get(CONSOLE)["Location"].startswith("/accounts/login/?next=/moderation/")
    assert clients["anna"].get(CONSOLE).status_code == 403
    no_code = Client()
    no_code.force_login(moderator)
    assert no_code.get(CONSOLE)["Location"].startswith("/accounts/2fa/totp/activate/")
    post = {"handling": "unfounded", "reason": "x"}
    assert clients["anna"].post(f"/moderation/reports/{insult.pk}/", post).status_code == 403
    assert no_code.post(f"/moderation/reports/{insult.pk}/", post).status_code == 302
    assert Report.objects.get().status == "open"


def test_a_guest_is_refused(insult, client):
    from accounts.guest_accounts import do_make_guest

    guest = do_make_guest("127.0.0.1")
    client.force_login(guest)
    assert client.get(CONSOLE).status_code == 403
    response = client.post(f"/moderation/reports/{insult.pk}/", {"handling": "hide", "reason": "x"})
    assert response.status_code == 403 and Report.objects.get().status == "open"


def test_one_post_handles_a_report_and_a_second_is_told_it_was_done(console, insult, players):
    body = {"handling": "suspend", "days": "7", "reason": "threats", "page": "1"}
    done = console.post(f"/moderation/reports/{insult.pk}/", body, follow=True)
    assert "handled" in done.content.decode()
    again = console.post(f"/moderation/reports/{insult.pk}/", body, follow=True)
    assert "already handled by mia" in again.content.decode()
    assert AuditEntry.objects.filter(action="suspend").count() == 1
    players["anna"].refresh_from_db()
    assert players["anna"].is_suspended


@pytest.mark.parametrize(
    "body",
    [
        {"handling": "hide"},
        {"handling": "hide", "reason": ""},
        {"handling": "suspend", "reason": "x"},
        {"handling": "suspend", "reason": "x", "days": "2"},
        {"handling": "explode", "reason": "x"},
        {"reason": "x"},
    ],
)
def test_the_console_refuses_a_bad_form_and_changes_nothing(console, insult, body):
    page = console.post(f"/moderation/reports/{insult.pk}/", body, follow=True)
    assert page.status_code == 200
    assert f"Report {insult.pk}:" in page.content.decode()
    assert Report.objects.get().status == "open" and not AuditEntry.objects.exists()


def test_the_console_costs_the_same_statements_for_one_report_as_for_a_page(
    console, game, players, django_assert_max_num_queries
):
    from django.test.utils import CaptureQueriesContext

    def report_one(n):
        message = ChatMessage.objects.create(game=game, user=players["anna"], text=f"m{n}")
        return Report.objects.create(reporter=players["bernd"], message=message, reason="r")

    other = Game.objects.get(pk=game.pk)  # a report on a game as well
    Report.objects.create(reporter=players["bernd"], game=other, reason="stalling")
    report_one(0)
    with CaptureQueriesContext(connection) as one:
        assert console.get(CONSOLE).status_code == 200
    for n in range(1, 30):
        report_one(n)
    with CaptureQueriesContext(connection) as many:
        html = console.get(CONSOLE).content.decode()
    assert len(many.captured_queries) == len(one.captured_queries)
    assert html.count('class="panel report-case"') == 10  # a page
    assert "Page 1 of 4" in html
    last = console.get(CONSOLE + "?page=4").content.decode()
    assert last.count('class="panel report-case"') == 1
    assert console.get(CONSOLE + "?page=junk").status_code == 200


def test_the_admins_list_of_reports_leads_to_the_console(console, insult):
    html = console.get("/admin/moderation/report/").content.decode()
    assert f'href="{CONSOLE}"' in html


def test_the_header_leads_moderators_to_the_console_and_nobody_else(console, clients):
    link = f'href="{CONSOLE}"'
    assert link in console.get("/").content.decode()
    assert link not in clients["anna"].get("/").content.decode()
    assert link not in Client().get("/rules/").content.decode()


@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_the_console_and_the_notices_speak_each_language(insult, moderator, players, language):
    from ..helpers.i18n import english_in
    from ..test_no_english import visible_text

    for user in (moderator, players["anna"], players["bernd"]):
        user.language = language
        user.save()
    console = Client()
    log_in_with_second_factor(console, moderator)
    page = console.get(CONSOLE)
    assert page.status_code == 200
    assert english_in(visible_text(page), language) == []
    done = console.post(
        f"/moderation/reports/{insult.pk}/",
        {"handling": "suspend", "days": "30", "reason": "x"},
        follow=True,
    )
    assert english_in(visible_text(done), language) == []
    assert "Report" not in done.content.decode().split("<main", 1)[1]
    bernd = Client()
    bernd.force_login(players["bernd"])
    told = visible_text(bernd.get("/"))
    assert english_in(told, language) == [] and "took action" not in told
    with translation.override(language):
        assert gettext("Your report was handled") in told
    assert "Your account is suspended" not in Notice.objects.get(user=players["anna"]).subject
