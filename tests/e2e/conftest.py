"""Fixtures of the browser tests: Debian's Chromium for Playwright and the app running on a free port.

Playwright launches the system browser (never ``playwright install``), the app is started
once per test process with ``python -m streamlit run`` and polled on ``/_stcore/health`` (``fresh_app_url``: once
per module, for tests of a new server's first request).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
SERVER_LOGS: dict[str, Path] = {}  # a running app's URL -> its server's log (stdout and stderr)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if shutil.which("chromium") is None:  # only reached when LLRCORE_REQUIRE_BROWSER kept the tests from skipping
        pytest.fail(BROWSER_REQUIRED, pytrace=False)
    return {
        **browser_type_launch_args,
        "executable_path": shutil.which("chromium"),
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--process-per-site",
                 f"--disable-features={','.join(DISABLED_FEATURES)}", JS_FLAGS],
    }


# V8's optimising compilers (Maglev, TurboFan) compile the app's scripts again in every tab, which lives a few seconds:
# baseline code alone costs the renderer about 8 % less CPU in the browser tests (10 tests: 50.5 CPU-s with both off,
# 51.6-51.9 with TurboFan off, 55.7-56.0 with both on; the interpreter alone, --lite-mode, 72.5). The pages do the same.
JS_FLAGS = "--js-flags=--no-opt --no-maglev"


# Chromium 156 preloads its address bar's popups as web pages in every window, one more renderer per browser context
# (about 0.5 CPU-s a test, a tenth of Chromium's work in the suite): a headless test never types in an address bar.
NO_OMNIBOX_POPUPS = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]
# In the renderer every tab shares (worker_context), V8 finds each of the app's scripts already compiled; streaming
# them to a background thread would parse all 124 of them again first (Chromium 1.46 -> 1.26 CPU-s a page load).
NO_SCRIPT_STREAMING = ["ScriptStreaming"]
# A second --disable-features replaces Playwright's own (playwright-core, chromiumSwitches.ts), so it is repeated here.
PLAYWRIGHT_DISABLED_FEATURES = [
    "AimEnabled", "AvoidCorsURLLoaderRestartOnRedirect", "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose", "HttpsFirstBalancedModeAutoEnable", "HttpsUpgrades", "LensOverlay", "MediaRouter",
    "NetworkTimeServiceQuerying", "OptimizationHints", "PaintHolding", "PreconnectToSearch", "TcpPortRandomizationWin",
    "ThirdPartyStoragePartitioning"]
DISABLED_FEATURES = PLAYWRIGHT_DISABLED_FEATURES + NO_OMNIBOX_POPUPS + NO_SCRIPT_STREAMING


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """A 1600 x 1000 window that asks for reduced motion, as a person may (``prefers-reduced-motion``): Streamlit and
    plotly then skip their animations, which made Chromium's compositor draw frames that no test looks at (about 30 %
    of its GPU process's CPU; tests/e2e/test_widths.py checks the layout at other widths)."""
    return {**browser_context_args, "viewport": {"width": 1600, "height": 1000}, "accept_downloads": True,
            "reduced_motion": "reduce"}


@pytest.fixture(scope="session")
def worker_context(browser, browser_context_args, app_url):
    """One browser context per test process (pytest-xdist worker), in which every test opens a tab of its own.

    A tab is a Streamlit session of its own (the app keeps its session id in the address, nothing in cookies or the
    browser's storage), and the context's cache keeps the app's scripts between tests: a new context per test cost
    Chromium's browser and utility processes about 7 % more CPU (23 browser tests: 153 -> 142 CPU-s in all).

    One tab stays open on the app's site (its health check, no session) for the whole run: with
    ``--process-per-site`` every test's tab then joins the same living renderer, whose V8 keeps the app's compiled
    scripts. A renderer of its own per tab compiled and evaluated the 124 script modules afresh at every page load
    (Chromium's disk code cache is never consumed in a Playwright context): 2.46 -> 1.49 CPU-s of Chromium a load of
    the Evaluate page."""
    context = browser.new_context(**browser_context_args)
    keep_renderer = context.new_page()
    keep_renderer.goto(f"{app_url}/_stcore/health")
    yield context
    context.close()


@pytest.fixture
def page(worker_context):
    """A new tab of the worker's context, counting the app's script runs for ``wait_idle``
    (``test_browser.RUN_COUNTER``); closed after the test."""
    from test_browser import RUN_COUNTER

    page = worker_context.new_page()
    page.add_init_script(RUN_COUNTER)
    yield page
    page.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _running_app(tmp_path_factory, env: dict | None = None):
    """Run ``streamlit run app.py`` on a free port (with the variables `env` added to its environment) and yield its
    URL; stop it on leaving."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
               f"--server.port={port}", "--server.address=127.0.0.1", "--server.fileWatcherType=none",
               "--browser.gatherUsageStats=false"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    url = f"http://127.0.0.1:{port}"
    SERVER_LOGS[url] = log_path
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().decode().strip() == "ok" and process.poll() is None:
                        break  # our server answered (not another worker's that took the port first)
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The app's URL: one server per test process (per pytest-xdist worker), shared by its browser tests.

    Sharing is safe because every test opens its own tab, hence its own Streamlit session (its data,
    widgets and uploads); a server start costs seconds, once per process instead of once per module."""
    with _running_app(tmp_path_factory) as url:
        yield url


@pytest.fixture
def server_log(app_url) -> Path:
    """The log of the shared server (``app_url``): a test reads what its own walk added, from the size it had before
    (tests of one process run one after the other)."""
    return SERVER_LOGS[app_url]


@pytest.fixture(scope="module")
def app_env() -> dict:
    """Environment variables of the module's own server (``fresh_app_url``): a module overrides this fixture to start
    it with e.g. a memory limit."""
    return {}


@pytest.fixture(scope="module")
def fresh_app_url(tmp_path_factory, app_env):
    """A server of the module's own, for tests of what a freshly started server does with its first request (or of a
    server started with the module's ``app_env``)."""
    with _running_app(tmp_path_factory, app_env) as url:
        yield url


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS


BROWSER_MISSING = "Debian's chromium is not installed (apt-get install -y chromium)"
BROWSER_REQUIRED = "LLRCORE_REQUIRE_BROWSER is set but Debian's chromium is not installed."


def pytest_collection_modifyitems(config, items):
    """Without the system Chromium the browser tests are skipped, or fail where CI requires them (it sets
    LLRCORE_REQUIRE_BROWSER: a missing browser must not quietly hide the pages).

    They fail one by one rather than stop the run: under pytest-xdist this hook runs in every worker, where a
    usage error would end the worker with an internal error instead of a sentence."""
    if shutil.which("chromium") is not None:
        return
    here = Path(__file__).resolve().parent
    browser_tests = [item for item in items if here in Path(str(item.fspath)).resolve().parents]
    if os.environ.get("LLRCORE_REQUIRE_BROWSER"):
        return  # they run, and browser_type_launch_args fails each of them with BROWSER_REQUIRED
    for item in browser_tests:
        item.add_marker(pytest.mark.skip(reason=BROWSER_MISSING))
