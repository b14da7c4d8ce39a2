"""The deployment's health probes, run exactly as docker-compose.yml, the Dockerfile and the
Caddyfile run them, answer 200 from a real Daphne started with the web service's own command
under the production settings compose gives it (only the port differs: the probe's 8000
becomes a free one). The probe compose used to run answers 400 there."""

import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from .daphne import free_port
from .helpers.processes import stop

ROOT = Path(__file__).resolve().parents[1]
PROBED = "http://127.0.0.1:8000/"
# What docker-compose.yml and the image ran before: no Host the site allows, plain HTTP.
OLD_PROBE = (
    "import urllib.request; "
    "urllib.request.urlopen('http://127.0.0.1:8000/healthz?skip=worker', timeout=4)"
)


def compose_web() -> dict:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    return services["web1"]


def env_file() -> dict[str, str]:
    """.env as .env.example has it (the values an operator starts from)."""
    pairs = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            pairs[name] = value
    return pairs


def interpolated(value: str, names: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?message}, from .env."""

    def one(found: re.Match) -> str:
        name, kind, rest = found.group(1), found.group(2), found.group(3)
        if names.get(name):
            return names[name]
        assert kind != ":?", f"compose needs {name}: {rest}"
        return rest or ""

    return re.sub(r"\$\{(\w+)(?:(:[-?])([^}]*))?\}", one, str(value))


def dockerfile_env() -> dict[str, str]:
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    pairs = {}
    for line in re.findall(r"^ENV (.+)$", text, re.M):
        for word in shlex.split(line):
            name, _, value = word.partition("=")
            pairs[name] = value
    return pairs


def container_env(workdir: Path) -> dict[str, str]:
    """What a web container's processes see: the image's ENV, then .env (env_file), then the
    service's environment; the database and Redis replaced by a throwaway SQLite file and
    the in-memory channel layer (the probe leaves the worker out and needs nothing else)."""
    names = env_file()
    service = {k: interpolated(v, names) for k, v in compose_web()["environment"].items()}
    outside = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in ("DATABASE_URL", "REDIS_URL")
    }
    env = {**outside, **dockerfile_env(), **names, **service}
    env.pop("REDIS_URL")
    env["DATABASE_URL"] = f"sqlite:///{workdir / 'probe.sqlite3'}"
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


@pytest.fixture(scope="module")
def production_daphne(tmp_path_factory):
    """web1's command, on 127.0.0.1 and a free port instead of 0.0.0.0:8000."""
    workdir = tmp_path_factory.mktemp("probe")
    env = container_env(workdir)
    assert env["DJANGO_DEBUG"] == "0" and env["DJANGO_HTTPS"] == "1"
    assert env["DJANGO_BEHIND_PROXY"] == "1" and env["DJANGO_ALLOWED_HOSTS"]
    command = compose_web()["command"]
    port = free_port()
    endpoint = command.index("-e") + 1  # Twisted's endpoint: the port, address, backlog
    assert "port=8000:" in command[endpoint] and ":interface=0.0.0.0:" in command[endpoint]
    command = [*command]
    command[endpoint] = (
        command[endpoint]
        .replace("port=8000:", f"port={port}:")
        .replace(":interface=0.0.0.0:", ":interface=127.0.0.1:")
    )
    command[0] = shutil.which(command[0], path=env["PATH"])
    log = workdir / "daphne.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield port, env
    finally:
        stop(process)


def run_probe(argv: list[str], port: int, env: dict) -> subprocess.CompletedProcess:
    """A probe's command as the container runs it, asking the test's port instead of 8000."""
    assert sum(PROBED in word for word in argv) == 1, argv
    argv = [word.replace(PROBED, f"http://127.0.0.1:{port}/") for word in argv]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)


def test_the_compose_probe_answers_200_under_production_settings(production_daphne):
    port, env = production_daphne
    test = compose_web()["healthcheck"]["test"]
    assert test[0] == "CMD"
    result = run_probe(test[1:], port, env)
    assert result.returncode == 0, result.stderr


def test_the_image_probe_answers_200_under_production_settings(production_daphne):
    port, env = production_daphne
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    shell = re.search(r"^HEALTHCHECK .*?\bCMD (.+)$", text, re.M).group(1)
    result = run_probe(["sh", "-c", shell], port, env)
    assert result.returncode == 0, result.stderr


def caddy_probe() -> tuple[str, dict[str, str]]:
    """The reverse_proxy's health_uri and health_headers, SITE_ADDRESS taken from .env."""
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    uri = re.search(r"^\s*health_uri (\S+)$", caddy, re.M).group(1)
    block = re.search(r"^\s*health_headers \{\n(.*?)^\s*\}", caddy, re.M | re.S).group(1)
    site = env_file()["SITE_ADDRESS"]
    headers = {}
    for line in block.strip().splitlines():
        name, value = line.split(None, 1)
        headers[name] = value.replace("{$SITE_ADDRESS}", site)
    return uri, headers


def status_of(url: str, headers: dict[str, str]) -> int:
    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None  # the status as Caddy sees it: a redirect is not followed

    try:
        with urllib.request.build_opener(Stay).open(
            urllib.request.Request(url, headers=headers), timeout=10
        ) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_caddys_probe_answers_200_under_production_settings(production_daphne):
    port, _ = production_daphne
    uri, headers = caddy_probe()
    assert headers["Host"] == env_file()["SITE_ADDRESS"]
    assert status_of(f"http://127.0.0.1:{port}{uri}", headers) == 200
    # without the headers, as Caddy asked before (Host: web1:8000), the host check refuses
    assert status_of(f"http://127.0.0.1:{port}{uri}", {"Host": "web1:8000"}) == 400


def test_the_old_probe_fails_under_the_same_settings(production_daphne):
    port, env = production_daphne
    result = run_probe(["python", "-c", OLD_PROBE], port, env)
    assert result.returncode != 0
    assert "HTTP Error 400" in result.stderr
    # with the site's name but plain HTTP, the production redirect sends it away
    host = env_file()["DJANGO_ALLOWED_HOSTS"].split(",")[0]
    assert status_of(f"http://127.0.0.1:{port}/healthz?skip=worker", {"Host": host}) == 301
