"""Production settings, /healthz, and the deployment files (no Docker engine runs here)."""

import json
import os
import posixpath
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml
from django.conf import settings

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
        "VAPID_PRIVATE_KEY": new_vapid_key(),
        **more,
    }


def new_vapid_key() -> str:
    from py_vapid import Vapid02

    from shanghaien.lib.webpush import b64url

    vapid = Vapid02()
    vapid.generate_keys()
    return b64url(vapid.private_key.private_numbers().private_value.to_bytes(32, "big"))


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


def run_manage(*args, env):
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_check_deploy_does_complain_about_the_development_defaults():
    result = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env=production_env(DJANGO_HTTPS="0")
    )
    assert result.returncode != 0
    assert "SECURE_HSTS_SECONDS" in result.stderr + result.stdout


@pytest.mark.parametrize("debug", ["0", None])
def test_production_without_a_secret_key_refuses_to_start(debug):
    env = production_env()
    del env["DJANGO_SECRET_KEY"]
    if debug is None:
        del env["DJANGO_DEBUG"]  # unset means production too
    else:
        env["DJANGO_DEBUG"] = debug
    for command in (["check"], ["migrate", "--plan"]):
        result = run_manage(*command, env=env)
        assert result.returncode != 0
        assert "ImproperlyConfigured: DJANGO_SECRET_KEY is not set" in result.stderr
    daphne = subprocess.run(
        [sys.executable, "-m", "daphne", "-p", "0", "shanghaien.asgi:application"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert daphne.returncode != 0 and "DJANGO_SECRET_KEY is not set" in daphne.stderr


def test_check_deploy_refuses_the_development_key():
    env = production_env(DJANGO_DEBUG="1")
    del env["DJANGO_SECRET_KEY"]
    result = run_manage("check", "--deploy", env=env)
    assert result.returncode != 0
    assert "shanghaien.E001" in result.stderr + result.stdout


@pytest.mark.parametrize("key, found", [("", "shanghaien.W001"), ("not-a-key", "shanghaien.E002")])
def test_check_deploy_asks_for_a_push_key(key, found):
    result = run_manage("check", "--deploy", env=production_env(VAPID_PRIVATE_KEY=key))
    assert found in result.stderr + result.stdout


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


def web_services() -> dict:
    """The Daphne processes: the services named web1, web2, …"""
    services = compose()["services"]
    return {name: service for name, service in services.items() if re.fullmatch(r"web\d+", name)}


def test_compose_defines_every_service_with_health_checks():
    services = compose()["services"]
    assert set(services) == {"db", "redis", "migrate", "worker", "proxy", *web_services()}
    for name in ("db", "redis", "worker", "proxy", *web_services()):
        assert "healthcheck" in services[name], name
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    for name, web in web_services().items():
        assert "ports" not in web, name  # only the proxy is exposed


def test_two_web_services_run_daphne_on_postgres_and_redis():
    webs = web_services()
    assert len(webs) >= 2  # production runs two processes at least
    for name, web in webs.items():
        command = " ".join(web["command"])
        assert command.startswith("daphne ") and "shanghaien.asgi:application" in command, name
        assert "-e tcp:port=8000:interface=0.0.0.0:backlog=" in command, name
        assert "--proxy-headers" in command, name
        # a restart's reconnecting boards wait their turn, not Daphne's default 5 s
        timeout = web["command"][web["command"].index("--websocket_connect_timeout") + 1]
        assert int(timeout) >= 30, name
        env = web["environment"]
        assert env["DATABASE_URL"].startswith("postgres://"), name
        assert env["REDIS_URL"].startswith("redis://"), name  # the channel layer they share
        assert env["DJANGO_DEBUG"] == "0" and env["DJANGO_HTTPS"] == "1", name
        assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
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


# -- the image and the package: the whole project, less what .dockerignore keeps out -------


def own_apps() -> list[str]:
    """The installed apps that are directories of this repository."""
    tops = dict.fromkeys(app.split(".")[0] for app in settings.INSTALLED_APPS)
    return [top for top in tops if (ROOT / top).is_dir()]


def project_package() -> str:
    """The package holding the settings."""
    return os.environ["DJANGO_SETTINGS_MODULE"].split(".")[0]


def own_packages() -> list[str]:
    """The project package and every app of the project."""
    return list(dict.fromkeys([project_package(), *own_apps()]))


def python_directories(top: str):
    """Every directory of a package that holds Python modules, as a dotted name."""
    for directory, subdirs, files in os.walk(ROOT / top):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        if any(name.endswith(".py") for name in files):
            yield ".".join(Path(directory).relative_to(ROOT).parts)


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def installed_packages() -> set[str]:
    """What `pip install .` installs: setuptools' own discovery, configured as pyproject says."""
    from setuptools import find_namespace_packages, find_packages

    config = pyproject()["tool"]["setuptools"]["packages"]["find"]
    find = find_namespace_packages if config.get("namespaces", True) else find_packages
    found = set()
    for where in config.get("where", ["."]):
        found |= set(
            find(
                where=str(ROOT / where),
                include=tuple(config.get("include", ["*"])),
                exclude=tuple(config.get("exclude", [])),
            )
        )
    return found


def test_pip_install_installs_every_app_with_all_its_subpackages():
    packages = own_packages()
    assert project_package() in packages and len(packages) > 1
    found = installed_packages()
    for top in packages:
        expected = set(python_directories(top))
        assert top in expected and expected <= found, f"not installed: {sorted(expected - found)}"
    assert not {name.split(".")[0] for name in found} & {"tests", "bench"}


class DockerignorePattern:
    """One line of a .dockerignore, matched as Docker matches it (moby/patternmatcher)."""

    def __init__(self, line: str):
        self.exception = line.startswith("!")
        pattern = line[1:].strip() if self.exception else line
        # Go's filepath.Clean, then a leading slash dropped: "/build" is "build"
        self.pattern = posixpath.normpath(pattern.lstrip("/") or ".")
        self.kind, self.regex = "exact", ""
        text, i = self.pattern, 0
        while i < len(text):
            first = i == 0
            char, i = text[i], i + 1
            if char == "*" and text[i : i + 1] == "*":  # "**": any number of directories
                i += 1
                if text[i : i + 1] == "/":
                    i += 1
                if i == len(text):
                    if self.kind == "exact":
                        self.kind = "prefix"
                    else:
                        self.regex, self.kind = self.regex + ".*", "regexp"
                else:
                    self.regex, self.kind = self.regex + "(.*/)?", "regexp"
                if first:
                    self.kind = "suffix"
            elif char == "*":
                self.regex, self.kind = self.regex + "[^/]*", "regexp"
            elif char == "?":
                self.regex, self.kind = self.regex + "[^/]", "regexp"
            elif char in ".+()|{}$":
                self.regex += "\\" + char
            elif char == "\\" and i < len(text):
                self.regex, self.kind, i = self.regex + "\\" + text[i], "regexp", i + 1
            elif char in "[]":
                self.regex, self.kind = self.regex + char, "regexp"
            else:
                self.regex += char

    def matches(self, path: str) -> bool:
        if self.kind == "exact":
            return path == self.pattern
        if self.kind == "prefix":  # "dir/**"
            return path.startswith(self.pattern[:-2])
        if self.kind == "suffix":  # "**/name"
            suffix = self.pattern[2:]
            return path.endswith(suffix) or (suffix[:1] == "/" and path == suffix[1:])
        return re.fullmatch(self.regex, path) is not None


class Dockerignore:
    def __init__(self, text: str):
        lines = (line.strip() for line in text.splitlines() if not line.startswith("#"))
        self.patterns = [DockerignorePattern(line) for line in lines if line]

    def excludes(self, path: str) -> bool:
        """Whether the file is left out: the last pattern matching it or one of its parent
        directories decides (MatchesOrParentMatches)."""
        parts = path.split("/")
        parents = ["/".join(parts[:i]) for i in range(1, len(parts))]
        excluded = False
        for pattern in self.patterns:
            if pattern.exception != excluded:
                continue
            if pattern.matches(path) or any(pattern.matches(parent) for parent in parents):
                excluded = not pattern.exception
        return excluded


def project_dockerignore() -> Dockerignore:
    return Dockerignore((ROOT / ".dockerignore").read_text())


def build_context(root: Path) -> list[str]:
    """The files `docker build` sends from root: every one, less what .dockerignore
    excludes (the working tree as it is, untracked and git-ignored files included)."""
    ignore_file = root / ".dockerignore"
    ignore = Dockerignore(ignore_file.read_text() if ignore_file.exists() else "")
    # An excluded directory is skipped unless an exception could bring back a file in it.
    descend_excluded = any(pattern.exception for pattern in ignore.patterns)
    files = []
    for directory, subdirs, names in os.walk(root):
        here = Path(directory).relative_to(root)
        links = [d for d in subdirs if (Path(directory) / d).is_symlink()]
        subdirs[:] = [
            d
            for d in subdirs
            if d not in links and (descend_excluded or not ignore.excludes((here / d).as_posix()))
        ]
        paths = ((here / name).as_posix() for name in [*names, *links])
        files += [path for path in paths if not ignore.excludes(path)]
    return sorted(files)


def copy_files(files, source: Path, target: Path):
    for name in files:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target / name, follow_symlinks=False)


@pytest.mark.parametrize(
    "patterns, path, excluded",
    [
        (["*/temp*"], "somedir/temporary.txt", True),
        (["*/temp*"], "somedir/temp/file.txt", True),
        (["*/temp*"], "temp.txt", False),
        (["*/temp*"], "a/b/temp.txt", False),
        (["*/*/temp*"], "somedir/subdir/temporary.txt", True),
        (["temp?"], "tempa/file.txt", True),
        (["temp?"], "tempab", False),
        (["**/*.go"], "main.go", True),
        (["**/*.go"], "a/b/main.go", True),
        (["**/__pycache__"], "games/rules/__pycache__/cards.cpython-311.pyc", True),
        (["**/__pycache__"], "__pycache__/x.pyc", True),
        (["docs"], "docs/api.md", True),
        (["docs"], "games/docs/api.md", False),
        (["/build"], "build/lib/games/__init__.py", True),
        (["static/**"], "static/css/site.css", True),
        (["*.py[cod]"], "manage.pyc", True),
        (["*.py[cod]"], "games/models.pyc", False),
        (["*.md", "!README*.md", "README-secret.md"], "README-secret.md", True),
        (["*.md", "!README*.md", "README-secret.md"], "README.md", False),
        (["*.md", "!README*.md", "README-secret.md"], "CHANGES.md", True),
        (["*.md", "README-secret.md", "!README*.md"], "README-secret.md", False),
        (["tests", "!tests/keep.py"], "tests/keep.py", False),
        (["tests", "!tests/keep.py"], "tests/drop.py", True),
    ],
)
def test_dockerignore_patterns_match_as_docker_matches_them(patterns, path, excluded):
    assert Dockerignore("\n".join(patterns)).excludes(path) is excluded


def test_the_build_context_walk_follows_exceptions_into_excluded_directories(tmp_path):
    for name in ("tests/keep.py", "tests/drop.py", "games/models.py", "db.sqlite3"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / ".dockerignore").write_text("# comment\ntests\n!tests/keep.py\ndb.*\n")
    assert build_context(tmp_path) == [".dockerignore", "games/models.py", "tests/keep.py"]


@pytest.mark.parametrize(
    "path",
    [
        ".git/HEAD",
        ".venv/bin/python",
        ".env",
        ".env.production",
        "db.sqlite3",
        "db.sqlite3-wal",
        "staticfiles/staticfiles.json",
        "games/__pycache__/models.cpython-311.pyc",
        "shanghaien.egg-info/PKG-INFO",
        "node_modules/chart/index.js",
        "tests/test_deploy.py",
        "tests/e2e/screenshots/board.png",
        "bench/engine_speed.py",
        "docs/operations.md",
        ".hypothesis/constants/x",
        ".pytest_cache/README.md",
    ],
)
def test_dockerignore_keeps_out_what_the_image_must_not_carry(path):
    assert project_dockerignore().excludes(path)


@pytest.mark.parametrize(
    "path",
    [
        "manage.py",
        "pyproject.toml",
        "README.md",
        "games/migrations/0001_events_games_invitations.py",
        "games/management/commands/run_worker.py",
        "games/templatetags/board.py",
        "games/templates/games/part.html",
        "games/static/games/board.js",
        "templates/base.html",
        "static/css/site.css",
        "static/.well-known/security.txt",
        "locale/de/LC_MESSAGES/django.mo",
        "games/locale/de/LC_MESSAGES/django.po",
    ],
)
def test_dockerignore_lets_through_what_the_site_reads(path):
    assert not project_dockerignore().excludes(path)


@pytest.fixture(scope="module")
def image_files():
    return build_context(ROOT)


def project_files() -> list[str]:
    """The project's files as git sees them: tracked, or new and not ignored."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


def test_the_build_context_has_every_file_the_site_reads(image_files):
    template_dirs = [d for engine in settings.TEMPLATES for d in engine.get("DIRS", [])]
    directories = [
        *(ROOT / package for package in own_packages()),
        *template_dirs,
        *settings.STATICFILES_DIRS,
        *settings.LOCALE_PATHS,
    ]
    prefixes = [Path(d).relative_to(ROOT).as_posix() + "/" for d in directories if Path(d).is_dir()]
    files = project_files()
    needed = [
        name
        for name in files
        if name in ("manage.py", "pyproject.toml", pyproject()["project"]["readme"])
        or name.startswith(tuple(prefixes))
    ]
    assert "manage.py" in needed
    for prefix in prefixes:
        assert any(name.startswith(prefix) for name in needed), f"no file in {prefix}"
    missing = sorted(set(needed) - set(image_files))
    assert not missing, f".dockerignore keeps out {missing}"


def isolated_env(workdir: Path, **more) -> dict:
    """Production settings and the installed libraries, but not the project: for `python
    -S` (no site: no .pth file puts the repository, installed editable, on the path)."""
    paths = sysconfig.get_paths()
    return production_env(
        PYTHONPATH=os.pathsep.join(dict.fromkeys([paths["purelib"], paths["platlib"]])),
        DATABASE_URL=f"sqlite:///{workdir / 'throwaway.sqlite3'}",
        **more,
    )


def manage(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-S", "manage.py", *args],
        cwd=workdir,
        env=isolated_env(workdir),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_isolated_python_has_the_libraries_but_not_the_project(tmp_path):
    code = (
        "import importlib.util, sys, django\n"
        "print([name for name in sys.argv[1:] if importlib.util.find_spec(name)])"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", code, *own_packages()],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def image_copy(image_files, tmp_path_factory):
    target = tmp_path_factory.mktemp("image") / "app"
    copy_files(image_files, ROOT, target)
    return target


def test_the_files_of_the_image_alone_run_the_site(image_copy):
    check = manage(image_copy, "check", "--deploy", "--fail-level", "WARNING")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "System check identified no issues" in check.stdout
    plan = manage(image_copy, "migrate", "--plan")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    planned = set(re.findall(r"^\s*(\w+\.\d{4}_\w+)", plan.stdout, re.M))
    for app in own_apps():
        migrations = {f"{app}.{path.stem}" for path in (ROOT / app).glob("migrations/[0-9]*.py")}
        assert migrations <= planned, f"missing from the image: {sorted(migrations - planned)}"


def test_the_same_run_fails_when_an_app_is_missing(image_copy, tmp_path):
    app = own_apps()[-1]
    assert (image_copy / app / "__init__.py").is_file()
    target = tmp_path / "app"
    shutil.copytree(
        image_copy, target, ignore=lambda d, names: [app] if Path(d) == image_copy else []
    )
    check = manage(target, "check", "--deploy", "--fail-level", "WARNING")
    assert check.returncode != 0
    assert f"No module named '{app}'" in check.stderr


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    lines = (line.strip() for line in text.splitlines())
    return [(*line.split(None, 1), "")[:2] for line in lines if line and not line.startswith("#")]


def dockerfile_copy_sources() -> list[str]:
    sources = []
    for instruction, arguments in dockerfile_instructions():
        if instruction.upper() in ("COPY", "ADD"):
            words = [word for word in arguments.split() if not word.startswith("--")]
            sources += [posixpath.normpath(word) for word in words[:-1]]
    return sources


def test_the_dockerfile_builds_the_app_and_serves_it_with_daphne():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11", text, re.M)
    assert "collectstatic" in text and "HEALTHCHECK" in text
    assert re.search(r"DJANGO_SECRET_KEY=\S+ python manage.py collectstatic", text)
    assert re.search(r"^USER (?!root)\w+", text, re.M)
    cmd = re.search(r"^CMD (.+)$", text, re.M).group(1)
    assert '"daphne"' in cmd and '"shanghaien.asgi:application"' in cmd
    # the same listening options as the compose file's web services
    web = next(iter(web_services().values()))
    assert json.loads(cmd) == web["command"]


def test_the_dockerfile_copies_the_whole_project_not_a_list_of_directories(image_files):
    sources = dockerfile_copy_sources()
    assert "." in sources
    for source in sources:
        # besides the whole context, single files only (for the dependency layer)
        assert source == "." or (ROOT / source).is_file(), f"COPY {source} names a directory"
        assert source == "." or source in image_files, f".dockerignore keeps out {source}"
    assert not set(sources) & set(own_packages())


def test_the_proxy_balances_over_every_web_service_and_serves_static_files():
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    proxies = re.findall(r"^\s*reverse_proxy ([^{\n]*?)\s*\{(.*?)\}", caddy, re.M | re.S)
    assert len(proxies) == 1, proxies
    upstreams, options = proxies[0]
    # one upstream per Daphne process, each checked on its own (no dynamic upstreams: Caddy
    # runs no active health checks on those)
    assert sorted(upstreams.split()) == sorted(f"{name}:8000" for name in web_services())
    assert "health_uri /healthz?skip=worker" in options and "lb_policy least_conn" in options
    assert "/static/*" in caddy
    proxy = compose()["services"]["proxy"]
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    for name in web_services():
        assert proxy["depends_on"][name]["condition"] == "service_healthy", name
