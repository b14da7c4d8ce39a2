""".ci/run, the script CI runs: a failing step never hides the steps after it, the script
fails at the end if any step failed, and it adds up both suites' counts.

The script is run for real, with `make` and `npm` replaced on PATH by stand-ins that print
what a suite prints and fail where a test tells them to."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAKE_MAKE = """#!/bin/sh
# $1: the target. FAIL names the targets that fail; a suite prints pytest's closing line.
echo "fake make $1 DATABASE_URL=${DATABASE_URL:-} REDIS_URL=${REDIS_URL:-}"
case "$1" in
  test)
    if [ -n "${DATABASE_URL:-}" ]; then counts="2 failed, 7 passed, 1 error"
    else counts="5 passed, 1 skipped"; fi
    echo "============ $counts in 1.23s ============" ;;
esac
case " $FAIL " in *" $1 "*) exit 3 ;; esac
exit 0
"""


def run_ci(tmp_path: Path, fail: str, **env) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_ins = {"make": FAKE_MAKE, "npm": "#!/bin/sh\nexit 0\n", "apt-get": "#!/bin/sh\nexit 0\n"}
    for name, text in stand_ins.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI_DATABASE_URL", "CI_REDIS_URL", "DATABASE_URL", "REDIS_URL")
    }
    environment.update(PATH=f"{bin_dir}:{os.environ['PATH']}", FAIL=fail, **env)
    return subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def summary(result: subprocess.CompletedProcess) -> str:
    return result.stdout.rsplit("==== summary ====", 1)[1]


def test_a_failing_lint_and_suite_hide_nothing_and_fail_the_run(tmp_path):
    result = run_ci(tmp_path, fail="lint test")
    assert result.returncode == 1, result.stdout + result.stderr
    for target in ("lint", "test", "smoke-compose"):
        assert f"fake make {target}" in result.stdout
    # both suites ran, each on its own database
    assert result.stdout.count("fake make test") == 2
    lines = summary(result)
    assert "lint" in lines and "FAILED (exit 3)" in lines.split("lint", 1)[1].split("\n")[0]
    assert lines.count("FAILED") == 3  # lint and both suites; the compose step passed
    assert "tests: 12 passed, 3 failed" in lines
    assert "CI failed" in lines


def test_a_clean_run_passes_and_uses_the_given_servers(tmp_path):
    result = run_ci(
        tmp_path,
        fail="",
        CI_DATABASE_URL="postgres://someone@127.0.0.1:5432/elsewhere",
        CI_REDIS_URL="redis://127.0.0.1:6379/7",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "fake make test DATABASE_URL=postgres://someone@127.0.0.1:5432/elsewhere "
        "REDIS_URL=redis://127.0.0.1:6379/7" in result.stdout
    )
    # the first suite runs without either
    assert "fake make test DATABASE_URL= REDIS_URL=\n" in result.stdout
    assert "FAILED" not in summary(result)
    assert "CI passed." in summary(result)


def test_only_the_last_step_failing_still_fails_the_run(tmp_path):
    result = run_ci(tmp_path, fail="smoke-compose")
    assert result.returncode == 1
    assert summary(result).count("FAILED") == 1
