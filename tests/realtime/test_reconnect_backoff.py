"""The clients' reconnect schedule (static/js/backoff.js), run by Node as the browser runs it."""

import json
import shutil
import subprocess

import pytest

from ..daphne import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js not found: no JavaScript engine")

# The module as the browser loads it (it imports nothing), from a data: URL so that Node
# takes it for an ES module whatever package.json says.
RUN = """
const source = require("fs").readFileSync(process.argv[1], "utf8");
import("data:text/javascript," + encodeURIComponent(source)).then((m) => {
  const out = {};
  const top = new m.Backoff({ random: () => 0.999999 });
  out.top = Array.from({ length: 10 }, () => top.next());
  top.reset();
  out.afterReset = top.next();
  const bottom = new m.Backoff({ random: () => 0 });
  out.bottom = Array.from({ length: 3 }, () => bottom.next());
  const spread = Array.from({ length: 2000 }, () => {
    const b = new m.Backoff();
    for (let i = 0; i < 4; i++) b.next();
    return b.next(); // the fifth attempt: under 16 x the base
  });
  out.spread = [Math.min(...spread), Math.max(...spread), new Set(spread).size];
  out.constants = [m.BASE_MS, m.CAP_MS, m.STABLE_MS];
  console.log(JSON.stringify(out));
});
"""


def schedule() -> dict:
    done = subprocess.run(
        [NODE, "-e", RUN, str(ROOT / "static" / "js" / "backoff.js")],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_bound_doubles_from_the_base_up_to_the_cap_and_starts_afresh_on_reset():
    out = schedule()
    base, cap, stable = out["constants"]
    assert (base, cap) == (500, 30000) and stable >= 5000
    # the longest waits: just under 0.5, 1, 2, 4, 8, 16 s, then 30 s at most, forever
    assert out["top"] == [499, 999, 1999, 3999, 7999, 15999, 29999, 29999, 29999, 29999]
    assert out["afterReset"] == 499


def test_the_wait_is_anywhere_from_nothing_to_the_bound():
    out = schedule()
    assert out["bottom"] == [0, 0, 0]  # full jitter: an attempt may come at once
    low, high, distinct = out["spread"]
    # 2,000 clients on their fifth attempt spread over the whole of 0 … 8 s, not bunched
    assert low < 400 and 7600 < high < 8000 and distinct > 1000
