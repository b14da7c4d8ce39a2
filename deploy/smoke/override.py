"""Write the smoke test's compose file: docker-compose.yml with host networking, each service
on a loopback address of its own, and nothing else changed.

Every service keeps its shipped command, healthcheck, user, volumes, environment and
depends_on; the changes only move what listens or probes from 0.0.0.0 / 127.0.0.1 to the
service's own address (127.0.77.x), tell PostgreSQL, Redis and Caddy to listen there, make
every service name resolve to its address (extra_hosts), so web1 and web2 can both listen
on port 8000 beside the PostgreSQL and Redis this machine already runs, and drop the
published ports (with host networking Caddy listens on its address itself). The changes are
applied here rather than as an override file, as compose can add to a list in an override
but not take `ports` away.

    python deploy/smoke/override.py PROJECT_DIR OUT_DIR  ->  OUT_DIR/docker-compose.smoke.yml
        (the whole file, its paths absolute), OUT_DIR/Caddyfile, OUT_DIR/addresses.json
"""

import json
import sys
from pathlib import Path

import yaml

PREFIX = "127.0.77."
# Fixed where the docs and logs speak of them; any other service gets the next free one.
ADDRESSES = {"db": 2, "redis": 3, "web1": 4, "web2": 5, "proxy": 6, "worker": 7, "migrate": 8}
# The images built from Debian's packages, where the tag would otherwise claim a version
# that Debian bookworm does not have (docs/operations.md, "The compose smoke test").
IMAGES = {"postgres:16": "shanghaien-smoke/postgres:15"}
WILDCARDS = ("0.0.0.0", "127.0.0.1")
CADDYFILE = "./deploy/Caddyfile"


def addresses(services: dict) -> dict[str, str]:
    taken = set(ADDRESSES.values())
    free = (n for n in range(20, 255) if n not in taken)
    return {name: PREFIX + str(ADDRESSES.get(name) or next(free)) for name in services}


def moved(value, address: str):
    """A command or healthcheck with every wildcard or loopback address replaced."""
    if isinstance(value, list):
        return [moved(item, address) for item in value]
    for wildcard in WILDCARDS:
        value = value.replace(wildcard, address)
    return value


def override(services: dict, caddy_mount: str) -> dict:
    where = addresses(services)
    hosts = [f"{name}:{address}" for name, address in where.items()]
    out = {}
    for name, service in services.items():
        address = where[name]
        image = service.get("image", "")
        change: dict = {"network_mode": "host", "extra_hosts": list(hosts)}
        command = service.get("command")
        check = service.get("healthcheck", {}).get("test")
        if image.startswith("postgres:"):
            # the image's own command is "postgres"; its healthcheck uses the unix socket
            command = [*(command or ["postgres"]), "-c", f"listen_addresses={address}"]
        elif image.startswith("redis:"):
            command = [*(command or ["redis-server"]), "--bind", address]
            check = [*check[:2], "-h", address, *check[2:]] if check else None
        elif image.startswith("caddy:"):
            change["volumes"] = [f"{caddy_mount}:/etc/caddy/Caddyfile:ro"]
        if command is not None:
            change["command"] = moved(command, address)
        if check is not None:
            change["healthcheck"] = {"test": moved(check, address)}
        if image in IMAGES:
            change["image"] = IMAGES[image]
        if "build" in service:
            build = service["build"]
            context = build if isinstance(build, str) else build.get("context", ".")
            change["build"] = {"context": context, "network": "host"}
        out[name] = change
    return {"services": out}, where


def caddyfile(text: str, address: str) -> str:
    """The shipped Caddyfile, listening (sites and admin API) on the proxy's address only."""
    options = f"\tdefault_bind {address}\n\tadmin {address}:2019\n"
    stripped = text.lstrip()
    if stripped.startswith("{"):  # a global options block already: add to it
        start = text.index("{") + 1
        return text[:start] + "\n" + options + text[start:]
    return "{\n" + options + "}\n\n" + text


def applied(service: dict, change: dict, project: Path) -> dict:
    """The service with the change made, as compose would merge an override, less `ports`."""
    result = {key: value for key, value in service.items() if key != "ports"}
    for key, value in change.items():
        if key == "healthcheck":
            result[key] = {**service.get(key, {}), **value}
        elif key == "volumes":  # a mount replaces the one at the same path in the container
            targets = {v.split(":")[1] for v in value}
            kept = [v for v in service.get(key, []) if v.split(":")[1] not in targets]
            result[key] = kept + value
        else:
            result[key] = value
    if "build" in result:
        result["build"]["context"] = str((project / result["build"]["context"]).resolve())
    if "env_file" in result:
        files = result["env_file"]
        files = [files] if isinstance(files, str) else files
        result["env_file"] = [str((project / f).resolve()) for f in files]
    return result


def main(project: Path, out: Path) -> None:
    config = yaml.safe_load((project / "docker-compose.yml").read_text())
    services = config["services"]
    proxy = next(n for n, s in services.items() if s.get("image", "").startswith("caddy:"))
    mounts = [v for v in services[proxy].get("volumes", []) if v.startswith(CADDYFILE + ":")]
    if not mounts:
        sys.exit(f"the proxy service does not mount {CADDYFILE}")
    generated = out / "Caddyfile"
    result, where = override(services, str(generated))
    generated.write_text(caddyfile((project / CADDYFILE).read_text(), where[proxy]))
    config["services"] = {
        name: applied(service, result["services"][name], project)
        for name, service in services.items()
    }
    config = {key: value for key, value in config.items() if not key.startswith("x-")}
    (out / "docker-compose.smoke.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (out / "addresses.json").write_text(json.dumps(where, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
