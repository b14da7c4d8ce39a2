"""The site's settings with one page more, which fails (urls_that_fail.py): for a server
that a test starts to see what an error report holds."""

from shanghaien.settings import *  # noqa: F403

ROOT_URLCONF = "tests.observability.urls_that_fail"
