import pathlib
import subprocess
import sys

RULES = pathlib.Path(__file__).resolve().parents[2] / "games" / "rules"


def test_importing_the_engine_imports_no_django_module():
    code = (
        "import sys, games.rules\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(','.join(loaded))\n"
    )
    root = RULES.parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_engine_sources_do_not_mention_django_imports():
    for path in RULES.glob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            assert not stripped.startswith(("import django", "from django")), path
