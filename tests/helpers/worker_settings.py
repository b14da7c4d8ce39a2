"""The project's settings with the slow email backend (tests/helpers/slow_mail.py), for a
worker process started by a test."""

from shanghaien.settings import *  # noqa: F403

EMAIL_BACKEND = "tests.helpers.slow_mail.SlowBackend"
