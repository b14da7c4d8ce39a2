"""Production settings, /healthz, and the deployment files (no Docker engine runs here)."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def production_env(**more):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_HTTPS": "1",
        "DJANGO_BEHIND_PROXY": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "play.example.org",
        "DJANGO_STATIC_MANIFEST": "1",
        **more,
    }


def test_check_deploy_reports_nothing_under_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_does_complain_about_the_development_defaults():
    env = production_env(DJANGO_HTTPS="0")
    del env["DJANGO_SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "SECURE_HSTS_SECONDS" in result.stderr + result.stdout


@pytest.mark.django_db
def test_healthz_checks_the_database_and_the_channel_layer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_says_what_is_failing(client, monkeypatch):
    import shanghaien.health as health

    def broken():
        raise ConnectionError("no layer")

    monkeypatch.setattr(health, "get_channel_layer", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["channel_layer"] == "failing: ConnectionError"
    assert response.json()["database"] == "ok"


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    # sockets only to this site: no ws:/wss: to any host
    assert "connect-src 'self';" in policy + ";" and "ws:" not in policy


def settings_env_names() -> set[str]:
    source = (ROOT / "shanghaien" / "settings.py").read_text()
    return set(re.findall(r'env(?:\.\w+)?\(\s*"([A-Z_]+)"', source))


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_defines_every_service_with_health_checks():
    services = compose()["services"]
    assert set(services) == {"db", "redis", "migrate", "web", "worker", "proxy"}
    for name in ("db", "redis", "web", "worker", "proxy"):
        assert "healthcheck" in services[name], name
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "ports" not in services["web"]  # only the proxy is exposed: web can scale


def test_the_web_service_runs_daphne_on_postgres_and_redis():
    web = compose()["services"]["web"]
    command = " ".join(web["command"])
    assert command.startswith("daphne ") and "shanghaien.asgi:application" in command
    env = web["environment"]
    assert env["DATABASE_URL"].startswith("postgres://") and env["REDIS_URL"].startswith("redis://")
    assert env["DJANGO_DEBUG"] == "0" and env["DJANGO_HTTPS"] == "1"
    worker = compose()["services"]["worker"]
    assert worker["command"] == ["python", "manage.py", "run_worker"]


def test_every_environment_name_is_one_that_settings_reads():
    read = settings_env_names()
    assert {"DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DJANGO_HTTPS"} <= read
    compose_only = {"POSTGRES_PASSWORD", "POSTGRES_DB", "POSTGRES_USER", "SITE_ADDRESS"}
    for name, service in compose()["services"].items():
        for key in service.get("environment", {}):
            assert key in read | compose_only, f"{name}: {key} is read by nobody"
    example = (ROOT / ".env.example").read_text().splitlines()
    for line in example:
        if line and not line.startswith("#"):
            key = line.split("=", 1)[0]
            assert key in read | compose_only, f".env.example: {key} is read by nobody"


def test_the_dockerfile_builds_the_app_and_serves_it_with_daphne():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11", text, re.M)
    assert "collectstatic" in text and "HEALTHCHECK" in text
    cmd = re.search(r"^CMD (.+)$", text, re.M).group(1)
    assert '"daphne"' in cmd and '"shanghaien.asgi:application"' in cmd
    for package in ("shanghaien", "games", "accounts", "moderation"):
        assert f"COPY {package} ./{package}" in text


def test_the_proxy_forwards_to_web_and_serves_static_files():
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy web:8000" in caddy and "/static/*" in caddy
    proxy = compose()["services"]["proxy"]
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
