"""Holidays: they pause the deadline, opponents see them, 30 days a calendar year."""

import datetime as dt

import pytest

from accounts.holidays import do_declare_holiday
from games.access import seating
from games.clock import effective_deadline
from games.live.reads import game_now

from ..helpers.days import DAY, START, still_running_at
from ..helpers.games import post


@pytest.mark.django_db
def test_a_holiday_pauses_the_deadline(clocked, traveller):
    mover = clocked.to_move
    do_declare_holiday(mover, dt.date(2026, 3, 4), dt.date(2026, 3, 6))  # 3 days away
    clocked.refresh_from_db()
    assert effective_deadline(clocked) == START + 8 * DAY
    assert still_running_at(clocked, START + 7 * DAY, traveller)
    assert not still_running_at(clocked, START + 8 * DAY + dt.timedelta(seconds=1), traveller)
    assert clocked.result_reason == "timeout"


@pytest.mark.django_db
def test_holiday_days_are_the_players_own_days(clocked, traveller):
    """A player in Tokyo away on 4–6 March: from midnight there (15:00 UTC the day
    before) to midnight after the 6th, three days of 24 hours all the same."""
    mover = clocked.to_move
    mover.time_zone = "Asia/Tokyo"
    mover.save()
    do_declare_holiday(mover, dt.date(2026, 3, 4), dt.date(2026, 3, 6))
    clocked.refresh_from_db()
    assert effective_deadline(clocked) == START + 8 * DAY
    from games.clock import holiday_span

    start, end = holiday_span(mover.holidays.get(), mover.zone)
    assert start == dt.datetime(2026, 3, 3, 15, 0, tzinfo=dt.UTC)
    assert end == dt.datetime(2026, 3, 6, 15, 0, tzinfo=dt.UTC)
    board = game_now(seating(clocked, mover))["clock"]["deadline"]
    assert board == (START + 8 * DAY).isoformat()


@pytest.mark.django_db
def test_a_holiday_across_a_clock_change_lasts_its_local_days(players):
    from games.clock import holiday_span

    anna = players["anna"]
    anna.time_zone = "Europe/Berlin"  # summer time begins on 29 March 2026: a 23-hour day
    start, end = holiday_span(
        type("H", (), {"start": dt.date(2026, 3, 29), "end": dt.date(2026, 3, 29)})(), anna.zone
    )
    assert end - start == dt.timedelta(hours=23)


@pytest.mark.django_db
def test_in_advance_means_after_the_players_today(players):
    """At 20:00 UTC on 2 March it is already 3 March in Tokyo: a holiday from the 3rd
    is not in advance there, but is in London."""
    from shanghaien.lib.errors import BadRequest

    anna, bernd = players["anna"], players["bernd"]
    anna.time_zone = "Asia/Tokyo"
    now = dt.datetime(2026, 3, 2, 20, 0, tzinfo=dt.UTC)
    with pytest.raises(BadRequest):
        do_declare_holiday(anna, dt.date(2026, 3, 3), dt.date(2026, 3, 4), now=now)
    assert do_declare_holiday(bernd, dt.date(2026, 3, 3), dt.date(2026, 3, 4), now=now)


@pytest.mark.django_db
def test_opponents_see_a_holiday_on_the_board(clocked, players):
    mover = clocked.to_move
    other = next(u for u in players.values() if u.pk != mover.pk and u.username != "carl")
    do_declare_holiday(mover, dt.date(2026, 3, 10), dt.date(2026, 3, 12))
    clock = game_now(seating(clocked, other))["clock"]
    assert clock["away"]["opponent"] == [{"start": "2026-03-10", "end": "2026-03-12"}]
    assert clock["away"]["me"] == []


def holiday(client, start, end):
    return post(client, "/api/holidays/", {"start": start, "end": end})


@pytest.mark.django_db
def test_the_holiday_allowance_is_30_days_a_calendar_year(traveller, players, clients):
    anna = clients["anna"]
    ok = post(anna, "/api/holidays/", {"start": "2026-04-01", "end": "2026-04-20"})
    assert ok.status_code == 201 and ok.json()["days"] == 20
    too_many = post(anna, "/api/holidays/", {"start": "2026-06-01", "end": "2026-06-11"})
    assert too_many.status_code == 400 and too_many.json()["error"]["code"] == "holiday_allowance"
    assert holiday(anna, "2026-06-01", "2026-06-10").status_code == 201
    # Across New Year: the days count in the year they fall in.
    assert holiday(anna, "2026-12-31", "2027-01-29").status_code == 400
    assert holiday(anna, "2027-01-01", "2027-01-30").status_code == 201
    overlap = post(anna, "/api/holidays/", {"start": "2026-04-20", "end": "2026-04-21"})
    assert overlap.status_code == 409
    today = post(anna, "/api/holidays/", {"start": "2026-03-02", "end": "2026-03-03"})
    assert today.json()["error"]["code"] == "holiday_not_in_advance"
    assert post(anna, "/api/holidays/", {"start": "soon", "end": "2026-03-03"}).status_code == 400
    listed = anna.get("/api/holidays/").json()["holidays"]
    assert [h["days"] for h in listed] == [20, 10, 30]
    cancel = post(anna, f"/api/holidays/{listed[0]['id']}/cancel/")
    assert cancel.status_code == 200
    assert holiday(anna, "2026-07-01", "2026-07-20").status_code == 201
