"""The project's settings with computer opponents that think ``SLOW_BOT_SECONDS`` before
each command, for a worker process that a test kills in the middle of a bot's turn."""

import os
import time

from games import bots
from shanghaien.settings import *  # noqa: F403

_choose = bots.choose


def _slow_choose(*args, **kwargs):
    time.sleep(float(os.environ.get("SLOW_BOT_SECONDS", "0")))
    return _choose(*args, **kwargs)


bots.choose = _slow_choose  # games.bot_turns looks it up at each command
