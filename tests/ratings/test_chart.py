"""The rating history chart: one point per rated game, scaled into the box."""

from ratings.chart import HEIGHT, PAD, PAD_LEFT, WIDTH, rating_chart


def test_no_history_no_chart():
    assert rating_chart([]) is None


def test_one_point_per_rating_highest_at_the_top_lowest_at_the_bottom():
    chart = rating_chart([1500.0, 1662.3, 1433.9, 1551.2])
    pairs = chart.points.split()
    assert len(pairs) == 4
    xs = [float(p.split(",")[0]) for p in pairs]
    ys = [float(p.split(",")[1]) for p in pairs]
    assert xs[0] == PAD_LEFT and xs[-1] == WIDTH - PAD and xs == sorted(xs)
    assert ys[1] == PAD and ys[2] == HEIGHT - PAD  # the highest at the top (SVG y grows down)
    assert ys[0] > ys[3]  # 1500 is lower than 1551
    assert (chart.low, chart.high, chart.first, chart.last) == (1434, 1662, 1500, 1551)
    assert (chart.high_y, chart.low_y) == (PAD, HEIGHT - PAD)


def test_a_single_game_or_a_flat_history_is_drawn_across_the_middle():
    one = rating_chart([1662.3])
    assert one.points == f"{(PAD_LEFT + WIDTH - PAD) / 2:g},{HEIGHT / 2:g}"
    flat = rating_chart([1500.0, 1500.0, 1500.0])
    assert {p.split(",")[1] for p in flat.points.split()} == {f"{HEIGHT / 2:g}"}
