"""The analysis after the game: the worker stores it in chunks for finished games only,
records a failure and gives up after a few, and the replay page shows it when it is
ready (the chart, the figures, the costliest decisions), says it is being prepared
before, and shows nothing of it for a game under way."""

import logging
import re
import uuid

import pytest
from django.db import connection, transaction
from django.utils import translation

from games import analysis_shown, jobs
from games.bots import admiral
from games.bots import hindsight as pure
from games.models import Game, GameAnalysis
from games.services import analysis, commands, endings

from ..helpers.games import abort_as_before, play_on
from ..helpers.i18n import unlocalised_svg

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(game):
    game = play_on(game, seed=7)
    assert game.status == Game.Status.FINISHED
    return game


@pytest.fixture
def quick_playouts(monkeypatch):
    """Fewer playouts per decision: the same analysis, quicker (for the page's tests)."""
    monkeypatch.setattr(admiral, "PLAYOUTS", 8)
    monkeypatch.setattr(pure, "PAIRED", 4)


def analyse_all(limit: int = 200) -> int:
    """Run the worker's job until nothing is left; the number of calls it took."""
    for calls in range(1, limit + 1):
        if not jobs.analyse_games():
            return calls
    raise AssertionError("the analysis never ended")


def log_of(game) -> list[dict]:
    return [e.as_rules_event() for e in game.events.order_by("seq")]


def abort(game, players):
    """Aborted games exist from before the rule that a dealt game cannot be called off."""
    return abort_as_before(game)


def annul(game):
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        endings.end_by_server(locked, "annulled", None, note="")
    game.refresh_from_db()
    return game


# -- the worker ---------------------------------------------------------------------------


def test_the_worker_stores_the_analysis_of_a_finished_game_in_chunks(finished):
    assert "analysis" in jobs.JOBS and "analysis" in jobs.FAST_JOBS
    found = pure.decisions(log_of(finished))
    weighed = jobs.analyse_games()  # one call: about BUDGET_SECONDS of work
    row = GameAnalysis.objects.get(game=finished)
    assert row.status == GameAnalysis.Status.PENDING
    assert 0 < weighed == row.done < row.total == len(found)
    assert row.decisions == pure.analyse(found, finished.pk, 0, row.done)

    calls = analyse_all()
    row.refresh_from_db()
    assert calls > 2  # one game takes several calls
    assert row.status == GameAnalysis.Status.READY and row.done == row.total
    assert row.computed_at is not None and row.seconds > 0 and row.attempts == 0
    assert row.decisions == pure.analyse(found, finished.pk)  # chunks: the same as in one go
    assert jobs.analyse_games() == 0  # nothing left


def test_one_call_works_for_about_its_budget(finished, monkeypatch):
    ticks = iter(range(10_000))  # a clock that moves 10 ms each time it is read
    weighed = analysis.do_analyse(budget=0.1, clock=lambda: next(ticks) / 100)
    row = GameAnalysis.objects.get(game=finished)
    assert 1 <= weighed == row.done <= 5


def test_a_chunk_is_kept_only_once_when_two_workers_race(finished):
    row = GameAnalysis.objects.get(game=finished)  # queued when the game ended
    stale = GameAnalysis.objects.get(pk=row.pk)
    analysis._work_on(row, deadline=0, clock=lambda: 0)  # one decision at least
    stored = GameAnalysis.objects.get(pk=row.pk).done
    assert stored >= 1
    analysis._work_on(stale, deadline=0, clock=lambda: 0)  # from the same progress: dropped
    assert GameAnalysis.objects.get(pk=row.pk).done == stored


def test_unfinished_aborted_and_annulled_games_are_not_analysed(game, players):
    from games.services import invitations

    assert jobs.analyse_games() == 0  # a game under way
    aborted = abort(game, players)
    assert aborted.status == Game.Status.ABORTED
    second = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="anna").pk, players["anna"]
    )
    second = play_on(second, seed=2, until_version=30)
    assert annul(second).status == Game.Status.ANNULLED
    assert jobs.analyse_games() == 0
    assert not GameAnalysis.objects.exists()


def test_a_game_that_ended_before_any_choice_has_an_empty_analysis(game, players, clients):
    user = players["anna"] if game.rules_state().turn == 0 else players["bernd"]
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, str(uuid.uuid4()))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    analyse_all()
    row = GameAnalysis.objects.get(game=game)
    assert row.status == GameAnalysis.Status.READY and row.decisions == [] and row.total == 0
    page = clients["carl"].get(f"/games/{game.pk}/replay/").content.decode()
    assert "There is nothing to analyse" in page and "analysis-chart" not in page


def test_a_failure_is_recorded_logged_and_given_up_after_a_few(finished, monkeypatch, caplog):
    def broken(decision, key):
        raise RuntimeError("the playouts went astray")

    monkeypatch.setattr(pure, "analyse_decision", broken)
    with caplog.at_level(logging.ERROR, logger="games.services.analysis"):
        assert jobs.analyse_games() == 0
        row = GameAnalysis.objects.get(game=finished)
        assert row.status == GameAnalysis.Status.PENDING and row.attempts == 1
        assert row.error == "RuntimeError: the playouts went astray"
        for _ in range(analysis.MAX_ATTEMPTS + 2):
            jobs.analyse_games()
    row.refresh_from_db()
    assert row.status == GameAnalysis.Status.FAILED and row.attempts == analysis.MAX_ATTEMPTS
    failures = [r for r in caplog.records if "analysis of game" in r.getMessage()]
    assert len(failures) == analysis.MAX_ATTEMPTS + 1  # each failure, then giving up
    assert "gave up" in failures[-1].getMessage()


def test_a_failed_game_does_not_hold_up_the_others(finished, players, monkeypatch):
    from games.services import invitations

    GameAnalysis.objects.filter(game=finished).update(status="failed", attempts=3)
    other = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="anna").pk, players["anna"]
    )
    other = play_on(other, seed=4)
    monkeypatch.setattr(admiral, "PLAYOUTS", 8)
    monkeypatch.setattr(pure, "PAIRED", 2)
    analyse_all()
    assert GameAnalysis.objects.get(game=other).status == GameAnalysis.Status.READY
    assert GameAnalysis.objects.get(game=finished).status == GameAnalysis.Status.FAILED


# -- the replay page ----------------------------------------------------------------------


def polyline(page: str, side: str) -> str:
    return re.search(rf'<polyline class="line {side}" points="([^"]+)"', page).group(1)


def test_the_replay_shows_the_chart_and_the_costliest_decisions_when_ready(
    finished, clients, quick_playouts
):
    analyse_all()
    row = GameAnalysis.objects.get(game=finished)
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()  # a watcher
    assert 'id="analysis"' in page and 'data-state="ready"' in page
    assert '<svg class="analysis-chart"' in page
    assert 'aria-labelledby="analysis-chart-title analysis-chart-desc"' in page
    assert '<title id="analysis-chart-title">' in page and '<desc id="analysis-chart-desc">' in page
    assert "Chance to win over the game" in page and "anna in red, bernd in blue" in page
    assert len(polyline(page, "me").split()) == len(row.decisions)
    assert "css/analysis.css" in page and "<table" in page and "round by round" in page
    # the costliest decisions, in words, each a link to its step
    items = re.findall(r'<li class="by-(?:me|opponent)" value="\d">(.*?)</li>', page, re.S)
    costly = [d for d in row.decisions if d["loss"] >= 0.05 and d["loss"] > d["margin"]]
    assert len(items) == min(5, len(costly)) > 0
    worst = max(costly, key=lambda d: d["loss"])  # the costliest whose interval is a loss
    assert f'href="#step-{worst["step"]}"' in page
    assert f"Round {worst['round']}, step {worst['step']}" in page
    assert all("The admiral would have played “" in item for item in items)
    assert all("chance to win" in item and "% →" in item for item in items)
    assert all(re.search(r"%, \d+ points lost \(±\s\d+\)\.", item) for item in items)
    assert "The admiral’s analysis" in page and "95% interval" in page
    assert len(re.findall(r'<circle class="mark ', page)) == len(items)
    assert "being prepared" not in page


def test_red_is_the_side_the_replay_is_seen_from(finished, clients, quick_playouts):
    analyse_all()
    url = f"/games/{finished.pk}/replay/"
    as_anna = clients["carl"].get(url).content.decode()
    as_bernd = clients["carl"].get(url + "?as=bernd").content.decode()
    assert polyline(as_anna, "me") == polyline(as_bernd, "opponent")
    assert polyline(as_anna, "opponent") == polyline(as_bernd, "me")
    assert "bernd in red, anna in blue" in as_bernd
    own = clients["bernd"].get(url).content.decode()  # a player: from their own side
    assert polyline(own, "me") == polyline(as_bernd, "me")


def test_before_it_is_ready_the_replay_says_it_is_being_prepared(finished, clients):
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert 'data-state="pending"' in page and "The analysis is being prepared." in page
    assert "analysis-chart" not in page
    jobs.analyse_games()
    row = GameAnalysis.objects.get(game=finished)
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert f"{row.done} of {row.total} decisions weighed" in page
    source = f"/games/{finished.pk}/replay/analysis/?as=anna"
    assert f'data-source="{source}"' in page
    part = clients["anna"].get(source)
    assert part.status_code == 200 and part.content.decode().lstrip().startswith("<section")
    assert f"{row.done} of {row.total}" in part.content.decode()


def test_the_section_alone_once_ready(finished, clients, quick_playouts):
    analyse_all()
    part = clients["carl"].get(f"/games/{finished.pk}/replay/analysis/?as=bernd")
    body = part.content.decode()
    assert part.status_code == 200 and 'data-state="ready"' in body and "data-source" not in body
    assert "bernd in red, anna in blue" in body


def test_a_failed_analysis_is_said_so(finished, clients):
    GameAnalysis.objects.filter(game=finished).update(status="failed", attempts=3)
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert "This game could not be analysed." in page


def test_aborted_and_annulled_games_say_they_have_no_analysis(game, players, clients):
    aborted = abort(game, players)
    page = clients["carl"].get(f"/games/{aborted.pk}/replay/").content.decode()
    assert "An aborted game is not analysed." in page and "being prepared" not in page
    from games.services import invitations

    other = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="anna").pk, players["anna"]
    )
    annulled = annul(play_on(other, seed=1, until_version=20))
    page = clients["carl"].get(f"/games/{annulled.pk}/replay/").content.decode()
    assert "An annulled game is not analysed." in page


def test_a_game_under_way_shows_no_analysis(game, clients, quick_playouts):
    game = play_on(game, seed=7, until_version=60)
    assert game.status == Game.Status.ACTIVE
    # even one stored by mistake: the captain's advice is not for a game being played
    found = pure.decisions(log_of(game))
    GameAnalysis.objects.create(
        game=game, status="ready", decisions=pure.analyse(found, game.pk), done=len(found)
    )
    response = clients["anna"].get(f"/games/{game.pk}/replay/")
    page = response.content.decode()
    assert response.status_code == 200 and 'id="analysis"' not in page
    assert "analysis-heading" not in page and "would have played" not in page
    assert clients["anna"].get(f"/games/{game.pk}/replay/analysis/").status_code == 404


def test_a_stranger_sees_a_private_replay_no_more_than_before(game, clients, client):
    game = play_on(game, seed=7, until_version=40)
    for path in (f"/games/{game.pk}/replay/", f"/games/{game.pk}/replay/analysis/"):
        refused = clients["carl"].get(path)
        assert refused.status_code == 403 and 'id="analysis"' not in refused.content.decode()
        assert clients["anna"].get(path + "?as=bernd").status_code == 403  # not her side
        assert client.get(path).status_code == 302  # not logged in: to the login page
    assert clients["carl"].get("/games/999999/replay/analysis/").status_code == 404


def test_the_admin_lists_analyses_read_only(finished, admin_client, quick_playouts):
    analyse_all()
    listing = admin_client.get("/admin/games/gameanalysis/")
    assert listing.status_code == 200 and "ready" in listing.content.decode()
    assert '<td class="field-engine">admiral</td>' in listing.content.decode()
    page = admin_client.get(f"/admin/games/gameanalysis/{finished.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.post(f"/admin/games/gameanalysis/{finished.pk}/delete/").status_code == 403


@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_the_chart_draws_the_same_in_every_language(
    finished, clients, players, quick_playouts, language
):
    """Coordinates are never written with a decimal comma (German, French, Italian)."""
    analyse_all()
    players["carl"].language = language
    players["carl"].save(update_fields=["language"])
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert '<svg class="analysis-chart"' in page
    assert unlocalised_svg(page) == []


# -- the engine of an analysis ------------------------------------------------------------


def section(page: str) -> str:
    return re.search(r'<section id="analysis".*?</section>', page, re.S)[0]


def test_a_new_analysis_is_queued_for_todays_engine(game, monkeypatch):
    monkeypatch.setattr(pure, "ENGINE", "admiral")
    game = play_on(game, seed=7)
    assert GameAnalysis.objects.get(game=game).engine == "admiral"


def test_the_rows_from_before_the_engine_are_the_captains(finished):
    """The column's default in the database: the rows the migration found, and those the
    release still running inserts without the field."""
    GameAnalysis.objects.all().delete()
    table = GameAnalysis._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (game_id, status, done, total, decisions, attempts, error,"
            " seconds, created_at) VALUES (%s, 'pending', 0, 0, '[]', 0, '', 0, %s)",
            [finished.pk, finished.finished_at],
        )
    assert GameAnalysis.objects.get(game=finished).engine == "captain"


def test_a_pending_analysis_of_another_engine_starts_over_with_todays(
    finished, clients, quick_playouts, monkeypatch
):
    found = pure.decisions(log_of(finished))
    monkeypatch.setattr(pure, "ENGINE", "captain")  # as a release before the admiral's
    GameAnalysis.objects.filter(game=finished).update(engine="captain")
    ticks = iter(range(10_000))  # a clock that moves 10 ms each time it is read: a short
    analysis.do_analyse(budget=0.1, clock=lambda: next(ticks) / 100)  # first chunk, the captain's
    row = GameAnalysis.objects.get(game=finished)
    assert row.engine == "captain" and row.status == GameAnalysis.Status.PENDING
    begun = row.done
    assert 0 < begun < row.total
    monkeypatch.setattr(pure, "ENGINE", "admiral")
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert "The admiral’s analysis" in page and f"{begun} of {row.total}" not in page

    def judged(decision, key):  # the admiral's judgement: told apart by a mark of its own
        entry = real(decision, key)
        return entry and {**entry, "by": "admiral"}

    real = pure.analyse_decision
    monkeypatch.setattr(pure, "analyse_decision", judged)
    jobs.analyse_games()
    row.refresh_from_db()
    assert row.engine == "admiral" and row.done > 0
    expected = [e for e in (real(d, finished.pk) for d in found[: row.done]) if e]
    assert row.decisions == [{**e, "by": "admiral"} for e in expected]  # none of the captain's
    analyse_all()
    row.refresh_from_db()
    assert row.status == GameAnalysis.Status.READY and row.done == row.total == len(found)
    assert row.engine == "admiral" and all(e["by"] == "admiral" for e in row.decisions)
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert "The admiral’s analysis" in page and "The admiral would have played “" in page
    assert "captain" not in section(page).lower()


def test_a_ready_analysis_keeps_its_engine(finished, clients, quick_playouts, monkeypatch):
    monkeypatch.setattr(pure, "ENGINE", "captain")  # as a release before the admiral's
    GameAnalysis.objects.filter(game=finished).update(engine="captain")
    analyse_all()
    monkeypatch.setattr(pure, "ENGINE", "admiral")
    assert jobs.analyse_games() == 0
    row = GameAnalysis.objects.get(game=finished)
    assert row.engine == "captain" and row.status == GameAnalysis.Status.READY
    page = clients["anna"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert "The captain’s analysis" in page and "The captain would have played “" in page
    assert "admiral" not in section(page).lower()


# -- how sure it is -----------------------------------------------------------------------


def entry(step: int, before: float, after: float, margin: float | None, seat: int = 0) -> dict:
    made = {
        "index": step,
        "step": step,
        "round": 1 + step // 40,
        "seat": seat,
        "roll": [2, 5],
        "played": {"type": "place", "die": 0},
        "best": {"type": "place", "die": 1},
        "before": before,
        "after": after,
        "loss": round(before - after, 4),
    }
    if margin is not None:
        made["margin"] = margin
    return made


def stored(game, entries: list[dict], engine: str = "captain") -> None:
    GameAnalysis.objects.filter(game=game).update(
        status="ready", decisions=entries, done=len(entries), total=len(entries), engine=engine
    )


def costly_items(page: str) -> list[str]:
    return re.findall(r'<li class="by-(?:me|opponent)" value="\d">(.*?)</li>', page, re.S)


SURE = [
    entry(10, 0.62, 0.51, 0.04),  # 11 points lost, ± 4: costly
    entry(20, 0.70, 0.40, 0.35),  # 30 points lost, ± 35: it may have lost nothing
    entry(30, 0.50, 0.46, 0.01, seat=1),  # 4 points: too little
    entry(40, 0.55, 0.49, 0.06),  # 6 points, ± 6: the interval reaches no loss
    entry(50, 0.40, 0.40, 0.0),
]


def test_each_costly_decision_says_how_sure_it_is(finished, clients):
    stored(finished, SURE)
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    (item,) = costly_items(page)  # the big loss with the wider margin is not called costly
    assert 'href="#step-10"' in item
    assert "#step-20" not in section(page) and "#step-40" not in section(page)
    assert "chance to win 62% → 51%, 11 points lost (±\xa04)." in item
    assert "The captain would have played “" in item
    assert len(re.findall(r'<circle class="mark ', page)) == 1
    assert "These are estimates, not certainties: the points" in page
    assert "95% interval" in page and "lost 5 points or more" in page


def test_a_margin_that_leaves_out_no_loss_makes_it_costly(finished, clients):
    stored(finished, [entry(10, 0.62, 0.51, 0.109), entry(20, 0.62, 0.51, 0.11)])
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    (item,) = costly_items(page)
    assert 'href="#step-10"' in item and "(±\xa011)" in item
    assert [
        analysis_shown.costly(e) for e in (entry(1, 0.6, 0.55, 0.0), entry(1, 0.6, 0.56, 0.0))
    ] == [
        True,
        False,
    ]


def test_entries_from_before_the_margins_keep_the_old_rule_and_show_no_margin(finished, clients):
    old = [{k: v for k, v in e.items() if k != "margin"} for e in SURE]
    stored(finished, old)
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    items = costly_items(page)
    assert len(items) == 3  # every loss of 5 points or more, however sure
    assert [re.search(r'href="#step-(\d+)"', i)[1] for i in items] == ["10", "20", "40"]
    shown = section(page)
    assert "chance to win 70% → 40%." in shown and "±" not in shown and "points lost" not in shown
    assert "These are estimates, not certainties.</p>" in re.sub(r"\s+</p>", "</p>", page)
    assert "95% interval" not in page


def test_no_costly_decision_says_so(finished, clients):
    stored(finished, [entry(10, 0.7, 0.4, 0.35), entry(20, 0.5, 0.5, 0.0)])
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    assert costly_items(page) == [] and "No decision cost 5% or more" in page


HEADINGS = {
    "en": ("The admiral’s analysis", "points lost", "interval"),
    "de": ("Die Analyse des Admirals", "Punkte verloren", "Intervall"),
    "fr": ("L’analyse de l’amiral", "points perdus", "intervalle"),
    "it": ("L’analisi dell’ammiraglio", "punti persi", "intervallo"),
}


@pytest.mark.parametrize("language", sorted(HEADINGS))
def test_the_admirals_analysis_in_every_language(finished, clients, players, language):
    stored(finished, SURE, engine="admiral")
    players["carl"].language = language
    players["carl"].save(update_fields=["language"])
    page = clients["carl"].get(f"/games/{finished.pk}/replay/").content.decode()
    heading, lost, interval = HEADINGS[language]
    assert f'<h2 id="analysis-heading">{heading}</h2>' in page
    (item,) = costly_items(page)
    assert f"11 {lost} (±\xa04)" in item and interval in page
    assert unlocalised_svg(page) == []
    with translation.override(language):
        words = analysis_shown.engine_words("admiral")
    assert words["heading"] == heading
    assert words["desc"].split("%(")[0] in page
