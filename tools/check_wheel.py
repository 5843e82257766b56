"""Check a built wheel as a user meets it: alone in a fresh virtual environment, run from a folder that is not the
repository.

    python tools/check_wheel.py [dist/llrcore_workbench-X.Y.Z-py3-none-any.whl]

Creates a venv (no system site packages) in a temporary folder, installs the wheel there with its dependencies from
the package index (pip's cache makes it quick), and from another temporary folder runs ``llrcore --version``,
``llrcore evaluate`` on a packaged demo file (``llrcore demo``) and ``llrcore app`` until ``/_stcore/health``
answers; then Playwright (this Python's, on the system Chromium) opens the app and checks that every page of
``app_pages/_pages.py`` is in the sidebar and that no page shows an exception. One line per check; the exit status
is 1 when one failed. CI runs it after ``python -m build`` (``.ci/run``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import venv
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
RUNNING = "[data-testid=stApp][data-test-script-state=running]"
#: the demo file `llrcore evaluate` is checked on, and its counts (assets/asvspoof2019_la/SOURCE.txt)
DEMO, DEMO_TARGETS, DEMO_NON_TARGETS = "asv-eval", 5370, 33327
SERVER_START_SECONDS = 120


class CheckFailed(Exception):
    """A check that failed, with a sentence saying what was seen."""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", nargs="?", type=Path, help="the wheel to check (default: the one in dist/)")
    wheel = (parser.parse_args(argv).wheel or only_wheel(ROOT / "dist")).resolve()
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory(prefix="llrcore-wheel-") as temporary:
        environment, elsewhere = Path(temporary) / "venv", Path(temporary) / "elsewhere"
        elsewhere.mkdir()
        checks = [
            ("a fresh venv holds the wheel", lambda: install(wheel, environment)),
            ("llrcore --version", lambda: check_version(environment, elsewhere, version)),
            ("llrcore evaluate on a packaged demo file", lambda: check_evaluate(environment, elsewhere)),
            ("llrcore app serves every page, no exception", lambda: check_app(environment, elsewhere)),
        ]
        failed = ran = 0
        for name, check in checks:
            ran += 1
            started = time.monotonic()
            try:
                detail = check()
            except (CheckFailed, subprocess.CalledProcessError) as error:
                failed += 1
                print(f"FAIL {name}: {describe(error)}", flush=True)
                if isinstance(error, subprocess.CalledProcessError) and name.startswith("a fresh venv"):
                    break  # nothing else can run without it
            else:
                print(f"ok   {name}: {detail} ({time.monotonic() - started:.0f} s)", flush=True)
    print(f"check_wheel: {failed} of the {ran} checks run failed ({len(checks)} in all)" if failed else
          f"check_wheel: all {len(checks)} checks passed")
    return 1 if failed else 0


def only_wheel(folder: Path) -> Path:
    wheels = sorted(folder.glob("*.whl"))
    if len(wheels) != 1:
        sys.exit(f"check_wheel: expected one wheel in {folder}, found {len(wheels)}: build it with python -m build.")
    return wheels[0]


def describe(error: Exception) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        output = (error.stderr or error.stdout or "").strip().splitlines()
        return f"`{' '.join(map(str, error.cmd))}` exited with {error.returncode}: {' | '.join(output[-5:])}"
    return str(error)


def run(command: list, cwd: Path) -> str:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True).stdout


def install(wheel: Path, environment: Path) -> str:
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(environment)
    run([environment / "bin" / "python", "-m", "pip", "install", "--quiet", str(wheel)], cwd=environment.parent)
    return f"{wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB) and its dependencies"


def check_version(environment: Path, elsewhere: Path, version: str) -> str:
    said = run([environment / "bin" / "llrcore", "--version"], elsewhere).strip()
    if said != f"llrcore {version}":
        raise CheckFailed(f"said {said!r}, not 'llrcore {version}'")
    return said


def check_evaluate(environment: Path, elsewhere: Path) -> str:
    llrcore = environment / "bin" / "llrcore"
    demo = Path(run([llrcore, "demo", DEMO], elsewhere).strip())
    if environment not in demo.parents:
        raise CheckFailed(f"`llrcore demo {DEMO}` points outside the venv: {demo}")
    (row,) = json.loads(run([llrcore, "evaluate", str(demo), "--json"], elsewhere)).values()
    if (row["targets"], row["non-targets"]) != (DEMO_TARGETS, DEMO_NON_TARGETS):
        raise CheckFailed(f"{demo.name}: {row['targets']} targets and {row['non-targets']} non-targets, not "
                          f"{DEMO_TARGETS} and {DEMO_NON_TARGETS}")
    return f"{demo.relative_to(environment)}: EER {row['EER %']:.2f} %, Cllr {row['Cllr']:.3f} bits"


def check_app(environment: Path, elsewhere: Path) -> str:
    titles = [spec.title for spec in repository_pages()]
    with running_app(environment, elsewhere) as url:
        shown = walk_pages(url, titles)
    return f"{len(shown)} pages in the sidebar, each opened: {', '.join(shown)}"


def repository_pages() -> list:
    """PAGES of the repository's app_pages/_pages.py: the pages the wheel must serve."""
    sys.path.insert(0, str(ROOT))
    from app_pages._pages import PAGES

    return PAGES


@contextmanager
def running_app(environment: Path, elsewhere: Path):
    """``llrcore app`` on a free port, from `elsewhere`; yields its URL once its health check answers, stops it on
    leaving (SIGTERM: the command became the Streamlit server)."""
    port = free_port()
    log_path = elsewhere / "server.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen([environment / "bin" / "llrcore", "app", "--server.headless", "true",
                                   "--server.port", str(port), "--server.address", "127.0.0.1"],
                                  cwd=elsewhere, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, server, log_path)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, server: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise CheckFailed(f"the server stopped with status {server.returncode}: {tail(log_path)}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.5)
    raise CheckFailed(f"/_stcore/health did not answer within {SERVER_START_SECONDS} s: {tail(log_path)}")


def tail(log_path: Path) -> str:
    return " | ".join(log_path.read_text(errors="replace").strip().splitlines()[-5:])


def walk_pages(url: str, titles: list[str]) -> list[str]:
    """Open the app, check the sidebar lists every title, click each page and check it shows no exception."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(url)
        page.wait_for_selector(IDLE, timeout=90_000)
        navigation = page.get_by_test_id("stSidebarNav")
        # a link's text is its icon's name, then its title
        listed = [link.strip().splitlines()[-1] for link in navigation.get_by_role("link").all_inner_texts()]
        if missing := [title for title in titles if title not in listed]:
            raise CheckFailed(f"the sidebar lists {listed}, without {missing}")
        for title in titles:
            navigation.get_by_role("link", name=title, exact=True).click()
            wait_for_run(page)
            if page.get_by_test_id("stException").count():
                raise CheckFailed(f"the page {title!r} shows an exception: "
                                  f"{page.get_by_test_id('stException').first.inner_text()[:300]}")
        browser.close()
    return listed


def wait_for_run(page) -> None:
    """Wait for the run a click started to end; it may take a moment to start, or be over before it is seen."""
    try:
        page.wait_for_selector(RUNNING, timeout=2_000)
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(IDLE, timeout=90_000)


if __name__ == "__main__":
    sys.exit(main())
