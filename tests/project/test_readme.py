"""Every Python example of README.md and docs/*.md runs as written, each page on its own as a reader pastes it; every
relative link of those pages resolves (file and #anchor); every command-line option they document exists; the
README stays a front door (at most 300 lines).

Independent references: the numbers the pages state in their comments (the Gaussian Cllr 0.3456 bits against the
approximation's 0.3600 at an EER of 10 %), recomputed here from their formulas (Cllr of calibrated Gaussian LLRs by
quadrature; ``1 - (2 EER - 1)^2``); the files the examples say they write; for the options, the ``--help`` text of
``llrcore <command>`` (argparse's own listing, not our documentation of it); for the anchors, GitHub's rule for a
heading's anchor (lower case, punctuation dropped, spaces to hyphens), which MyST's ``heading_anchors`` follows.

The files the pages call "your own" (``scores.csv``, ``lre.csv``, ``two_systems.tsv``, ``trials.scores`` with
``trials.key`` and ``trials_meta.csv``, ``dev.txt`` and ``eval.txt``) are made here from the demo data, in the
formats docs/formats.md describes. A block whose first line starts with :data:`NOT_RUN` is shown, not run (it needs
the network or a file too large to ship, and says so on that line); keep them few.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats
from paths import ROOT

#: The pages whose examples a reader runs: the front door and the user guide.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: The first line of a block that is shown and not run, followed by the reason.
NOT_RUN = "# not run by the tests:"
#: Pages whose examples export a figure through the system's Chromium.
NEEDS_CHROMIUM = {"reports.md"}
#: Files each page's examples say they write.
WRITES = {"README.md": ("report.html",), "binary.md": ("det.html",), "diarization.md": ("ES2005a.rttm",),
          "reports.md": ("report.html", "det.pdf"), "formats.md": ("scores.txt",), "forensic.md": ("validation.html",)}
#: What a page's examples print, as it says in their comments.
PRINTS = {"binary.md": "Out of 100 trials at P(target) = 1 %"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.S | re.M)


def code_blocks(page: Path, language: str = "python") -> list[str]:
    """The page's fenced blocks of one language, in order."""
    return [code for lang, code in FENCE.findall(page.read_text(encoding="utf-8")) if lang == language]


BLOCKS = [block for page in PAGES for block in code_blocks(page)]


def your_files(folder: Path) -> None:
    """The user's files the pages name: scores of the ASVspoof eval demo (scores and labels as they are); quality
    measures and multiclass LLRs drawn with fixed seeds."""
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


def run_examples(page: Path, folder: Path) -> dict:
    """Run the page's Python blocks in order in one namespace, in `folder` (the demo assets and your files)."""
    (folder / "assets").symlink_to(ROOT / "assets")
    your_files(folder)
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for number, block in enumerate(code_blocks(page), 1):
            if block.startswith(NOT_RUN):
                continue
            try:
                exec(compile(block, f"{page.name}, python example {number}", "exec"), namespace)
            except Exception as error:  # name the example that broke
                pytest.fail(f"{page.name} python example {number} failed: {type(error).__name__}: {error}\n{block}")
    for written in WRITES.get(page.name, ()):
        assert (folder / written).stat().st_size > 0, written
    return namespace


@pytest.fixture(scope="module")
def readme(tmp_path_factory) -> dict:
    """The README's examples, run once: their namespace."""
    return run_examples(ROOT / "README.md", tmp_path_factory.mktemp("readme"))


@pytest.mark.parametrize("page", [page for page in PAGES[1:] if code_blocks(page)], ids=lambda page: page.name)
def test_every_python_example_of_a_page_runs(page, tmp_path, capsys):
    if page.name in NEEDS_CHROMIUM and shutil.which("chromium") is None:
        pytest.skip("the page's example exports a PDF through Chromium")
    run_examples(page, tmp_path)
    assert PRINTS.get(page.name, "") in capsys.readouterr().out


def test_every_python_example_of_the_readme_runs(readme):
    assert {"lc", "trials", "tandem", "result", "temperature"} <= readme.keys()


def test_the_numbers_the_readme_states(readme):
    """The README's examples say what they give in their comments: each is the library's, to the digits shown."""
    text = "".join(code_blocks(ROOT / "README.md"))
    lc, trials = readme["lc"], readme["trials"]

    def stated(pattern: str) -> list[str]:
        return list(re.search(pattern, text).groups())

    assert stated(r"t-EER: ([\d.]+)") == [f"{readme['teer'].value:.4f}"]
    assert stated(r"min a-DCF: ([\d.]+)") == [f"{lc.a_dcf(trials.tar, trials.non, trials.spoof).minimum:.4f}"]
    der = lc.diarization_error_rate(readme["S"].reference_turns, readme["turns"], collar=0.25).der
    assert stated(r"\.der\)  # (\d+), ([\d.]+)") == [str(readme["result"].n_clusters), f"{der:.3f}"]
    assert stated(r"T = ([\d.]+)") == [f"{readme['temperature'].temperature:.3f}"]
    ece = [lc.binned_ece(readme["p"], readme["labels"]).ece,
           lc.binned_ece(readme["temperature"](readme["logits"]), readme["labels"]).ece]
    assert stated(r"# ([\d.]+) -> ([\d.]+)") == [f"{ece[0]:.3f}", f"{ece[1]:.4f}"]


def test_few_examples_are_left_out():
    """A block left out of the tests says why on its first line, and they stay exceptions."""
    left_out = [block for block in BLOCKS if block.startswith(NOT_RUN)]
    assert len(left_out) <= 3 and all(len(block.splitlines()[0]) > len(NOT_RUN) + 10 for block in left_out)


def test_the_gaussian_numbers_the_readme_states():
    """docs/teaching.md: ``lc.gaussian_cllr(mu), lc.cllr_eer_approximation(0.10)    # 0.3456 vs 0.3600 bits``."""
    import llrcore as lc

    stated = re.search(r"cllr_eer_approximation\(0\.10\)\s+# ([\d.]+) vs ([\d.]+) bits", "".join(BLOCKS))
    mu = 2 * stats.norm.ppf(0.10) ** 2  # EER = Phi(-sqrt(mu / 2))
    exact = integrate.quad(lambda x: np.logaddexp(0, -x) * stats.norm.pdf(x, mu, np.sqrt(2 * mu)),
                           -np.inf, np.inf)[0] / np.log(2)
    assert float(stated.group(1)) == pytest.approx(exact, abs=5e-5)
    assert float(stated.group(2)) == pytest.approx(1 - (2 * 0.10 - 1) ** 2, abs=5e-5)
    assert lc.gaussian_cllr(lc.mu_from_eer(0.10)) == pytest.approx(exact, rel=1e-9)


# --- the pages hold together: links, headings, the command line, the README's length ----------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`[^`]+`")  # a span may wrap to the next line


def prose(page: Path) -> str:
    """The page without its code: fenced blocks and inline code spans hold no links."""
    return INLINE_CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings by GitHub's rule: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page):
    broken = []
    for target in LINK.findall(prose(page)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not ours to check offline
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor in {linked.name}")
    assert not broken, f"{page.name}: {broken}"


#: Where ``sphinx-build`` writes the documentation site (docs/conf.py): the pages name it, no clone holds it.
SITE = "docs/_build/"
#: A path into the repository that a page names in its text (`tests/...py`, `bench/RESULTS.md`, `assets/...`).
REPOSITORY_PATH = re.compile(r"(?<![\w/.-])((?:tests|bench|tools|assets|llrcore|app_pages|docs)/[\w./-]*\w)")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_file_a_page_names_exists(page):
    """A test, benchmark or data file named in the text (not only linked) is where the page says."""
    named = {path.split("::")[0] for path in REPOSITORY_PATH.findall(page.read_text(encoding="utf-8"))}
    named = {path for path in named if not path.startswith(SITE)}
    assert not [path for path in sorted(named) if not (ROOT / path).exists()], page.name


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_one_title_per_page(page):
    """One H1 per file: the documentation site takes it as the page's title."""
    assert len(re.findall(r"^# ", FENCE.sub("", page.read_text(encoding="utf-8")), flags=re.M)) == 1


def test_every_page_of_docs_is_listed_in_its_index():
    listed = set(LINK.findall(prose(ROOT / "docs" / "index.md")))
    assert {page.name for page in (ROOT / "docs").glob("*.md")} - {"index.md"} <= listed


def test_the_readme_is_a_front_door():
    """Issue 42: at most 300 lines; the rest lives in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def documented_commands() -> list[tuple[str, str, str]]:
    """(page, command, options) of every ``llrcore COMMAND ...`` line of a bash block or inline code span."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        lines = [line for block in code_blocks(page, "bash") for line in block.replace("\\\n", " ").splitlines()]
        lines += [" ".join(span.strip("`").split()) for span in INLINE_CODE.findall(FENCE.sub("", text))]
        for line in lines:
            line = line.split("#")[0].strip()
            if match := re.match(r"(?:\S+=\S+ )*llrcore ([a-z]+)\b(.*)", line):
                found.append((page.name, match.group(1), match.group(2)))
    return found


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    """``llrcore <command> --help`` of every command, as the user sees it."""
    from contextlib import redirect_stdout
    from io import StringIO

    from llrcore.cli import COMMANDS, build_parser

    texts = {}
    for command in build_parser()._subparsers._group_actions[0].choices:
        out = StringIO()
        with redirect_stdout(out), pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        texts[command] = out.getvalue()
    assert len(texts) == len(COMMANDS)
    return texts


def test_every_documented_command_option_exists(helps):
    commands = documented_commands()
    assert {command for _, command, _ in commands} >= {"evaluate", "calibrate", "report", "tdcf", "sasv", "diarize"}
    unknown = []
    for page, command, options in commands:
        if command not in helps:
            unknown.append(f"{page}: llrcore {command} is no command")
            continue
        unknown += [f"{page}: llrcore {command} {option}" for option in re.findall(r"(?<![\w-])--?[a-z][\w-]*", options)
                    if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", helps[command])]
    assert not unknown, unknown


def test_every_option_of_the_command_line_page_exists(helps):
    """docs/cli.md's prose names options too (``--by COLUMN``, ``--digits all``): each is some command's."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    options = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text))
    everything = "\n".join(helps.values())
    assert not {option for option in options if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", everything)}
