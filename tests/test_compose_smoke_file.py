"""The compose file and what the smoke test (make smoke-compose) makes of it: the services run
as shipped, only their listening and probing addresses moved to loopback addresses of their
own (deploy/smoke/override.py). Whether the whole comes up is for the smoke test itself."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_SERVICES = ("migrate", "web1", "web2", "worker")


def shipped() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke")
    subprocess.run(
        [sys.executable, str(ROOT / "deploy" / "smoke" / "override.py"), str(ROOT), str(out)],
        check=True,
    )
    services = yaml.safe_load((out / "docker-compose.smoke.yml").read_text())["services"]
    return services, json.loads((out / "addresses.json").read_text()), out


def back(value, address: str):
    """A command or healthcheck with the service's own address put back as shipped."""
    if isinstance(value, list):
        return [back(v, address) for v in value]
    if isinstance(value, dict):
        return {k: back(v, address) for k, v in value.items()}
    return value.replace(address, "ADDRESS") if isinstance(value, str) else value


def test_every_service_runs_as_shipped_with_only_its_address_moved(smoke):
    services, where, _ = smoke
    assert set(services) == set(shipped())
    assert len(set(where.values())) == len(where)
    for name, original in shipped().items():
        test = services[name]
        address = where[name]
        assert address.startswith("127.") and test["network_mode"] == "host"
        assert sorted(test["extra_hosts"]) == sorted(f"{n}:{a}" for n, a in where.items())
        for key in ("environment", "env_file", "depends_on", "user", "init", "restart"):
            if key == "env_file" and key in original:
                assert test[key] == [str(ROOT / ".env")], name
            else:
                assert test.get(key) == original.get(key), (name, key)
        for key in ("command", "healthcheck"):
            if key not in original:
                continue
            mine = back(test[key], address)
            theirs = back(original[key], "0.0.0.0")
            theirs = back(theirs, "127.0.0.1")
            if name == "db" and key == "command":
                theirs = theirs + ["-c", "listen_addresses=ADDRESS"]
            if name == "redis" and key == "command":
                theirs = theirs + ["--bind", "ADDRESS"]
            if name == "redis" and key == "healthcheck":
                theirs["test"] = [*theirs["test"][:2], "-h", "ADDRESS", *theirs["test"][2:]]
            assert mine == theirs, (name, key)
        if name != "proxy":
            assert test.get("volumes") == original.get("volumes"), name
        assert "ports" not in test  # host networking: Caddy listens on its address itself


def test_the_smoke_caddyfile_is_the_shipped_one_bound_to_the_proxys_address(smoke):
    services, where, out = smoke
    proxy = services["proxy"]
    target = ":/etc/caddy/Caddyfile:ro"
    mount = f"{out / 'Caddyfile'}{target}"
    others = [v for v in shipped()["proxy"]["volumes"] if not v.endswith(target)]
    assert proxy["volumes"] == [*others, mount]
    text = (out / "Caddyfile").read_text()
    options = f"{{\n\tdefault_bind {where['proxy']}\n\tadmin {where['proxy']}:2019\n}}\n\n"
    assert text == options + (ROOT / "deploy" / "Caddyfile").read_text()


def test_the_app_services_run_under_an_init_and_daphne_without_its_access_log():
    services = shipped()
    for name in APP_SERVICES:
        assert services[name]["init"] is True, name
    for name in ("web1", "web2"):
        command = services[name]["command"]
        assert command[command.index("--verbosity") + 1] == "0", name
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (.+)$", dockerfile, re.M).group(1)
    assert '"--verbosity", "0"' in cmd


def test_static_files_are_collected_at_build_by_the_user_that_copies_them():
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    user = re.search(r"^USER (\w+)$", text, re.M)
    collect = re.search(r"^RUN .*manage\.py collectstatic", text, re.M)
    assert user and collect and user.start() < collect.start()  # as that user, not root
    flat = " ".join(text.split())
    for lock in ("build", "runtime"):  # as locked, every file checked against its hash
        assert f"--require-hashes --no-deps --no-build-isolation -r requirements/{lock}.txt" in flat
    services = shipped()
    migrate = services["migrate"]
    assert "collectstatic" not in " ".join(migrate["command"])
    assert "/app/staticfiles/. /srv/static/" in migrate["command"][-1]
    assert "static:/srv/static" in migrate["volumes"]
    assert "static:/srv/static:ro" in services["proxy"]["volumes"]
    assert f"install -d -o {user.group(1)} -g {user.group(1)} /app/staticfiles /srv/static" in text


def test_the_proxy_answers_404_for_the_metrics():
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    matcher = re.search(r"^\s*@(\w+) path /metrics /metrics/\*$", caddy, re.M)
    assert matcher
    handled = re.search(rf"handle @{matcher.group(1)} \{{\s*respond 404\s*\}}", caddy)
    # before the reverse_proxy, which would otherwise pass the path on
    assert handled and handled.start() < caddy.index("reverse_proxy")
