#!/usr/bin/env bash
# `make smoke-compose`: docker-compose.yml brought up as shipped on a Docker engine of the
# test's own, one whole game played through Caddy over HTTPS and WSS, everything stopped.
# Fails (non-zero, saying which step) on anything that goes wrong; skips (exit 0) only
# where dockerd cannot start at all. Runs as root. What it proves and does not prove:
# docs/operations.md, "The compose smoke test".
#
# Knobs: SMOKE_ROOT (the engine's data, kept between runs as a cache; default
# /var/tmp/shanghaien-smoke), SMOKE_UP_TIMEOUT (seconds for every service to be healthy;
# default 300), SMOKE_LOGS=warn (only warn when web or worker log a line that is not
# JSON), PY (the Python with the project's test tools; default .venv/bin/python).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT=$(cd "$HERE/../.." && pwd)
PY=${PY:-$PROJECT/.venv/bin/python}
UP_TIMEOUT=${SMOKE_UP_TIMEOUT:-300}
PROJECT_NAME=shanghaiensmoke
BASE=shanghaien-smoke/debian:bookworm
STARTED=$(date +%s)

# shellcheck source=engine.sh
source "$HERE/engine.sh"
WORK="$SMOKE_ROOT/work"

step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - STARTED))"; }
fail() {
    printf '\nsmoke-compose: FAILED: %s\n' "$*" >&2
    exit 1
}

compose() {
    "${COMPOSE[@]}" -p "$PROJECT_NAME" --project-directory "$WORK/app" \
        -f "$WORK/docker-compose.smoke.yml" "$@"
}

container() { compose ps -q "$1"; }

state() { # status, health and exit code of a service's container
    docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}} {{.State.ExitCode}}' "$(container "$1")"
}

SERVICES=()
UP=0
cleanup() {
    local code=$?
    set +e
    if [ "$code" != 0 ] && [ "$UP" = 1 ]; then
        echo "---- docker-compose ps" >&2
        compose ps >&2
        echo "---- logs (last 60 lines of each service)" >&2
        compose logs --no-color --tail 60 >&2
        for service in "${SERVICES[@]}"; do
            id=$(container "$service")
            [ -n "$id" ] || continue
            if [ "$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id")" = unhealthy ]; then
                echo "---- $service: the last healthcheck said" >&2
                docker inspect -f '{{json .State.Health.Log}}' "$id" |
                    "$PY" -c 'import json, sys; print(json.load(sys.stdin)[-1]["Output"].strip()[-1500:])' >&2
            fi
        done
    fi
    if [ "$UP" = 1 ]; then
        compose down --volumes --timeout 20 >/dev/null 2>&1
    fi
    docker image prune -f >/dev/null 2>&1 # the images that a rebuild left untagged
    engine_stop
    exit "$code"
}

# -- the tools ------------------------------------------------------------------------
step "tools"
if [ "$(id -u)" != 0 ]; then
    echo "smoke-compose: SKIPPED: dockerd cannot start here: it needs root (uid $(id -u))"
    exit 0
fi
missing=()
for tool in dockerd:docker.io docker:docker.io docker-compose:docker-compose \
    debootstrap:debootstrap; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        $(printf '%s\n' "${missing[@]}" | sort -u) >/dev/null ||
        fail "apt-get could not install ${missing[*]}"
fi
if command -v docker-compose >/dev/null; then
    COMPOSE=(docker-compose)
else
    COMPOSE=(docker compose)
fi
"$PY" -c "import websockets, yaml" 2>/dev/null ||
    fail "$PY lacks websockets or yaml: run make install first"
[ -f "$PROJECT/requirements/runtime.txt" ] ||
    fail "requirements/runtime.txt is missing: the image installs from that lock file"
echo "$(dockerd --version); $("${COMPOSE[@]}" version | head -1)"

# -- the engine -----------------------------------------------------------------------
step "a Docker engine of the test's own under $SMOKE_ROOT (no bridge, no iptables)"
# One run at a time on a machine: the loopback addresses and ports are the machine's.
exec 9>/tmp/shanghaien-smoke.lock
if ! flock -n 9; then
    echo "another smoke test runs on this machine: waiting for it (15 minutes at most)"
    flock -w 900 9 || fail "another smoke test held the machine for 15 minutes"
fi
trap cleanup EXIT
if ! engine_start; then
    echo "smoke-compose: SKIPPED: dockerd cannot start here; its log:"
    tail -n 15 "$ENGINE_LOG" | sed 's/^/    /'
    engine_stop || true
    trap - EXIT
    exit 0
fi
# a run that was interrupted may have left its containers and volumes
compose_leftovers=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT_NAME")
if [ -n "$compose_leftovers" ]; then
    docker rm -f $compose_leftovers >/dev/null
fi
docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT_NAME" |
    xargs -r docker volume rm >/dev/null
networks=$(docker network ls --format '{{.Driver}}' | sort -u | tr '\n' ' ')
[ "$networks" = "host null " ] || fail "the engine has networks beyond host and none: $networks"

# -- the base images, from Debian's packages ------------------------------------------
step "base images (Debian bookworm, debootstrap; cached in the engine)"
# The machine's own extra CA certificates go into the base image: its package registries
# may be reached through them (the build's pip needs them as the host's does).
cas=$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null | sha256sum | cut -c1-16)
if [ "$(docker image inspect -f '{{index .Config.Labels "smoke.cas"}}' "$BASE" 2>/dev/null)" != "$cas" ]; then
    rootfs="$SMOKE_ROOT/rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" \
        http://deb.debian.org/debian >"$SMOKE_ROOT/debootstrap.log" 2>&1 ||
        fail "debootstrap failed; see $SMOKE_ROOT/debootstrap.log"
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
    chroot "$rootfs" update-ca-certificates >/dev/null 2>&1
    printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d" # no service starts at install
    chmod +x "$rootfs/usr/sbin/policy-rc.d"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | docker import \
        -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c "LABEL smoke.cas=$cas" -c 'CMD ["bash"]' - "$BASE" >/dev/null
    rm -rf "$rootfs"
fi
# Tagged with the official names inside this engine only (it is private to the test), so
# the Dockerfile's FROM and the compose file's images resolve to them; postgres keeps a
# name of its own, as Debian bookworm has PostgreSQL 15, not 16.
for image in python:python:3.11-slim redis:redis:7 caddy:caddy:2 \
    postgres:shanghaien-smoke/postgres:15; do
    dir=${image%%:*} tag=${image#*:}
    docker build --network host -t "$tag" "$HERE/images/$dir" >"$SMOKE_ROOT/build-$dir.log" 2>&1 ||
        fail "the look-alike of $tag did not build; see $SMOKE_ROOT/build-$dir.log"
    echo "$tag: $(docker run --rm --network host --entrypoint sh "$tag" -c \
        "python --version 2>/dev/null || redis-server --version 2>/dev/null || caddy version 2>/dev/null || postgres --version" | head -1)"
done

# -- the project, a throwaway .env and the compose file -------------------------------
step "the project as it is, a throwaway .env, the compose file with its addresses"
rm -rf "$WORK"
mkdir -p "$WORK/app"
tar -C "$PROJECT" --exclude=./.venv --exclude=./.git --exclude=./node_modules \
    --exclude=./.env --exclude=./staticfiles --exclude='./db.sqlite3*' -cf - . |
    tar -C "$WORK/app" -xf -
SITE=localhost
"$PY" - "$PROJECT/.env.example" "$WORK/app/.env" "$SITE" <<'EOF'
"""The test's .env: every name of .env.example, with random secrets, the site at SITE,
console emails, and no address outside this machine."""
import secrets, sys

example, target, site = sys.argv[1:]
values = {
    "POSTGRES_PASSWORD": secrets.token_urlsafe(24),
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DJANGO_ALLOWED_HOSTS": site,
    "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{site}",
    "SITE_ADDRESS": site,
    "SITE_URL": f"https://{site}",
    "EMAIL_URL": "consolemail://",
    "DEFAULT_FROM_EMAIL": f"Shanghaien <noreply@{site}>",
    "VAPID_SUBJECT": f"mailto:admin@{site}",
    "METRICS_TOKEN": secrets.token_urlsafe(32),
    "WORKER_METRICS_PORT": "9100",
}
lines = []
for line in open(example).read().splitlines():
    if not line or line.startswith("#"):
        continue
    name, _, value = line.partition("=")
    if name not in values and ("://" in value or "@" in value):
        print(f".env: {name} left empty (its example points outside this machine)")
        value = ""
    lines.append(f"{name}={values.pop(name, value)}")
lines += [f"{name}={value}" for name, value in values.items() if "METRICS" in name]
open(target, "w").write("\n".join(lines) + "\n")
EOF
"$PY" "$HERE/override.py" "$WORK/app" "$WORK" || fail "could not write the compose file"
mapfile -t SERVICES < <(compose config --services)
# the services that others wait for with service_completed_successfully: they end, with 0
COMPLETES=" $("$PY" -c 'import sys, yaml
services = yaml.safe_load(open(sys.argv[1]))["services"]
print(" ".join(sorted({name for s in services.values() for name, dep in (s.get("depends_on") or {}).items()
    if isinstance(dep, dict) and dep.get("condition") == "service_completed_successfully"})))' "$WORK/docker-compose.smoke.yml") "
echo "services: ${SERVICES[*]} (ending once done:${COMPLETES% })"
"$PY" -c 'import json, sys; print("addresses:", ", ".join(f"{k} {v}" for k, v in json.load(open(sys.argv[1])).items()))' "$WORK/addresses.json"
address() { "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/addresses.json" "$1"; }
PROXY_ADDRESS=$(address proxy)

# -- build and up ---------------------------------------------------------------------
step "building the application image (requirements/runtime.txt, --network host)"
compose build >"$WORK/build.log" 2>&1 || {
    tail -n 40 "$WORK/build.log" >&2
    fail "the image did not build"
}
grep -E '^(Successfully built|[0-9]+ static files)' "$WORK/build.log" | sort -u

step "docker-compose up -d"
UP=1
if ! compose up -d 2>&1 | grep -v '^$'; then
    failing=()
    for service in "${SERVICES[@]}"; do
        if [ -z "$(container "$service")" ]; then
            failing+=("$service not started")
            continue
        fi
        read -r status health code <<<"$(state "$service")"
        [ "$status/$health" = running/healthy ] || [ "$status/$code" = exited/0 ] ||
            failing+=("$service $status ($health, exit code $code)")
    done
    fail "docker-compose up failed: $(printf '%s; ' "${failing[@]}")"
fi
deadline=$(($(date +%s) + UP_TIMEOUT))
while :; do
    pending=()
    for service in "${SERVICES[@]}"; do
        read -r status health code <<<"$(state "$service")"
        if [[ "$COMPLETES" == *" $service "* ]]; then
            case "$status/$code" in
            exited/0) continue ;;
            exited/*) fail "$service ended with exit code $code" ;;
            esac
        fi
        case "$status/$health/$code" in
        running/healthy/*) ;;
        exited/*) fail "$service exited with $code before everything was up" ;;
        restarting/*) fail "$service is restarting (exit code $code)" ;;
        */unhealthy/*) fail "$service is unhealthy" ;;
        *) pending+=("$service:$status/$health") ;;
        esac
    done
    [ "${#pending[@]}" = 0 ] && break
    [ "$(date +%s)" -lt "$deadline" ] ||
        fail "not healthy within ${UP_TIMEOUT} s: ${pending[*]}"
    sleep 2
done
compose ps

# -- one game through the proxy -------------------------------------------------------
step "one whole game through Caddy at $PROXY_ADDRESS over HTTPS and WSS"
docker cp "$(container proxy):/data/caddy/pki/authorities/local/root.crt" "$WORK/root.crt" ||
    fail "Caddy's root certificate is not in the caddy_data volume"
"$PY" "$HERE/play.py" --site "$SITE" --address "$PROXY_ADDRESS" --ca "$WORK/root.crt" \
    --admin "$PROXY_ADDRESS:2019" --out "$WORK/game.json" \
    --metrics-token "$(sed -n 's/^METRICS_TOKEN=//p' "$WORK/app/.env")" \
    --metrics "web1=$(address web1):8000" --metrics "web2=$(address web2):8000" \
    --metrics "worker=127.0.0.1:$(sed -n 's/^WORKER_METRICS_PORT=//p' "$WORK/app/.env")" ||
    fail "the game through the proxy"

# -- a rolling upgrade (docs/operations.md, "Upgrading") while a client keeps asking --
step "rolling upgrade: migrate, then each web process, then the worker, while a client asks"
rm -f "$WORK/poll.stop"
"$PY" "$HERE/play.py" --site "$SITE" --address "$PROXY_ADDRESS" --ca "$WORK/root.crt" \
    --admin "$PROXY_ADDRESS:2019" --out "$WORK/poll.json" --poll-until "$WORK/poll.stop" &
POLLER=$!
wait_healthy() {
    local deadline=$(($(date +%s) + 120))
    until [ "$(state "$1" | cut -d' ' -f1-2)" = "running healthy" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "$1 not healthy again within 120 s"
        sleep 1
    done
}
compose run --rm migrate >"$WORK/migrate-again.log" 2>&1 || {
    tail -n 20 "$WORK/migrate-again.log" >&2
    fail "migrate did not run again over the existing volume"
}
echo "migrate ran again (static files copied over the existing volume)"
for service in "${SERVICES[@]}"; do
    [[ "$service" =~ ^web[0-9]+$ ]] || continue
    t0=$(date +%s)
    # --force-recreate: the image is the same here; a new image recreates it by itself
    compose up -d --no-deps --force-recreate "$service" 2>&1 | grep -v '^$'
    wait_healthy "$service"
    echo "$service recreated and healthy again in $(($(date +%s) - t0)) s"
done
compose up -d --no-deps --force-recreate worker 2>&1 | grep -v '^$'
[ "$(state worker | cut -d' ' -f1)" = running ] || fail "the worker did not start again"
sleep 2
touch "$WORK/poll.stop"
wait "$POLLER" || fail "the site did not answer every request during the rolling upgrade"
"$PY" -c 'import json, sys; print("answers through the proxy meanwhile:", json.load(open(sys.argv[1]))["answers"])' "$WORK/poll.json"

# -- stop, one service after the other, each timed ------------------------------------
step "stopping each service (proxy first, the database last)"
ORDER=(proxy)
for service in "${SERVICES[@]}"; do
    case "$service" in proxy | db | redis) ;; *) ORDER+=("$service") ;; esac
done
ORDER+=(redis db)
declare -A BEFORE STOP CODE
for service in "${SERVICES[@]}"; do
    read -r status health code <<<"$(state "$service")"
    case "$status/$health" in
    exited/*) BEFORE[$service]="exited $code" ;;
    */-) BEFORE[$service]=$status ;;
    *) BEFORE[$service]="$status ($health)" ;;
    esac
done
problems=()
for service in "${ORDER[@]}"; do
    id=$(container "$service")
    grace=$(docker inspect -f '{{.Config.StopTimeout}}' "$id")
    [[ "$grace" =~ ^[0-9]+$ ]] || grace=10 # compose's default
    t0=$(date +%s%N)
    compose stop "$service" >/dev/null 2>&1
    ms=$((($(date +%s%N) - t0) / 1000000))
    STOP[$service]=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))
    read -r status health code <<<"$(state "$service")"
    CODE[$service]=$code
    if [ "$code" = 137 ] || [ "$(docker inspect -f '{{.State.OOMKilled}}' "$id")" = true ]; then
        problems+=("$service was killed (exit code 137)")
    elif [ "$ms" -ge $((grace * 1000)) ]; then
        problems+=("$service took ${STOP[$service]} s to stop (grace $grace s)")
    elif [ "$status" != exited ]; then
        problems+=("$service is $status after docker-compose stop")
    elif [ "$code" != 0 ] && [ "$code" != 143 ]; then
        problems+=("$service stopped with exit code $code")
    fi
done

# -- every line the application logged is JSON (DJANGO_LOG_FORMAT=json) ---------------
for service in "${SERVICES[@]}"; do
    [[ "$service" =~ ^(web[0-9]+|worker)$ ]] || continue
    plain=$(docker logs "$(container "$service")" 2>&1 | "$PY" -c '
import json, sys
bad = []
for line in sys.stdin:
    try:
        ok = isinstance(json.loads(line), dict)
    except ValueError:
        ok = False
    if not ok and line.strip():
        bad.append(line.strip())
if bad:
    print(f"{len(bad)} lines, e.g. {bad[0][:120]!r}")')
    if [ -n "$plain" ]; then
        if [ "${SMOKE_LOGS:-strict}" = warn ]; then
            echo "WARNING: $service logged lines that are not JSON: $plain"
        else
            problems+=("$service logged lines that are not JSON: $plain")
        fi
    fi
done

# -- the summary ----------------------------------------------------------------------
step "summary"
printf '%-8s %-20s %-10s %s\n' service "before the stop" "stop (s)" "exit code"
for service in "${SERVICES[@]}"; do
    printf '%-8s %-20s %-10s %s\n' "$service" "${BEFORE[$service]}" "${STOP[$service]:--}" \
        "${CODE[$service]}$([ "${CODE[$service]}" = 143 ] && echo ' (ended by the SIGTERM the stop sent)')"
done
"$PY" - "$WORK/game.json" <<'EOF'
import json, sys

game = json.load(open(sys.argv[1]))
result = game["result"]
print(
    f"game {game['game']}: {game['moves']} moves in {game['seconds']} s, {game['outcome']} "
    f"({game['players'][0]} {result['me']['total']} : {result['opponent']['total']} "
    f"{game['players'][1]}, {result['reason']}); sockets per upstream: {game['sockets']}"
)
print(f"through the proxy also: /metrics {game['metrics']}, {game['static']} from Caddy, "
      f"plain HTTP {game['http']} to https")
EOF
[ "${#problems[@]}" = 0 ] || fail "$(printf '%s; ' "${problems[@]}")"
echo "smoke-compose: PASSED in $(($(date +%s) - STARTED)) s"
