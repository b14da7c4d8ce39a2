# The two commands: `make run` and `make test`. Everything else is for developers.
PYTHON ?= python3
VENV ?= .venv
PY = $(VENV)/bin/python
STAMP = $(VENV)/.installed
PYTEST_ARGS ?=
PORT ?= 8000
# `make run`'s worker looks for due emails and deadlines this often (seconds): a player
# on a developer's machine sees an invitation's email at once, not a minute later.
WORKER_INTERVAL ?= 3

.PHONY: install run test lint format messages bench bench-engine bench-load bench-bots clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# A developer's machine: debug on, so the development secret key is allowed. The worker
# (deadlines, reminders, emails to the console) runs beside the server and stops with it.
run: export DJANGO_DEBUG ?= 1
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py run_worker --interval $(WORKER_INTERVAL) & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(VENV)/bin/daphne -b 127.0.0.1 -p $(PORT) shanghaien.asgi:application

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

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
	$(PY) bench/engine.py

# Needs PostgreSQL and Redis (../shared/services.sh starts them); BENCH_PG / BENCH_REDIS
# point elsewhere. About four minutes; it fails (exit 1) on any error or timeout of a move.
# Options go in LOAD_ARGS, e.g. make bench-load LOAD_ARGS="--processes 1 --idle 0".
LOAD_ARGS ?=
bench-load: install
	$(PY) bench/load.py $(LOAD_ARGS)

# The bots' strength table (docs/bots.md): 1,000 games per pairing on every core, which
# takes a while; e.g. make bench-bots BOTS_ARGS="--games 200 --only captain".
bench-bots: install
	$(PY) bench/bots.py $(BOTS_ARGS)

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
