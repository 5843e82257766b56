"""`lc.rescore_file` on text files writes, byte for byte, what its line-by-line rewrite wrote before it was vectorised
(issue 45): same fields, separators, line ends, digits, and the same sentences for files it refuses.

Independent reference: that line-by-line rewrite, kept test-only in tests/reference/rescore_lines.py (llrcore at
d6bdbf7), and its ``_format_llr`` for the column formatter (Python's ``format`` and ``decimal``); real score files
(ASVspoof 2019 LA ASV and CM scores, NIST BSSR1, in assets/) and the hand-made files of tests/data/formats.
"""
import gzip
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llrcore as lc
from llrcore.io.significant import format_column
from reference.rescore_lines import _format_llr, rewrite

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests" / "data" / "formats"
ASSETS = ROOT / "assets"
REAL = [ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.dev.gi.trl.scores.txt",
        ASSETS / "asvspoof2019_la_cm" / "ASVspoof2019.LA.cm.dev.scores.tsv.gz",
        ASSETS / "nist_bssr1" / "bssr1_face.tsv.gz"]
DIGITS = ["input", None, 1, 3, 6, 15, 17]


def affine(scores):
    return 0.287434 * scores + 2.06313


def _outcome(function, source, transform, digits):
    """What `function` returns, or the sentence it refuses the file with."""
    try:
        return function(source, transform, digits=digits)
    except (lc.LoadError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"


def assert_same_bytes(data: bytes, transform=affine, digits="input", name="scores.txt"):
    def named():
        buffer = io.BytesIO(data)
        buffer.name = name
        return buffer

    assert _outcome(lc.rescore_file, named(), transform, digits) == _outcome(rewrite, named(), transform, digits)


@pytest.mark.parametrize("digits", DIGITS)
@pytest.mark.parametrize("path", sorted(p for p in FORMATS.iterdir() if p.suffix != ".txt" or p.stem != "README"),
                         ids=lambda p: p.name)
def test_every_text_format_is_written_as_before(path, digits):
    assert_same_bytes(path.read_bytes(), digits=digits, name=path.name)


@pytest.mark.parametrize("digits", ["input", None, 4])
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_score_files_are_written_as_before(path, digits):
    """The ASV file is rewritten; the CM and BSSR1 files have several score columns: both refuse them alike."""
    assert_same_bytes(path.read_bytes(), digits=digits, name=path.name)


def test_a_file_of_more_lines_than_a_block_is_written_as_before():
    """ASVspoof 2019 LA's ASV eval scores: 102,579 lines, more than the 65,536 rows formatted and spliced at once."""
    path = ASSETS / "asvspoof2019_la" / "ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
    assert_same_bytes(path.read_bytes(), name=path.name)


def test_a_real_cm_system_gz_and_crlf_are_written_as_before():
    """One CM system of ASVspoof 2019 LA (its key column, one score column) gzip-compressed, and with CRLF line
    ends (both rewrites write LF)."""
    lines = gzip.decompress(REAL[1].read_bytes()).decode().splitlines()
    one = "\n".join("\t".join(line.split("\t")[:4]) for line in lines) + "\n"
    assert_same_bytes(gzip.compress(one.encode()), name="cm.tsv.gz")
    assert_same_bytes(one.replace("\n", "\r\n").encode(), digits=None, name="cm.tsv")


TIES = "1.01 t\n1.02 n\n1.02 t\n1.03 n\n-1000.5 t\n1.015 n\n"  # 3 digits tie 1001.01 and 1001.02
ODD_NUMBERS = "0 a\n-0 b\n-0.0 a\n0.000 b\n0e-3 a\n0.00E+2 b\n+1.5 a\n.5 b\n5. a\n1E+5 b\n2.50e-07 a\ninf b\n-Infinity a\n"


@pytest.mark.parametrize("digits", DIGITS)
@pytest.mark.parametrize("text, transform", [
    (TIES, lambda s: s + 1000),
    (ODD_NUMBERS, affine),
    (ODD_NUMBERS, np.negative),  # negative zeros
    ("1.5 a\n-2.25 b\n3 a\n", lambda s: s * 1e300),  # past 10^22: exponents of three digits, Python writes them
    ("1.5 a\n-2.25 b\n3 a\n", lambda s: s * 1e-300),
    ("1.5 a\n-2.25 b\n3 a\n", lambda s: s * 1e-12),  # positional with many zeros after the point
    ("5 a\n-7 b\n9.9996 a\n0.125 b\n2.5 a\n", lambda s: 1000 * s + 3),  # exponent where positional would claim more
    ("0.125 a\n0.375 b\n2.5 a\n-3.5 b\n", lambda s: s),  # exact halves: rounded half-even
    ("9.9996 a\n0.99996 b\n-999.96 a\n", lambda s: s),  # rounding carries into one more digit
    ("1 a\n2 b\n", lambda s: np.where(s > 1, np.inf, -np.inf)),
])
def test_adversarial_scores_are_written_as_before(text, transform, digits):
    assert_same_bytes(text.encode(), transform, digits)


@pytest.mark.parametrize("text, name", [
    ("score;label\n2,50;target\n-1,25;nontarget\n", "comma.csv"),  # decimal comma
    ('id,score\n"a, b",  "2.5"  \n"c",-1.25\n', "quoted.csv"),  # quotes and spaces kept around the field
    ("\ufeffspk1 utt1 1.5 target\r\n  spk2\tutt2   -0.25  nontarget  \r\n# note\r\n\r\nspk3 utt3 2 target", "x.txt"),
    ("müller  tëst 1.5 target\n\n\n# ß\nzoë\tutt 2.75 nontarget\n", "utf8.txt"),  # multibyte ids
    ("label\tscore\n1\t4.5\n0\t-2.25\n", "x.tsv"),  # a 0/1 label column is not the score
    ("model test score\n", "x.txt"),  # a header but no scores
    ("# only comments\n\n   \n", "x.txt"),
    ("a b 1.5\na b 2.5 c\n", "x.txt"),  # uneven columns
    ("1.5 2.5\n3.5 4.5\n", "x.txt"),  # two numeric columns: ambiguous
    ("x,y,z\n1.5,2.5,a\n3.5,4.5,b\n", "x.csv"),  # the same, with a header
    ("a nan\nb 1.5\n", "x.txt"),  # NaN score
    ("a b\nc d\n", "x.txt"),  # no numbers
    ("a 1.5\nb 2.5x\nc 3.5\n", "x.txt"),  # a column that stops being numeric
])
@pytest.mark.parametrize("digits", ["input", None, 2])
def test_layouts_and_refusals_are_as_before(text, name, digits):
    assert_same_bytes(text.encode("utf-8"), digits=digits, name=name)


def test_utf16_is_written_as_before():
    assert_same_bytes("spk1 utt1 1.5 target\nspk2 utt2 -0.25 nontarget\n".encode("utf-16"))


@st.composite
def score_files(draw):
    """Score files of random layout: separator, header, comments, padding, number spellings, line ends."""
    sep = draw(st.sampled_from([" ", "\t", ",", ";", " \t ", "|"]))
    scores = draw(st.lists(st.one_of(st.floats(allow_nan=False, width=64), st.integers(-10**6, 10**6),
                                     st.decimals(allow_nan=False, allow_infinity=False, places=draw(
                                         st.integers(0, 8)))), min_size=1, max_size=40))
    spelling = draw(st.sampled_from(["{!r}", "{!s}", "{:.3e}", "{:+}", "{:.17g}"]))
    lines = [draw(st.sampled_from(["", "# comment", f"id{sep}score{sep}label"]))]
    for i, score in enumerate(scores):
        try:
            token = spelling.format(score)
        except (ValueError, TypeError):
            token = str(score)
        pad = draw(st.sampled_from(["", " ", "  "])) if sep not in ("\t", " \t ") else ""
        lines.append(f"{pad}trial{i}{sep}{pad}{token}{pad}{sep}{'target' if i % 2 else 'nontarget'}")
        lines.extend(draw(st.sampled_from([[], [""], ["# note"]])))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from(["", end]))).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=score_files(), digits=st.sampled_from(DIGITS),
       transform=st.sampled_from([affine, np.negative, lambda s: s / 3, lambda s: np.round(s, 1), np.exp]))
def test_random_score_files_are_written_as_before(data, digits, transform):
    with np.errstate(over="ignore"):
        assert_same_bytes(data, transform, digits)


def test_the_column_formatter_writes_each_number_as_python_does():
    """`format_column` against `format_llr` (Python's format and decimal) on numbers of every size, every digit
    count, with and without an exponent: exact halves, carries, zeros, infinities."""
    rng = np.random.default_rng(45)
    n = 20_000
    values = np.concatenate([
        rng.normal(0, 5, n), rng.normal(0, 1, n) * 10.0 ** rng.integers(-40, 40, n),
        np.round(rng.normal(0, 50, n) * 10.0 ** (k := rng.integers(0, 6, n))) / 10.0 ** k,  # few digits, halves
        rng.integers(-1000, 1000, n) / 8,  # exact binary halves, quarters, eighths
        [0.0, -0.0, np.inf, -np.inf, 9.9996, 0.99996, 1e22, 1e23, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3],
    ])
    digits = rng.integers(0, 17, values.size)
    exponent = rng.random(values.size) < 0.3
    text, lengths = format_column(values, digits, exponent)
    written = [bytes(row[:length]).decode() for row, length in zip(text, lengths)]
    expected = [_format_llr(v, d, e, ".") for v, d, e in zip(values.tolist(), digits.tolist(), exponent.tolist())]
    assert written == expected
