"""Settings of the Shanghaien server: one file, driven by the environment.

Environment variables (all optional; the defaults serve a developer's machine):

    DJANGO_DEBUG          1/0; default 0
    DJANGO_SECRET_KEY     required unless DJANGO_DEBUG=1 (the server refuses to start without
                          it); the test suite and DJANGO_DEBUG=1 use a fixed development key
    DJANGO_ALLOWED_HOSTS  comma-separated; default localhost,127.0.0.1,[::1]
    DJANGO_CSRF_TRUSTED_ORIGINS  comma-separated origins (https://example.org)
    DATABASE_URL          default sqlite:///<project>/db.sqlite3; postgres://… for PostgreSQL
    DATABASE_WAIT_SECONDS  PostgreSQL: the longest a request waits for a connection (2)
    DATABASE_CONNECT_SECONDS  PostgreSQL: a new connection gives up after this (2)
    REDIS_URL             unset: in-memory channel layer and cache; redis://… for
                          channels-redis and Django's Redis cache (rate limits)
    EMAIL_URL             unset: console backend; smtp://user:pass@host:587 (or smtp+tls://)
    DEFAULT_FROM_EMAIL    default Shanghaien <noreply@localhost>
    SITE_URL              default http://127.0.0.1:8000 (links in emails)
    DJANGO_STATIC_MANIFEST  1: hashed, compressed static files (needs collectstatic)
    DJANGO_LOG_LEVEL      default INFO
    DJANGO_LOG_FORMAT     "json" for one JSON object a line (production); default plain text
    DJANGO_HTTPS          1: the site is served over HTTPS (secure cookies, HSTS, redirect)
    DJANGO_BEHIND_PROXY   1: trust X-Forwarded-Proto and the proxy's X-Forwarded-For entry
    RATE_LIMIT_LOGIN_FAILED, RATE_LIMIT_LOGIN, RATE_LIMIT_SIGNUP, RATE_LIMIT_RESET_PASSWORD,
    RATE_LIMIT_CONFIRM_EMAIL   the accounts' rate limits (docs/operations.md, "Accounts")
    SOCKETS_PER_ACCOUNT   the websockets one account may hold open at once, over every
                          process (docs/protocol.md), its HTTP streams included; default 20
    STREAM_KEEPALIVE_SECONDS  how long an HTTP stream stays silent before an empty line
                          keeps it open (docs/api.md, "Streams"); default 20
    SOCKET_LEASE_SECONDS  how long an open socket's place outlives a server process killed
                          without closing it (renewed every third of it); default 45
    BOT_TICK_SECONDS      how often the worker looks for a computer opponent to move; default 1
    BOT_PAUSE_SECONDS     how long a computer opponent waits once its turn began; default 1
    BOT_ADMIRAL_BUDGET_MS how long the admiral (the strongest computer opponent) searches
                          for each of its commands, in milliseconds; default 250
    BOT_ACCOUNT_GAMES     the games a bot account may have under way at once, its open
                          invitations counted (docs/bots.md); default 10
    VAPID_PRIVATE_KEY     the push notifications' signing key (manage.py vapid_keys makes
                          one); unset: no push, except with the development key, from which
                          DJANGO_DEBUG=1 and the test suite derive one
    VAPID_OLD_PRIVATE_KEYS  comma-separated retired keys, still signing for the devices
                          subscribed with them until they subscribe again (docs/operations.md)
    VAPID_SUBJECT         how push services reach the operator; default mailto: of
                          DEFAULT_FROM_EMAIL's address
    PUSH_SERVICE_HOSTS    comma-separated host suffixes a push endpoint may have; default the
                          browsers' push services (Google, Mozilla, Apple, Microsoft)
    SENTRY_DSN            where errors are reported (Sentry or a service speaking its protocol);
                          unset: no error reporting
    SENTRY_ENVIRONMENT    the reports' environment; default production
    SENTRY_RELEASE        the reports' release; default the checkout's commit, if any
    METRICS_TOKEN         GET /metrics answers only to "Authorization: Bearer <it>"; unset: 404
    WORKER_METRICS_PORT   the worker serves its own /metrics on this port (needs METRICS_TOKEN);
                          unset: not served
    WORKER_METRICS_HOST   the address it listens on; default 0.0.0.0 (every interface)
    OUTBOX_LAG_LIMIT_SECONDS  /healthz answers 503 once the oldest due notification has
                          waited longer; default 600
"""

import sys
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)

# The key everyone can read in this file: for a developer's machine and the test suite only.
DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not (DEBUG or "pytest" in sys.modules):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Production (DJANGO_DEBUG=0, the default) needs a "
            'secret key of its own: python3 -c "import secrets; '
            'print(secrets.token_urlsafe(50))". For development set DJANGO_DEBUG=1.'
        )
    SECRET_KEY = DEV_SECRET_KEY

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "ninja",  # the JSON API's docs page: Swagger UI's files, served as static files
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "shanghaien.lib",
    "accounts",
    "games",
    "ratings",
    "moderation",
    "tournaments",
]

MIDDLEWARE = [
    "shanghaien.lib.middleware.BodyLimitMiddleware",
    # a view that cannot reach the database answers 503 (shanghaien.lib.outage)
    "shanghaien.lib.outage.DatabaseOutageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the cookie of the header's chooser, else the browser's
    # Accept-Language, else English; a player's own choice wins once they are known
    # (accounts.middleware.PlayerLocaleMiddleware, after authentication).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "accounts.middleware.PlayerLocaleMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.StaffSecondFactorMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "shanghaien.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.waiting_count",
                "games.context_processors.words",
                "games.context_processors.push_key",
                "accounts.notices.notices_shown",
            ],
        },
    },
]

ASGI_APPLICATION = "shanghaien.asgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
# Under ASGI every request may run in another thread: no connection belongs to a thread
# (CONN_MAX_AGE = 0). With PostgreSQL, "closing" one hands it back to a pool instead, so
# no request and no socket message opens a new database session.
DATABASES["default"]["CONN_MAX_AGE"] = 0
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The sockets' database work runs on a thread pool of this size (shanghaien.lib.sockets);
# the connection pool holds a connection for each of those threads and a few for pages.
DATABASE_THREADS = env.int("DATABASE_THREADS", default=8)
DATABASE_POOL_SIZE = env.int("DATABASE_POOL_SIZE", default=DATABASE_THREADS + 4)
DATABASE_WAIT_SECONDS = env.float("DATABASE_WAIT_SECONDS", default=2.0)
DATABASE_CONNECT_SECONDS = env.int("DATABASE_CONNECT_SECONDS", default=2)
if DATABASE_POOL_SIZE < DATABASE_THREADS:
    raise ImproperlyConfigured("DATABASE_POOL_SIZE is at least DATABASE_THREADS.")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # With CONN_HEALTH_CHECKS the pool checks each connection it hands out, so one lost
    # while idle (a database restart) is replaced rather than failing a request.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": DATABASE_POOL_SIZE,
        # Waiting longer than this for a connection is an error, answered 503 with
        # Retry-After (shanghaien.lib.outage): while the database is away a request
        # fails fast instead of waiting.
        "timeout": DATABASE_WAIT_SECONDS,
        # A connection lost to an outage is replaced by attempts that back off (1, 2, 4…
        # seconds apart); after this many seconds they stop, and the next request that
        # finds no connection starts again at once. psycopg_pool's default of 5 minutes
        # lets the attempts drift so far apart that the site stays down long after the
        # database is back (measured: 22 s after a 45 s outage, 26 s after 90 s); with
        # this, it serves again within about 2 s of the database's return.
        "reconnect_timeout": 5,
    }
    # A new connection gives up after this many seconds (a database host that does not
    # answer), and one whose packets go unacknowledged that long is dropped.
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", DATABASE_CONNECT_SECONDS)
    DATABASES["default"]["OPTIONS"].setdefault("tcp_user_timeout", DATABASE_CONNECT_SECONDS * 1000)
    DATABASES["default"]["OPTIONS"].setdefault("keepalives_idle", 30)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Sockets write from several threads at once. Writers take SQLite's lock when their
    # transaction begins (a read-then-write transaction would otherwise fail at once with
    # "database is locked" instead of waiting), wait up to 20 s for it, and WAL lets
    # readers go on beside a writer.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: each process subscribes to the groups of its own sockets and
            # hands every message to each of them, with no capacity to overflow (the core
            # layer drops a group message past 100 waiting per process, logged at INFO).
            # It delivers to live subscribers only: a socket that reconnects resyncs.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # redis-py's own timeouts stay: the layer polls its subscriptions with a
                # 0.1 s timeout of its own, so an idle socket stays open
                # (tests/realtime/test_idle_socket.py), and a Redis that hangs makes a
                # publish fail and be logged rather than wait forever.
                "hosts": [REDIS_URL],
                # Pub/sub channels belong to the whole Redis server, not to one of its
                # numbered databases: the database number in the prefix keeps sites (and
                # test runs) that share a server on different databases apart.
                "prefix": f"asgi.{env.url('REDIS_URL').path.strip('/') or '0'}.",
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Rate limits (shanghaien.lib.ratelimit) count in the cache: Redis when there is one, so
# that every process shares the counters; this process's memory otherwise.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "shanghaien",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Request bodies: the JSON API takes at most 16 KiB (games.api.MAX_BODY); forms, the admin
# included, far less than this. A larger body is answered 413 before anything reads it.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024

AUTH_USER_MODEL = "accounts.User"
# Suspended players can neither log in nor keep using a session. The backend is
# django-allauth's (log in with the username or the email address).
AUTHENTICATION_BACKENDS = ["accounts.backends.SuspensionAwareBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# -- accounts: django-allauth (docs/operations.md, "Accounts") ---------------------------
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"login": "accounts.forms.LoginForm", "signup": "accounts.forms.SignupForm"}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
# Signing up answers "we sent you a link" whether the address is new or already has an
# account; the owner of a taken address is told by email instead (allauth hides a taken
# address at sign-up only with mandatory confirmation). The new player comes in by the
# link (in the browser that signed up) or by logging in: confirmation is mandatory for
# the sign-up's own log in only (accounts.adapter.SignupConfirmationStage), so a player
# may still play before confirming and no older account is shut out. No email of ours
# goes to an address that is not confirmed (games.notify.preferences.wants). One address an account,
# unique whatever its case; a new one replaces the old only once it is confirmed.
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 7
ACCOUNT_CONFIRM_EMAIL_ON_GET = False  # a link scanner opening the link confirms nothing
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True  # only in the session that signed up or logged in
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_PREVENT_ENUMERATION = True
# A password reset asked for an address nobody has sends nothing: the site mails no
# stranger. A changed password or address is told to the player by email.
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Shanghaien] "
# Each value is a comma-separated list of rates "<count>/<period>/<per>": per "ip", per
# "key" (the account or email address tried) or per "user"; periods in s, m, h or d. They
# count in the cache above, shared by every process with REDIS_URL. A refused attempt is
# answered 429 with when to try again (accounts.views, shanghaien.urls.handler429).
ACCOUNT_RATE_LIMITS = {
    # wrong passwords: per client address, and per account tried from anywhere
    "login_failed": env.str("RATE_LIMIT_LOGIN_FAILED", default="10/m/ip,5/5m/key"),
    "login": env.str("RATE_LIMIT_LOGIN", default="30/m/ip"),
    "signup": env.str("RATE_LIMIT_SIGNUP", default="5/10m/ip,20/d/ip"),
    "reset_password": env.str("RATE_LIMIT_RESET_PASSWORD", default="10/h/ip,3/h/key"),
    "reset_password_from_key": "20/m/ip",
    "confirm_email": env.str("RATE_LIMIT_CONFIRM_EMAIL", default="1/3m/key,10/d/key"),
    "manage_email": "10/m/user",
    "change_password": "5/m/user",
    "reauthenticate": "10/m/user",
}
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "Shanghaien"

LANGUAGE_CODE = "en"
# The languages of the rulebook; each name in its own language, for the chooser.
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language chooser's cookie lasts a year; a player's choice is kept on their account.
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
# Stored and computed in UTC; each player sees their own zone (User.time_zone).
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_MANIFEST = env.bool("DJANGO_STATIC_MANIFEST", default=False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Production collects hashed files into STATIC_ROOT; without them, whitenoise serves
# straight from static/.
STATIC_ROOT = BASE_DIR / "staticfiles" if STATIC_MANIFEST else None
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
if EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend":  # noqa: F821
    # Django's, each email under a framed summary with its links (make run's console)
    EMAIL_BACKEND = "shanghaien.lib.console_mail.EmailBackend"
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Shanghaien <noreply@localhost>")
# Where the site lives, for links in emails.
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

# Web push (shanghaien/lib/webpush.py). The server posts only to endpoints of these push
# services, over https; with DJANGO_DEBUG=1 (and in the tests) also to http://127.0.0.1
# and http://localhost, where a test's own push service listens.
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")
VAPID_OLD_PRIVATE_KEYS = env.list("VAPID_OLD_PRIVATE_KEYS", default=[])
VAPID_SUBJECT = env.str("VAPID_SUBJECT", default="")
PUSH_SERVICE_HOSTS = env.list(
    "PUSH_SERVICE_HOSTS",
    default=[
        "fcm.googleapis.com",  # Chrome, Edge on Android, Samsung Internet, Opera
        "push.services.mozilla.com",  # Firefox
        "push.apple.com",  # Safari, and apps on the home screen of an iPhone or iPad
        "notify.windows.com",  # Edge on Windows
    ],
)
PUSH_ALLOW_LOCAL_ENDPOINTS = DEBUG
# The scheme of the links in allauth's emails (confirmation, password reset).
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SITE_URL.startswith("https:") else "http"

# The websockets one account may hold open at once (shanghaien/lib/sockets.py, read at
# each handshake).
SOCKETS_PER_ACCOUNT = env.int("SOCKETS_PER_ACCOUNT", default=20)
# How long a socket's place outlives the process that holds it, in seconds (renewed every
# third of it): a killed server's players go offline within it (accounts.online).
SOCKET_LEASE_SECONDS = env.int("SOCKET_LEASE_SECONDS", default=45)
# How long an HTTP stream (games/live/streams.py) stays silent before an empty line keeps
# it open through proxies and tells its client the connection lives, in seconds.
STREAM_KEEPALIVE_SECONDS = env.float("STREAM_KEEPALIVE_SECONDS", default=20.0)

# The computer opponents' pace, in seconds (games/bot_turns.py, read at each use).
BOT_TICK_SECONDS = env.float("BOT_TICK_SECONDS", default=1.0)
BOT_PAUSE_SECONDS = env.float("BOT_PAUSE_SECONDS", default=1.0)
# How long the admiral searches for one command, in milliseconds (games/bot_turns.py).
BOT_ADMIRAL_BUDGET_MS = env.float("BOT_ADMIRAL_BUDGET_MS", default=250.0)
# The games a bot account (a person's program) may have under way at once, its open
# invitations counted (games.services.limits.bot_account_games).
BOT_ACCOUNT_GAMES = env.int("BOT_ACCOUNT_GAMES", default=10)

LOG_FORMAT = env.str("DJANGO_LOG_FORMAT", default="plain")
LOG_LEVEL = env.str("DJANGO_LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
    },
    # Django's request lines are written without the query string or a secret in the path
    # (shanghaien.lib.routes.RequestShown), as the access log is.
    "filters": {"request_shown": {"()": "shanghaien.lib.routes.RequestShown"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_shown"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # The channel layer's warnings and errors (a lost Redis connection, a dropped message)
    # are shown whatever DJANGO_LOG_LEVEL says; a lower level shows its INFO and DEBUG too.
    "loggers": {
        "channels_redis": {
            "level": "WARNING" if LOG_LEVEL in ("ERROR", "CRITICAL") else LOG_LEVEL,
        },
    },
}

# -- metrics and error reporting (docs/operations.md, "Metrics and error reporting") -----
# Errors go to Sentry only with a DSN (shanghaien/lib/error_reports.py: no local variables,
# no request bodies, no personal data, so no deck order or seed can leave).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
SENTRY_ENVIRONMENT = env.str("SENTRY_ENVIRONMENT", default="")
SENTRY_RELEASE = env.str("SENTRY_RELEASE", default="")
if SENTRY_DSN:
    from shanghaien.lib import error_reports

    error_reports.init(SENTRY_DSN, SENTRY_ENVIRONMENT, SENTRY_RELEASE)
# Prometheus' page, /metrics, shown only with this bearer token (absent without one).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# empty, as .env.example leaves it, is unset
WORKER_METRICS_PORT = int(env.str("WORKER_METRICS_PORT", default="") or 0)
WORKER_METRICS_HOST = env.str("WORKER_METRICS_HOST", default="0.0.0.0")
if WORKER_METRICS_PORT and not METRICS_TOKEN:
    raise ImproperlyConfigured("WORKER_METRICS_PORT needs METRICS_TOKEN to guard the page.")
# The outbox's lag (how long the oldest due email or push has waited) past which /healthz
# says failing: ten of the worker's minutes, so a burst (the daily digests) is not an
# outage, while a worker that beats but sends nothing is named well before its players
# give up on their emails. A row waiting for its retry is not late (docs/operations.md).
OUTBOX_LAG_LIMIT_SECONDS = env.float("OUTBOX_LAG_LIMIT_SECONDS", default=600.0)

# -- production hardening ----------------------------------------------------------------
HTTPS = env.bool("DJANGO_HTTPS", default=False)
if env.bool("DJANGO_BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    USE_X_FORWARDED_HOST = True
    # The accounts' rate limits per client address take it from the proxy's own entry
    # of X-Forwarded-For, not from the proxy's address (the same for every client).
    ALLAUTH_TRUSTED_PROXY_COUNT = 1
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

# Content Security Policy: everything from this site only, websockets to it included.
# The board needs no inline script or style (its JSON sits in a non-executable block).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        # 'self' covers ws:// and wss:// to this same host (CSP level 3), and only those
        "connect-src": ["'self'"],
        # the web app manifest and the service worker (/sw.js), from this site only
        "manifest-src": ["'self'"],
        "worker-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "object-src": ["'none'"],
    }
}
