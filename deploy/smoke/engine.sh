#!/usr/bin/env bash
# The smoke test's own Docker engine: a dockerd of its own (data, exec root, pid file and
# socket under SMOKE_ROOT), no bridge and no iptables rules, so that nothing it runs gets a
# network other than the host's loopback. Sourced by run.sh; usable alone to look around:
#   bash deploy/smoke/engine.sh start|stop
set -euo pipefail

SMOKE_ROOT=${SMOKE_ROOT:-/var/tmp/shanghaien-smoke}
ENGINE_SOCK="$SMOKE_ROOT/docker.sock"
ENGINE_PID="$SMOKE_ROOT/docker.pid"
ENGINE_LOG="$SMOKE_ROOT/dockerd.log"
export DOCKER_HOST="unix://$ENGINE_SOCK"

engine_start() {
    mkdir -p "$SMOKE_ROOT/data" "$SMOKE_ROOT/exec"
    if [ -S "$ENGINE_SOCK" ] && docker info >/dev/null 2>&1; then
        return 0  # left running by an earlier run that was interrupted: reuse it
    fi
    dockerd \
        --data-root "$SMOKE_ROOT/data" \
        --exec-root "$SMOKE_ROOT/exec" \
        --pidfile "$ENGINE_PID" \
        -H "$DOCKER_HOST" \
        --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
        >"$ENGINE_LOG" 2>&1 &
    local i
    for i in $(seq 1 60); do
        if docker info >/dev/null 2>&1; then
            return 0
        fi
        if ! kill -0 $! 2>/dev/null; then
            break
        fi
        sleep 0.5
    done
    return 1
}

engine_stop() {
    local pid
    [ -f "$ENGINE_PID" ] || return 0
    pid=$(cat "$ENGINE_PID")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 60); do
        if ! kill -0 "$pid" 2>/dev/null; then
            # the network namespace dockerd mounts for host networking stays mounted
            umount "$SMOKE_ROOT/exec/netns/default" 2>/dev/null || true
            return 0
        fi
        sleep 0.5
    done
    echo "dockerd ($pid) did not stop within 30 s" >&2
    return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
        start) engine_start && echo "DOCKER_HOST=$DOCKER_HOST" ;;
        stop) engine_stop ;;
        *) echo "usage: $0 start|stop" >&2; exit 2 ;;
    esac
fi
