"""A shared link opens its page directly, even as the very first request a freshly started server receives.

Streamlit treats a top-level folder named ``pages`` as the legacy multipage layout until ``st.navigation`` first
runs, so the page scripts live in ``app_pages/``; with a ``pages/`` folder, this first deep link showed a
"Page not found" dialog. The module-scoped ``fresh_app_url`` fixture starts a new server for this module, and the
test below is its first request.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def test_first_request_is_a_shared_teaching_link(page: Page, fresh_app_url):
    page.goto(f"{fresh_app_url}/bayes_decisions?prior=0.1&c_miss=10")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=90_000)
    expect(page.get_by_role("heading", name="Bayes decisions")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"Out of 100 trials at P\(target\) = 10 %, with a miss costing 10"))) \
        .to_be_visible(timeout=30_000)
    page.wait_for_timeout(1_000)  # the dialog, when it came, came just after the first run
    expect(page.get_by_text("Page not found")).to_have_count(0)
