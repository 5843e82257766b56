"""The README's Python examples run as written, one after the other, as a reader would paste them.

Independent references: the numbers the README states in its comments (the Gaussian Cllr 0.3456 bits against the
approximation's 0.3600 at an EER of 10 %), recomputed here from their formulas (Cllr of calibrated Gaussian LLRs by
quadrature; ``1 - (2 EER - 1)^2``), and the files the examples say they write.

The files the README calls "your own" (``scores.csv``, ``lre.csv``, ``two_systems.tsv``, ``trials.scores`` with
``trials.key`` and ``trials_meta.csv``) are made here from the demo data, in the formats the README's table of
formats describes.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats
from paths import ROOT

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)


def your_files(folder: Path) -> None:
    """The user's files the README names, from the ASVspoof eval demo (scores and labels as they are)."""
    import llrcore as lc

    trials = lc.read_trials(ROOT / "assets/asvspoof2019_la/ASVspoof2019.LA.asv.eval.gi.trl.scores.txt")
    rng = np.random.default_rng(0)
    tar, non = rng.choice(trials.tar, 300, replace=False), rng.choice(trials.non, 3000, replace=False)
    rows = [(s, "target") for s in tar] + [(s, "nontarget") for s in non]
    (folder / "scores.csv").write_text("score,label\n" + "".join(f"{s:.5f},{label}\n" for s, label in rows))
    (folder / "two_systems.tsv").write_text("label\tsysA\tsysB\n" + "".join(
        f"{label}\t{s:.5f}\t{s + rng.normal(0, 3):.5f}\n" for s, label in rows))
    (folder / "trials.scores").write_text("".join(f"m{i // 40} t{i} {s:.5f}\n" for i, (s, _) in enumerate(rows)))
    (folder / "trials.key").write_text("".join(f"m{i // 40} t{i} {label}\n" for i, (_, label) in enumerate(rows)))
    models = sorted({f"m{i // 40}" for i in range(len(rows))})
    (folder / "trials_meta.csv").write_text("model,gender\n" + "".join(f"{m},{'fm'[k % 2]}\n"
                                                                       for k, m in enumerate(models)))
    for name, seed in (("dev.txt", 1), ("eval.txt", 2)):  # quality measures: scores shifted by 0.06 x duration
        draw = np.random.default_rng(seed)
        label = draw.random(4000) < 0.1
        llr = np.where(label, draw.normal(4, np.sqrt(8), 4000), draw.normal(-4, np.sqrt(8), 4000))
        enrol, test = draw.uniform(2, 20, 4000), draw.uniform(2, 20, 4000)
        (folder / name).write_text("model test score label duration snr dur_enrol dur_test\n" + "".join(
            f"m{i % 50} t{i} {l + 0.06 * t:.5f} {'target' if y else 'nontarget'} {t:.2f} {draw.normal(15, 5):.2f} "
            f"{e:.2f} {t:.2f}\n" for i, (l, y, e, t) in enumerate(zip(llr, label, enrol, test))))
    classes = ["eng", "fra", "deu"]
    labels = rng.integers(0, 3, 600)
    llrs = rng.normal(0, 1, (600, 3)) + 2.5 * np.eye(3)[labels]
    (folder / "lre.csv").write_text(",".join(classes) + ",label\n" + "".join(
        ",".join(f"{v:.4f}" for v in row) + f",{classes[label]}\n" for row, label in zip(llrs, labels)))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="the report example exports a PDF through Chromium")
def test_every_python_example_of_the_readme_runs(tmp_path, monkeypatch, capsys):
    assert len(BLOCKS) >= 6
    (tmp_path / "assets").symlink_to(ROOT / "assets")
    your_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for number, block in enumerate(BLOCKS, 1):
        try:
            exec(compile(block, f"README.md, python example {number}", "exec"), namespace)
        except Exception as error:  # name the example that broke
            pytest.fail(f"README python example {number} failed: {type(error).__name__}: {error}\n{block}")
    for written in ("det.html", "ES2005a.rttm", "report.html", "det.pdf", "scores.txt"):
        assert (tmp_path / written).stat().st_size > 0, written
    assert "Out of 100 trials at P(target) = 1 %" in capsys.readouterr().out


def test_the_gaussian_numbers_the_readme_states():
    """``lc.gaussian_cllr(mu), lc.cllr_eer_approximation(0.10)    # 0.3456 vs 0.3600 bits``."""
    import llrcore as lc

    stated = re.search(r"cllr_eer_approximation\(0\.10\)\s+# ([\d.]+) vs ([\d.]+) bits", "".join(BLOCKS))
    mu = 2 * stats.norm.ppf(0.10) ** 2  # EER = Phi(-sqrt(mu / 2))
    exact = integrate.quad(lambda x: np.logaddexp(0, -x) * stats.norm.pdf(x, mu, np.sqrt(2 * mu)),
                           -np.inf, np.inf)[0] / np.log(2)
    assert float(stated.group(1)) == pytest.approx(exact, abs=5e-5)
    assert float(stated.group(2)) == pytest.approx(1 - (2 * 0.10 - 1) ** 2, abs=5e-5)
    assert lc.gaussian_cllr(lc.mu_from_eer(0.10)) == pytest.approx(exact, rel=1e-9)
