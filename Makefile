# The two commands: `make run` and `make test`. Everything else is for developers.
PYTHON ?= python3
VENV ?= .venv
PY = $(VENV)/bin/python
PYTEST_ARGS ?=
PORT ?= 8000
# Daphne listens as in production (Dockerfile): a backlog and a handshake timeout that hold
# every board reconnecting at once after a restart.
DAPHNE_LISTEN = -e tcp:port=$(PORT):interface=127.0.0.1:backlog=4096 --websocket_connect_timeout 60
# `make run`'s worker looks for due emails and deadlines this often (seconds): a player
# on a developer's machine sees an invitation's email at once, not a minute later.
WORKER_INTERVAL ?= 3

# Installs come from the lock files in requirements/ alone (`make lock` writes them from
# pyproject.toml): every file checked against its hash, nothing but what is listed, and the
# one library published without a wheel (http-ece) built with the locked setuptools of
# build.txt instead of one fetched unchecked. The project itself is not installed:
# manage.py, Daphne and pytest import it from this folder.
PIP_INSTALL = $(PY) -m pip --disable-pip-version-check install --quiet \
	--require-hashes --no-deps --no-build-isolation
# What serving needs (make run), and that plus the tests' and developers' tools.
RUNTIME_STAMP = $(VENV)/.installed-runtime
TEST_STAMP = $(VENV)/.installed-test

.PHONY: install run test lint format lock messages bench bench-engine bench-load bench-bots bench-backlog bench-growth bench-sockets bench-streams bench-tournament-start clean

install: $(TEST_STAMP)

$(RUNTIME_STAMP): requirements/build.txt requirements/runtime.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements/build.txt
	$(PIP_INSTALL) -r requirements/runtime.txt
	touch $@

# test.txt holds runtime.txt's pins as they are (`make lock` keeps them so), so it
# installs everything `make run` needs as well.
$(TEST_STAMP): requirements/build.txt requirements/test.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -r requirements/build.txt
	$(PIP_INSTALL) -r requirements/test.txt
	touch $@ $(RUNTIME_STAMP)

# A developer's machine: debug on, so the development secret key is allowed; the emails'
# links point at this server (unless SITE_URL is set). The worker (deadlines, reminders,
# emails to the console) runs beside Daphne, which logs no access lines of its own
# (--verbosity 0: the site's access log does). Both run in the background of the recipe's
# shell, which waits for the server; such a shell starts them with SIGINT ignored, so
# Ctrl-C (the terminal signals the whole job) reaches them through the trap, as SIGTERM.
# So does a SIGTERM to make alone, which make passes on to this shell only. The shell
# ends once both have stopped.
run: export DJANGO_DEBUG ?= 1
run: export SITE_URL ?= http://127.0.0.1:$(PORT)
# the same server reached as localhost: its pages may open sockets too
run: export DJANGO_CSRF_TRUSTED_ORIGINS ?= http://localhost:$(PORT)
run: $(RUNTIME_STAMP)
	$(PY) manage.py migrate --noinput
	stop() { kill $$server $$worker 2>/dev/null; wait; exit $$1; }; \
	trap 'stop 130' INT; trap 'stop 143' TERM; \
	$(PY) manage.py run_worker --interval $(WORKER_INTERVAL) & worker=$$!; \
	$(VENV)/bin/daphne --verbosity 0 $(DAPHNE_LISTEN) shanghaien.asgi:application & \
	server=$$!; wait $$server; status=$$?; kill $$worker 2>/dev/null; wait; exit $$status

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Writes requirements/*.txt anew from pyproject.toml (uv, from test.txt), keeping every pin
# that still fits; LOCK_ARGS=--upgrade moves all to their newest, --upgrade-package NAME one.
LOCK_ARGS ?=
LOCK = $(VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command 'make lock' $(LOCK_ARGS)
lock: install
	$(PY) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
		| $(LOCK) - -o requirements/build.txt
	$(LOCK) pyproject.toml -c requirements/build.txt -o requirements/runtime.txt
	$(LOCK) pyproject.toml --extra test --extra dev -c requirements/build.txt \
		-c requirements/runtime.txt -o requirements/test.txt

# The translation catalogues: gathers every string of the code and templates into
# locale/{de,fr,it}/LC_MESSAGES/django.po (keeping what is translated) and compiles the
# .mo files that are committed beside them. Needs GNU gettext (apt-get install gettext).
messages: export DJANGO_DEBUG ?= 1
messages: install
	$(PY) manage.py makemessages --locale de --locale fr --locale it --no-location --no-obsolete \
		--ignore '.venv/*' --ignore 'tests/*' --ignore 'bench/*' --ignore 'staticfiles/*' --ignore 'node_modules/*'
	$(PY) manage.py compilemessages --ignore '.venv/*' --ignore 'node_modules/*'

bench: bench-engine bench-load

bench-engine: install
	$(PY) bench/engine_speed.py

# Needs PostgreSQL and Redis (../shared/services.sh starts them); BENCH_PG / BENCH_REDIS / BENCH_DB
# point elsewhere. About four minutes; it fails (exit 1) on any error or timeout of a move.
# Options go in LOAD_ARGS, e.g. make bench-load LOAD_ARGS="--processes 1 --idle 0".
LOAD_ARGS ?=
bench-load: install
	$(PY) bench/load.py $(LOAD_ARGS)

# What reading the worker's backlog costs (/metrics, /healthz) on a near-empty PostgreSQL
# database and on one with a site's history, with the EXPLAINs; BENCH_PG for another server.
bench-backlog: install
	$(PY) bench/backlog_reads.py

# What a 256-player tournament's start costs (the draw and all its first stage's games in
# one transaction), in three shapes, against the floor; BENCH_PG for another server.
bench-tournament-start: install
	$(PY) bench/tournament_start.py

# What every worker job and history page costs on a database with a site's history
# (200,000 finished games, built in SQL) against a near-empty one, A/A-paired, with the
# workers' and sockets' benchmarks when present; the targets passed or failed
# (docs/performance.md). Needs PostgreSQL (BENCH_PG); ~20 minutes. GROWTH_ARGS: e.g.
# "--only small", "--scale 0.1", "--skip-sockets --skip-workers".
GROWTH_ARGS ?=
bench-growth: install
	$(PY) bench/growth.py $(GROWTH_ARGS)

# What game sockets cost one Daphne process run as the image runs it: memory per idle
# socket, failed handshakes when every board reconnects at once, CPU per move beside idle
# sockets, full GC pauses. Needs PostgreSQL and Redis (BENCH_PG, BENCH_REDIS, BENCH_DB);
# a few minutes. Options in SOCKETS_ARGS, e.g. make bench-sockets SOCKETS_ARGS="--sockets 500".
SOCKETS_ARGS ?=
bench-sockets: install
	$(PY) bench/socket_load.py $(SOCKETS_ARGS)

# What open HTTP streams cost one Daphne process (docs/performance.md): 1,000 account
# streams by token, their memory, and the move path's CPU without and with them, beside
# the floor; PostgreSQL and Redis as bench-sockets. E.g. make bench-streams STREAMS_ARGS="--streams 200".
STREAMS_ARGS ?=
bench-streams: install
	$(PY) bench/stream_load.py $(STREAMS_ARGS)

# The bots' strength table (docs/bots.md): 1,000 games per pairing on every core, which
# takes a while; e.g. make bench-bots BOTS_ARGS="--games 200 --only captain".
bench-bots: install
	$(PY) bench/bot_strength.py $(BOTS_ARGS)

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .hypothesis *.egg-info

# docker-compose.yml brought up as shipped on a Docker engine of its own (images built from
# Debian's packages, host networking on loopback addresses), one whole game played through
# Caddy over HTTPS and WSS, everything stopped; fails on any step. As root; a few minutes
# (less once the images are cached under SMOKE_ROOT). docs/operations.md, "The compose
# smoke test".
.PHONY: smoke-compose
smoke-compose: install
	bash deploy/smoke/run.sh
