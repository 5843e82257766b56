"""A reload of the browser tab keeps the session: its id in the address, its uploads and settings on the server.

Walked as a person does: upload a score file on the Data page, change the operating point on Evaluate (the SRE'08
preset), reload the tab; the upload is still listed, the numbers Evaluate shows are the same, the operating point is
kept, and a line says what was restored. A fresh address (no session id) starts afresh on the demo data, and a teaching
page's deep link keeps its settings beside the session id.

Independent references: the trial counts of the uploaded file follow from how the test writes it (40 targets, 160
non-targets); the effective prior log-odds of SRE'08 (P = 0.01, C_miss = 10, C_fa = 1) is
logit(0.01) + ln(10 / 1) = -4.595 + 2.303 = -2.293; the numbers after the reload are compared with the ones the same
page showed before it. The module's own server keeps its sessions in a folder of the test's
(``LLRCORE_SESSION_DIR``), where the test also finds the uploaded file's bytes.
"""
from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from test_browser import no_exception, open_page, snap, wait_for_charts, wait_idle

pytestmark = pytest.mark.e2e

SRE08 = re.compile(r"Effective prior log-odds \-2\.293")
RESTORED = ("Restored 1 uploaded file and your settings from this link (kept on this server for 24 hours after last "
            "use).")


@pytest.fixture(scope="module")
def session_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sessions")


@pytest.fixture(scope="module")
def app_env(session_dir) -> dict:
    return {"LLRCORE_SESSION_DIR": str(session_dir)}


def sid_of(page: Page) -> str | None:
    return parse_qs(urlparse(page.url).query).get("sid", [None])[0]


def query_of(page: Page) -> dict:
    return {key: values[0] for key, values in parse_qs(urlparse(page.url).query).items()}


def go_to(page: Page, name: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
    wait_idle(page)


def shown_numbers(page: Page) -> dict:
    """Evaluate's metric cards and the cells of its metrics table, as the page shows them."""
    wait_for_charts(page)
    return {"cards": page.get_by_test_id("stMetric").all_inner_texts(),
            "table": page.locator("td[role=gridcell]").all_text_contents()}


def test_a_reload_keeps_the_upload_and_the_operating_point(page: Page, fresh_app_url, session_dir, screenshots,
                                                           tmp_path):
    rng = np.random.default_rng(41)
    path = tmp_path / "kept_system.txt"
    path.write_text("".join(f"{s:.4f} target\n" for s in rng.normal(2, 1, 40))
                    + "".join(f"{s:.4f} nontarget\n" for s in rng.normal(-2, 1, 160)))
    open_page(page, f"{fresh_app_url}/data")
    sid = sid_of(page)
    assert sid and re.fullmatch(r"[A-Za-z0-9_-]{22}", sid), page.url
    note = page.get_by_text(re.compile("Kept on this server for 24 h after last use, under this tab's link"))
    expect(note).to_contain_text("do not share it if the data is confidential")
    page.locator(".st-key-score_uploads input[type=file]").set_input_files(path)
    expect(page.get_by_text("Added kept_system from kept_system.txt as evaluation.")).to_be_visible(timeout=30_000)
    wait_idle(page)
    assert (session_dir / sid / hashlib.sha256(path.read_bytes()).hexdigest()).read_bytes() == path.read_bytes()

    go_to(page, "Evaluate")
    assert sid_of(page) == sid  # a page switch clears the address's parameters: the app puts the id back
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name=re.compile("SRE'08")).click()
    expect(page.get_by_text(SRE08)).to_be_visible(timeout=30_000)
    wait_idle(page)
    expect(page.get_by_role("strong").filter(has_text=re.compile("^kept_system$"))).to_be_visible()  # its card
    before = shown_numbers(page)
    assert len(before["cards"]) == 3 * 3  # EER, actDCF, Cllr of the two demo evaluation sets and of the upload
    assert "kept_system" in before["table"]

    page.reload()
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=60_000)
    expect(page.get_by_text(RESTORED)).to_be_visible(timeout=30_000)
    assert sid_of(page) == sid
    expect(page.get_by_text(SRE08)).to_be_visible(timeout=30_000)
    expect(page.get_by_role("combobox", name="Preset")).to_have_value(re.compile("SRE'08"))
    assert shown_numbers(page) == before
    no_exception(page)
    snap(page, screenshots / "session_reloaded_evaluate.png")

    go_to(page, "Data")
    expect(page.get_by_role("textbox", name="System name").nth(3)).to_have_value("kept_system")
    expect(page.get_by_text(re.compile("40 target · 160 non-target"))).to_be_visible()
    expect(page.get_by_text("4 systems loaded — 3 evaluation, 1 development")).to_be_visible()
    snap(page, screenshots / "session_reloaded_data.png")


def test_a_fresh_address_starts_afresh_on_the_demo_data(page: Page, fresh_app_url):
    open_page(page, f"{fresh_app_url}/data")
    expect(page.get_by_text("3 systems loaded — 2 evaluation, 1 development")).to_be_visible()
    expect(page.get_by_text(re.compile("^Restored"))).to_have_count(0)
    expect(page.get_by_text("kept_system", exact=True)).to_have_count(0)
    go_to(page, "Evaluate")
    expect(page.get_by_text(re.compile(r"Effective prior log-odds \-4\.595"))).to_be_visible(timeout=30_000)


def test_a_teaching_deep_link_keeps_its_settings_beside_the_session_id(page: Page, fresh_app_url, screenshots):
    sentence = re.compile(r"Out of 100 trials at P\(target\) = 10 %, with a miss costing 10")
    open_page(page, f"{fresh_app_url}/bayes_decisions?prior=0.1&c_miss=10")
    expect(page.get_by_text(sentence)).to_be_visible(timeout=30_000)
    query = query_of(page)
    assert (query["prior"], query["c_miss"]) == ("0.1", "10") and query.get("sid"), page.url
    page.reload()
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=60_000)
    expect(page.get_by_text(sentence)).to_be_visible(timeout=30_000)
    assert query_of(page)["sid"] == query["sid"]
    no_exception(page)
    snap(page, screenshots / "session_bayes_deep_link.png")
