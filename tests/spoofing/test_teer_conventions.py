"""The concurrent t-EER in the ASVspoof 5 organisers' conventions (``lc.t_eer(..., convention=...)``) and side by side
(``lc.t_eer_conventions``), on tied scores where they differ from ours.

Independent references:

1. The organisers' code, vendored test-only in ``tests/reference/asvspoof5_eval.py`` (MIT; provenance in its
   docstring): ``REF.t_eer`` is the t-EER paper's concurrent loop wrapped as the ASVspoof 5 evaluation package's
   ``compute_teer`` wraps it (its curves from a stable ``argsort`` that splits tie blocks), and
   ``REF.t_eer_accelerated`` that package's ``compute_teer_accelerated`` (its decimated coarse-then-fine search),
   written again step for step since its file carries no licence. Checked once by hand in a scratch folder against
   the package's own ``evaluation-package/calculate_modules.py`` (github.com/asvspoof-challenge/asvspoof5 at commit
   fe23d3053a0889b305d98c9e4cadf418c213d972, not copied): ``compute_teer`` equal to ``REF.t_eer`` bit for bit on
   600 random lists (the 150 seeds of the loop below, unrounded and rounded to 2, 1 and 0 decimals), and
   ``compute_teer_accelerated`` equal to ``REF.t_eer_accelerated`` on 18 lists of 3,000 to 9,000 trials a class
   (unrounded, 2 and 1 decimals).
2. The package's values on the full ASVspoof 2019 LA evaluation files (run by hand, see test_sasv_metrics.py):
   ``compute_teer_accelerated`` and, for two CMs, ``compute_teer``.
3. A worked example by hand (the one of docs/conventions.md, ``## t-EER``).
Real data: the ASVspoof 2019 LA development scores of ``tests/data`` (the organisers' ASV scores and the four CMs of
``S_dev.mat``), as they are and rounded to 0.01 and 0.1.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
import scipy.io

import llrcore as lc
from reference import vendored
from paths import ROOT

DATA = ROOT / "tests/data"
ASV_EVAL = ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt"
CM_EVAL = ROOT / "assets/asvspoof2019_la_cm/ASVspoof2019.LA.cm.eval.scores.tsv.gz"
ACCELERATED_PERCENT = {"LFCC-GMM": 3.7419191514603005, "RawNet2-a": 4.452085916709393,
                       "RawNet2-b": 4.277918387105277, "RawNet2-c": 4.841957006645266}
EXHAUSTIVE_PERCENT = {"LFCC-GMM": 3.7419191514603005, "RawNet2-a": 4.452085916709393}


REF = vendored("asvspoof5_eval")


def random_lists(seed: int, low: int = 2, high: int = 80) -> list[np.ndarray]:
    """CM bona fide, CM spoof, ASV target, non-target and spoof scores of random sizes and separations."""
    rng = np.random.default_rng(seed)
    sizes, shifts = rng.integers(low, high, 5), rng.uniform(-1, 4, 3)
    return [rng.normal(shifts[0], 1, sizes[0]), rng.normal(0, 1, sizes[1]), rng.normal(shifts[1], 1, sizes[2]),
            rng.normal(0, 1, sizes[3]), rng.normal(shifts[2], 1.5, sizes[4])]


@pytest.fixture(scope="module")
def dev_lists() -> dict[str, list[np.ndarray]]:
    """The five score lists of each of the four CMs of S_dev.mat with the organisers' ASV, development part."""
    asv = pd.read_csv(DATA / "asvspoof2019_la/ASVspoof2019.LA.asv.dev.gi.trl.scores.txt", sep=r"\s+", header=None,
                      names=["attack", "kind", "score"])
    asv_parts = [asv.score[asv.kind == kind].to_numpy() for kind in ("target", "nontarget", "spoof")]
    mat = scipy.io.loadmat(DATA / "asvspoof2019_la_cm/S_dev.mat")
    bonafide = mat["dev_labels"].ravel() == 1
    return {f"column {j}": [mat["S_dev"][bonafide, j], mat["S_dev"][~bonafide, j], *asv_parts] for j in range(4)}


# --- 1. bit for bit against the organisers' code ---------------------------------------------------------------------

@pytest.mark.parametrize("decimals", [None, 2, 1, 0])
def test_asvspoof5_is_compute_teer_on_random_tied_lists(decimals):
    differs = 0
    for seed in range(150):
        parts = [part if decimals is None else np.round(part, decimals) for part in random_lists(seed)]
        ours = lc.t_eer(*parts, convention="asvspoof5")
        assert 100 * ours.value == REF.t_eer(*parts)[0], seed
        assert ours.convention == "asvspoof5"
        differs += ours.value != lc.t_eer(*parts).value
    # unrounded scores have no ties: the conventions agree; rounded ones split tie blocks and they do not
    assert (differs == 0) if decimals is None else (differs > 10)


@pytest.mark.parametrize("decimals", [None, 2, 1])
def test_asvspoof5_is_compute_teer_on_the_real_development_scores(dev_lists, decimals):
    for name, parts in dev_lists.items():
        parts = [np.sort(part)[::6] if decimals is None else np.round(np.sort(part)[::6], decimals) for part in parts]
        assert 100 * lc.t_eer(*parts, convention="asvspoof5").value == REF.t_eer(*parts)[0], name


@pytest.mark.parametrize("decimals", [None, 2, 1])
def test_accelerated_is_compute_teer_accelerated_on_the_full_development_scores(dev_lists, decimals):
    # 24,844 CM and 29,548 ASV trials: both curves over 3,000 points, so the coarse search runs
    for name, parts in dev_lists.items():
        parts = [part if decimals is None else np.round(part, decimals) for part in parts]
        ours = lc.t_eer(*parts, convention="asvspoof5-accelerated")
        assert 100 * ours.value == REF.t_eer_accelerated(*parts), name
        assert ours.path_asv.size <= 2 * 1600  # the fine search's window


@pytest.mark.parametrize("seed", range(3))
def test_accelerated_is_compute_teer_accelerated_on_large_random_tied_lists(seed):
    for decimals in (2, 1):
        parts = [np.round(part, decimals) for part in random_lists(100 + seed, 3000, 6000)]
        assert 100 * lc.t_eer(*parts, convention="asvspoof5-accelerated").value == REF.t_eer_accelerated(*parts)


def test_accelerated_is_compute_teer_below_3000_trials():
    for seed in range(20):
        parts = [np.round(part, 1) for part in random_lists(seed)]
        exhaustive = lc.t_eer(*parts, convention="asvspoof5")
        assert lc.t_eer(*parts, convention="asvspoof5-accelerated").value == exhaustive.value


# --- 2. the package's values on the full evaluation files ------------------------------------------------------------

@pytest.fixture(scope="module")
def eval_files():
    return lc.read_trials(CM_EVAL), lc.read_trials(ASV_EVAL)


@pytest.mark.parametrize("system", list(ACCELERATED_PERCENT))
def test_conventions_on_the_full_evaluation_files_are_the_packages(eval_files, system):
    cms, asv = eval_files
    parts = (cms[system].tar, cms[system].non, asv.tar, asv.non, asv.spoof)
    accelerated = lc.t_eer(*parts, convention="asvspoof5-accelerated").value
    assert accelerated == pytest.approx(ACCELERATED_PERCENT[system] / 100, rel=1e-15)
    if system in EXHAUSTIVE_PERCENT:
        assert lc.t_eer(*parts, convention="asvspoof5").value == pytest.approx(
            EXHAUSTIVE_PERCENT[system] / 100, rel=1e-15)


# --- 3. the worked example of docs/conventions.md --------------------------------------------------------------------

EXAMPLE = ([1.0], [0.0, 1.0, 3.0], [4.0], [1.0], [0.0, 3.0])


@pytest.mark.filterwarnings("ignore:divide by zero")  # their loop's criterion at 1 - Pmiss_cm = 0
def test_worked_example_of_the_conventions_page():
    # CM bona fide [1], spoof [0, 1, 3]: a bona fide and a spoof tied at 1. (Pmiss_cm, Pfa_cm):
    #   ours at thresholds 0, 1, 3, inf: (0, 1), (0, 2/3), (1, 1/3), (1, 0);
    #   theirs, one point per trial in the order 0 (spoof), 1 (bona fide), 1 (spoof), 3 (spoof):
    #   (0, 1), (0, 2/3), (1, 2/3), (1, 1/3), (1, 0); (1, 2/3) rejects the tied bona fide, accepts the tied spoof.
    # ASV target [4], non-target [1], spoof [0, 3], no ties: (Pmiss, Pfa_non, Pfa_spoof) at 0: (0, 1, 1), at 1:
    #   (0, 1, 1/2), at 3: (0, 0, 1/2); a t-EER exists where Pmiss < (Pfa_non + Pfa_spoof) / 2: at these three.
    # gap = Pmiss_tdm - Pfa_tdm = Pmiss_cm - (1 - Pmiss_cm) Pfa_non / 2 - Pfa_cm Pfa_spoof / 2 (Pmiss_asv = 0):
    #   ASV 0: ours -1, -5/6, 5/6, 1: |gap| smallest at (0, 2/3) (first of the tie, as argmin);
    #     criterion |Pfa_non/Pfa_spoof - Pfa_cm/(1 - Pmiss_cm)| = |1 - 2/3| = 1/3.
    #     theirs: the split point (1, 2/3) has gap 1 - 1/3 = 2/3, the smallest: criterion |1 - (2/3)/0| = inf.
    #   ASV 1: both (0, 2/3) (gap -2/3 against 5/6 and 11/12): criterion |2 - 2/3| = 4/3.
    #   ASV 3: both (0, 2/3) (gap -1/6): criterion |0 - 2/3| = 2/3.
    # Ours: the crossing at ASV 0, t-EER = Pfa_spoof Pfa_cm = 1 * 2/3. Theirs: at ASV 3, 1/2 * 2/3 = 1/3.
    ours, theirs = lc.t_eer(*EXAMPLE), lc.t_eer(*EXAMPLE, convention="asvspoof5")
    assert ours.value == pytest.approx(2 / 3, abs=1e-15) and theirs.value == pytest.approx(1 / 3, abs=1e-15)
    assert (ours.asv_threshold, ours.cm_threshold) == (0.0, 1.0)
    assert (theirs.asv_threshold, theirs.cm_threshold) == (1.0, 0.0)  # their thresholds: highest rejected scores
    assert REF.t_eer(*(np.array(part) for part in EXAMPLE))[0] == pytest.approx(100 / 3, abs=1e-13)
    assert lc.t_eer(*EXAMPLE, convention="asvspoof5-accelerated").value == theirs.value


def test_conventions_table_side_by_side():
    table = lc.t_eer_conventions(*EXAMPLE)
    assert list(table["convention"]) == ["llrcore", "asvspoof5", "asvspoof5-accelerated"]
    assert list(table.columns) == ["convention", "tool", "t-EER %", "CM threshold", "ASV threshold", "why"]
    assert table["t-EER %"].tolist() == pytest.approx([200 / 3, 100 / 3, 100 / 3], abs=1e-12)
    assert table.loc[1, "tool"] == "ASVspoof 5 compute_teer"
    assert "splits each block of tied scores" in table.loc[1, "why"]
    assert all(table["why"].str.len() > 40)


# --- 4. the default and the refusals ---------------------------------------------------------------------------------

def test_default_stays_ours_and_the_convention_is_keyword_only():
    assert lc.t_eer(*EXAMPLE).convention == "llrcore"
    with pytest.raises(TypeError):
        lc.t_eer(*EXAMPLE, "asvspoof5")
    with pytest.raises(ValueError, match="Unknown t-EER convention 'asvspoof2019'"):
        lc.t_eer(*EXAMPLE, convention="asvspoof2019")


def test_sasv_table_takes_the_convention_per_attack():
    """Each row of lc.sasv_table is lc.t_eer of that row's own trials in the convention asked for."""
    rng = np.random.default_rng(4)
    attacks = np.repeat(["A1", "A2"], 60)
    cm = lc.Trials(np.round(rng.normal(2, 1, 80), 1), np.round(rng.normal(0, 1, 120), 1),
                   metadata=pd.DataFrame({"attack": np.concatenate([["-"] * 80, attacks])}))
    asv = lc.Trials(np.round(rng.normal(3, 1, 50), 1), np.round(rng.normal(0, 1, 70), 1),
                    spoof=np.round(rng.normal(1.5, 1.5, 120), 1),
                    metadata=pd.DataFrame({"attack": np.concatenate([["bonafide"] * 120, attacks])}))
    evaluation = lc.evaluate_tandem(cm, asv, by="attack")
    for convention in lc.TEER_CONVENTIONS:
        table = lc.sasv_table(evaluation, teer_convention=convention).set_index("attack")
        for row in evaluation.rows:
            expected = lc.t_eer(row.cm_trials.tar, row.cm_trials.non, row.asv_trials.tar, row.asv_trials.non,
                                row.asv_trials.spoof, convention=convention).value
            assert table.loc[row.attack, "t-EER %"] == 100 * expected
    ours, theirs = (lc.sasv_table(evaluation, teer_convention=c)["t-EER %"] for c in ("llrcore", "asvspoof5"))
    assert (ours != theirs).any()


def test_tandem_conventions_table_is_each_cms_pooled_t_eer_in_every_convention(dev_lists):
    asv = lc.Trials(dev_lists["column 0"][2], dev_lists["column 0"][3], spoof=dev_lists["column 0"][4])
    results = {name: lc.evaluate_tandem(lc.Trials(np.round(parts[0], 1), np.round(parts[1], 1)), asv, by=None)
               for name, parts in list(dev_lists.items())[:2]}
    table = lc.tandem_teer_conventions(results).set_index("system")
    tools = {"llrcore": "llrcore (default)", "asvspoof5": "ASVspoof 5 compute_teer",
             "asvspoof5-accelerated": "ASVspoof 5 compute_teer_accelerated"}
    assert list(table.columns) == list(tools.values()) and list(table.index) == list(results)
    for name in results:
        parts = [np.round(part, 1) for part in dev_lists[name][:2]] + dev_lists[name][2:]
        for convention, tool in tools.items():
            assert table.loc[name, tool] == 100 * lc.t_eer(*parts, convention=convention).value
    assert (table[tools["llrcore"]] != table[tools["asvspoof5"]]).any()  # rounded CM scores: tie blocks split


def test_conventions_page_example():
    """The code block of docs/conventions.md's ``## t-EER`` section runs, and each line's comment is its value."""
    text = (ROOT / "docs/conventions.md").read_text()
    section = text[text.index("## t-EER"):]
    section = section[:section.index("\n## ")] if "\n## " in section else section
    code = section[section.index("```python") + len("```python"):section.index("```", section.index("```python") + 3)]
    namespace: dict = {}
    checked = 0
    for line in code.strip().splitlines():
        statement, _, comment = line.partition("#")
        if statement.strip().startswith(("import", "example")):
            exec(statement, namespace)
        elif statement.strip():
            value = np.atleast_1d(eval(statement, namespace))
            expected = [float(number) for number in comment.split(",")]
            np.testing.assert_allclose(value, expected, atol=5e-5)
            checked += 1
    assert checked == 3
    assert "**66.67 %**" in section and "**33.33 %**" in section
    assert 100 * lc.t_eer(*EXAMPLE).value == pytest.approx(66.67, abs=0.005)


@pytest.mark.parametrize("seed", range(20))
def test_infinite_scores_are_operating_points(seed):
    """A tenth of each list made -inf and a tenth +inf: in ASVspoof 5's convention the organisers' loop, which takes
    them as they are; in ours the t-EER of the same lists with large finite stand-ins (the same operating points)."""
    rng = np.random.default_rng(seed)
    parts = []
    for part in random_lists(seed, 20, 80):
        part = np.round(part, 1)
        part[rng.permutation(part.size)[:part.size // 5]] = np.repeat([-np.inf, np.inf], part.size // 10 + 1)[
            :part.size // 5]
        parts.append(part)
    stand_ins = [np.clip(part, -1e300, 1e300) for part in parts]
    with np.errstate(invalid="ignore", divide="ignore"):
        assert 100 * lc.t_eer(*parts, convention="asvspoof5").value == REF.t_eer(*parts)[0]
    assert lc.t_eer(*parts).value == lc.t_eer(*stand_ins).value
    assert lc.t_eer(*parts, convention="asvspoof5").value == lc.t_eer(*stand_ins, convention="asvspoof5").value
