"""A written report says when it was written, not when it was computed: the HTML report and the forensic validation
report, on the page, in a file, and at a time given.

Independent references: this test's clock, and fixed datetimes for the time of writing.
"""
from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

import numpy as np

import llrcore as lc
from llrcore.report.validation import build_validation_report
from synthetic import ordinary, quiet


def made_on(page: str) -> list[str]:
    return re.findall(r"[Mm]ade with llrcore \S+ on (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", page)


def test_a_report_written_later_says_when_it_was_written_not_when_it_was_computed():
    rng = np.random.default_rng(0)
    report = lc.build_report({"s": lc.Trials(rng.normal(2, 2, 200), rng.normal(-2, 2, 2000))}, calibrate=False)
    long_ago = datetime(2001, 2, 3, 4, 5, tzinfo=UTC)
    cached = dataclasses.replace(report, created=long_ago)  # a report built long before its download
    before = datetime.now(UTC).astimezone().replace(microsecond=0)
    stamps = made_on(cached.to_html())
    after = datetime.now(UTC).astimezone()
    assert len(stamps) == 2 and "2001-02-03 04:05:00" not in stamps
    for stamp in stamps:
        written = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=after.tzinfo)
        assert before <= written <= after
    given = datetime(2030, 6, 7, 8, 9, tzinfo=UTC)
    assert made_on(cached.to_html(written=given)) == ["2030-06-07 08:09:00"] * 2


def test_validation_report_stamps_the_time_of_writing(monkeypatch, tmp_path):
    report = quiet(build_validation_report, lc.Trials(*ordinary(), name="A"), calibrate=None)
    later = datetime(2031, 5, 6, 7, 8, tzinfo=UTC)
    assert "2031-05-06 07:08:00 UTC" in report.to_html(written=later)
    monkeypatch.setattr("llrcore.report.validation.writing_time", lambda: later)
    assert "2031-05-06 07:08:00 UTC" in report.html
    report.write(tmp_path / "v.html")
    assert "2031-05-06 07:08:00 UTC" in (tmp_path / "v.html").read_text(encoding="utf-8")
    assert report.created.strftime("%Y-%m-%d %H:%M:%S") not in report.to_html(written=later)
