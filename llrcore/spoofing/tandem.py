"""A spoofing countermeasure (CM) and a speaker verifier (ASV) evaluated together, pooled and per attack.

:func:`evaluate_tandem` gathers what an ASVspoof-style results table reports for one CM in front of one ASV:

- the normalised minimum t-DCF (:func:`~llrcore.spoofing.tdcf`, revised or legacy formulation) with its curve;
- the CM's EER, bona fide against spoofed trials (:func:`~llrcore.eer`, ROCCH-EER);
- the ASV's EER, targets against zero-effort non-targets, and its SPF-EER, targets against spoofing attacks
  (both ROCCH-EER; the organisers' ``compute_eer`` differs where the ROC is not convex, see :mod:`llrcore.spoofing.tdcf`);
- the ASV's spoof false-alarm rate at its threshold (:func:`~llrcore.spoof_false_alarm_rate`): the share of attacks
  the ASV alone would accept;
- the same per attack (one row per attack and a pooled row, :meth:`TandemEvaluation.to_frame`).

Per attack, as in the ASVspoof 2019 and 2021 result tables (Wang et al., "ASVspoof 2019: a large-scale public
database of synthesized, converted and replayed speech", CSL 64, 2020; Liu et al., "ASVspoof 2021: towards spoofed and
deepfake speech detection in the wild", IEEE/ACM TASLP 31, 2023), every bona fide trial is kept and only the spoofs
of that attack are: the CM's bona fide scores against its spoofs of the attack (CM EER, min t-DCF), and the ASV's
target and non-target scores with its spoofs of the attack (spoof false-alarm rate, SPF-EER, the t-DCF's ASV spoof
rate). **The ASV threshold is the pooled one** for every attack: the ASV is one fixed system whose threshold is set
once (by default at its target/non-target EER point, :func:`~llrcore.asv_eer_threshold`, which does not depend on
spoofs anyway); only the share of the attack's spoofs it accepts changes from row to row. The CM threshold is free:
each row's min t-DCF is the minimum over the CM thresholds for that attack, as the published tables report.

Each trial's attack comes from a metadata column (``by``, default ``"attack"``) of both score files: the CM's
spoofed (non-target) trials and the ASV's spoof trials must name the same attacks. The CM's bona fide trials need no
value there ("-" in the ASVspoof protocols). A row is flagged ``too few errors`` by the rule of 30
(:data:`~llrcore.uncertainty.conditions.RULE_OF_30`, as :mod:`llrcore.uncertainty.conditions` does): fewer than 30 CM misses or false alarms
at the CM's EER, so its CM error rates are not known to within ±30 %. Strong CMs have such rows: the per-attack
EERs of 0.01 % on 4,914 spoofs rest on less than one error.

Confidence intervals, pooled and per attack (:meth:`TandemEvaluation.bootstrap`, :func:`bootstrap_tandem`): each
row's min t-DCF interval is :func:`~llrcore.bootstrap_tdcf` (:mod:`llrcore.spoofing.tdcf_bootstrap`) on that row's trials,
the very subsets the row was computed on (:attr:`AttackRow.cm_trials`, :attr:`AttackRow.asv_trials`). It draws the
CM's and the ASV's trials apart (the organisers' ASV file has no trial ids to pair them) and keeps the ASV threshold,
here the pooled one of every row, in every replicate; the CM threshold is free in each replicate. The CM EER's
interval (``cm_eer=True``) is :func:`~llrcore.bootstrap` on the row's CM trials. Both are BCa intervals (Efron 1987;
:mod:`llrcore.uncertainty.intervals`); every row draws with the same seed, so the pooled
row's min t-DCF interval is that of ``bootstrap_tdcf(cm, asv, seed=seed)``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._format import listed
from ..binary.metrics import eer
from ..binary.tables import METHOD_COLUMN
from ..data.trials import Trials, condition_codes
from ..uncertainty.conditions import RULE_OF_30
from ..uncertainty.intervals import DEFAULT_METHOD, check_method, interval_words
from ..uncertainty.resampling import BootstrapResult, Progress, bootstrap
from .tdcf import TandemDCF, asv_eer_threshold, spoof_false_alarm_rate, tdcf
from .tdcf_bootstrap import TandemBootstrap, bootstrap_tdcf

__all__ = ["AttackRow", "TandemEvaluation", "TandemIntervals", "bootstrap_tandem", "evaluate_tandem", "tandem_table"]

POOLED = "pooled"
#: How a refusal says the way round it (the command line says it with its own option).
NO_ATTACKS = "by=None: the pooled numbers only"


@dataclass(frozen=True, eq=False)
class AttackRow:
    """The tandem on one attack's spoofs (all bona fide trials kept), or on all of them (``attack == "pooled"``).

    Attributes
    ----------
    attack : str
    tdcf : TandemDCF or None
        The t-DCF with the CM's and the ASV's spoofs of this attack and the pooled ASV threshold; None when it has
        no meaning (the ASV accepts none of the attack's spoofs in the legacy formulation: see :attr:`problem`).
    cm_eer : float
        The CM's EER, bona fide against this attack's spoofs (ROCCH-EER, a fraction).
    spoof_false_alarm : float
        The share of this attack's spoofs that the ASV accepts at its threshold.
    spf_eer : float
        The ASV's EER, targets against this attack's spoofs (ROCCH-EER, a fraction).
    n_bonafide, n_spoof_cm, n_spoof_asv : int
        The CM's bona fide and spoofed trials, the ASV's spoof trials.
    cm_trials : Trials
        The CM's trials of this row: all bona fide trials (targets) and this attack's spoofs (non-targets); for an
        attack, scores only (no metadata).
    asv_trials : Trials
        The ASV's trials of this row: all its targets and non-targets, and its spoofs of this attack.
    problem : str
        Why :attr:`tdcf` is None, else ``""``.
    """

    attack: str
    tdcf: TandemDCF | None
    cm_eer: float
    spoof_false_alarm: float
    spf_eer: float
    n_bonafide: int
    n_spoof_cm: int
    n_spoof_asv: int
    cm_trials: Trials = field(repr=False)
    asv_trials: Trials = field(repr=False)
    problem: str = ""

    @property
    def min_tdcf(self) -> float:
        """The normalised minimum t-DCF (NaN when it has no meaning)."""
        return np.nan if self.tdcf is None else self.tdcf.minimum

    @property
    def errors_at_eer(self) -> tuple[float, float]:
        """The CM's misses and false alarms at its EER point (``EER × N``)."""
        return self.cm_eer * self.n_bonafide, self.cm_eer * self.n_spoof_cm

    @property
    def too_few_errors(self) -> bool:
        """Fewer than :data:`~llrcore.uncertainty.conditions.RULE_OF_30` CM misses or false alarms at the CM's EER."""
        return min(self.errors_at_eer) < RULE_OF_30

    def record(self, *, percent: bool = True) -> dict:
        """The attack's row of :meth:`TandemEvaluation.to_frame`."""
        scale, unit = (100.0, " %") if percent else (1.0, "")
        return {
            "attack": self.attack, "bona fide": self.n_bonafide, "spoof (CM)": self.n_spoof_cm,
            "spoof (ASV)": self.n_spoof_asv, f"CM EER{unit}": scale * self.cm_eer, "min t-DCF": self.min_tdcf,
            f"ASV spoof FA{unit}": scale * self.spoof_false_alarm, f"SPF-EER{unit}": scale * self.spf_eer,
            "CM threshold": np.nan if self.tdcf is None else self.tdcf.threshold,
            "too few errors": self.too_few_errors,
        }

    def to_frame(self, *, percent: bool = True) -> pd.DataFrame:
        """One row: :meth:`record`."""
        return pd.DataFrame([self.record(percent=percent)])


@dataclass(frozen=True, eq=False)
class TandemEvaluation:
    """A countermeasure in tandem with a speaker verifier (see :func:`evaluate_tandem`).

    Attributes
    ----------
    name : str
        The CM system's name.
    formulation : str
        ``"revised"`` or ``"legacy"`` t-DCF.
    pooled : AttackRow
        All spoofs together: ``pooled.tdcf`` is the t-DCF of :func:`~llrcore.spoofing.tdcf` on all the trials.
    attacks : tuple of AttackRow
        One per attack, in natural order (A07 before A10); empty without ``by``.
    asv_eer : float
        The ASV's EER, targets against non-targets (ROCCH-EER, a fraction).
    asv_threshold : float
        The ASV threshold of every row (accept when ``score >= asv_threshold``).
    by : str or None
        The metadata column the attacks were read from.
    """

    name: str
    formulation: str
    pooled: AttackRow
    attacks: tuple[AttackRow, ...] = field(repr=False)
    asv_eer: float
    asv_threshold: float
    by: str | None = "attack"

    @property
    def tdcf(self) -> TandemDCF:
        """The pooled :class:`~llrcore.TandemDCF` (curve, minimum, thresholds, ASV rates)."""
        tdcf = self.pooled.tdcf
        assert tdcf is not None  # (the ASV's spoof trials are all the pooled row's: evaluate_tandem checks them)
        return tdcf

    @property
    def min_tdcf(self) -> float:
        return self.pooled.min_tdcf

    @property
    def cm_eer(self) -> float:
        return self.pooled.cm_eer

    @property
    def spf_eer(self) -> float:
        return self.pooled.spf_eer

    @property
    def spoof_false_alarm(self) -> float:
        return self.pooled.spoof_false_alarm

    @property
    def rows(self) -> list[AttackRow]:
        """The attacks, then the pooled row."""
        return [*self.attacks, self.pooled]

    def summary(self, *, percent: bool = True) -> dict:
        """The pooled numbers of one CM: ``min t-DCF``, ``CM EER``, ``ASV EER``, ``SPF-EER``, ``ASV spoof FA``
        (rates in percent, with a `` %`` in their names, unless ``percent=False``), the ASV and CM thresholds."""
        scale, unit = (100.0, " %") if percent else (1.0, "")
        return {"system": self.name, "formulation": self.formulation, "min t-DCF": self.min_tdcf,
                f"CM EER{unit}": scale * self.cm_eer, f"ASV EER{unit}": scale * self.asv_eer,
                f"SPF-EER{unit}": scale * self.spf_eer, f"ASV spoof FA{unit}": scale * self.spoof_false_alarm,
                "ASV threshold": self.asv_threshold, "CM threshold": self.tdcf.threshold}

    def to_frame(self, *, percent: bool = True) -> pd.DataFrame:
        """One row per attack, then ``pooled``: ``attack``, ``bona fide``, ``spoof (CM)``, ``spoof (ASV)``,
        ``CM EER``, ``min t-DCF``, ``ASV spoof FA``, ``SPF-EER``, ``CM threshold`` (of the minimum) and ``too few
        errors`` (the rule of 30 on the CM's errors at its EER). Rates in percent, their names ending in `` %``,
        unless ``percent=False`` (fractions)."""
        return pd.DataFrame.from_records([row.record(percent=percent) for row in self.rows])

    def notes(self) -> list[str]:
        """Sentences on rows that cannot say much: a t-DCF without meaning, and the rule of 30."""
        notes = [f"{row.attack}: {row.problem}" for row in self.rows if row.problem]
        few = [row.attack for row in self.rows if row.too_few_errors]
        if few:
            notes.append(f"By the rule of 30, the CM error rates of {listed(few)} are not known to within ±30 %: "
                         f"{'each has' if len(few) > 1 else 'it has'} fewer than {RULE_OF_30} misses or false alarms "
                         "at its EER.")
        return notes

    def judged(self, *, formulation: str = "revised", cost_model: Mapping | None = None) -> TandemEvaluation:
        """The same tandem judged by another t-DCF: only each row's t-DCF is computed again, on the row's trials and
        at the same ASV threshold; the EERs, the ASV's rates and the trials are this evaluation's. Equal bit for bit
        to :func:`evaluate_tandem` with that `formulation` and `cost_model` (and this ASV threshold).

        Parameters
        ----------
        formulation, cost_model
            As in :func:`~llrcore.spoofing.tdcf`.

        Returns
        -------
        TandemEvaluation

        Raises
        ------
        ValueError
            For what :func:`~llrcore.spoofing.tdcf` refuses on the pooled trials.
        """
        rows = [replace(row, **_judged(row.attack, row.cm_trials, row.asv_trials, self.asv_threshold, formulation,
                                       cost_model)) for row in self.rows]
        return replace(self, formulation=formulation, pooled=rows[-1], attacks=tuple(rows[:-1]))

    def bootstrap(self, n: int = 1000, level: float = 0.95, seed: int = 0, *, cm_eer: bool = False,
                  method: str = DEFAULT_METHOD, progress: Progress | None = None,
                  threads: int | None = None) -> TandemIntervals:
        """Bootstrap intervals of every row's min t-DCF (and CM EER), on the trials of each row, by `method`
        (``"bca"`` or ``"percentile"``): see :func:`bootstrap_tandem`."""
        method = check_method(method)
        runs = 2 if cm_eer else 1
        total, tdcfs, eers = n * runs * len(self.rows), {}, {}
        for position, row in enumerate(self.rows):
            done = position * runs * n
            tdcfs[row.attack] = None if row.tdcf is None else bootstrap_tdcf(
                row.cm_trials, row.asv_trials, n, level, seed, formulation=self.formulation,
                cost_model=row.tdcf.cost_model, asv_threshold=self.asv_threshold,
                method=method, progress=_shifted(progress, done, total), threads=threads)
            if cm_eer:
                eers[row.attack] = bootstrap(row.cm_trials, n, level, seed=seed, method=method,
                                             progress=_shifted(progress, done + n, total), threads=threads)
        return TandemIntervals(evaluation=self, tdcf=tdcfs, cm_eer=eers, level=level, n=n, seed=seed, method=method)


#: The metrics of :class:`TandemIntervals`: name -> is it a rate (its column of :meth:`TandemEvaluation.to_frame`
#: then ends in `` %`` unless ``percent=False``).
INTERVAL_METRICS = {"min t-DCF": False, "CM EER": True}


@dataclass(frozen=True, eq=False)
class TandemIntervals:
    """Bootstrap intervals of a :class:`TandemEvaluation`, per attack and pooled (see :func:`bootstrap_tandem`).

    Attributes
    ----------
    evaluation : TandemEvaluation
        The numbers of all the trials, row by row.
    tdcf : dict of str to TandemBootstrap or None
        Each row's min t-DCF replicates and interval (:func:`~llrcore.bootstrap_tdcf`), keyed by attack and
        ``"pooled"``; None for a row without a t-DCF (:attr:`AttackRow.problem`).
    cm_eer : dict of str to BootstrapResult
        Each row's bootstrap of the CM's trials (:func:`~llrcore.bootstrap`; ``.interval("eer")``), keyed the same;
        empty when not asked for.
    level : float
    n : int
        Replicates per row.
    seed : int
        The seed of every row's draws.
    method : str
        ``"bca"`` or ``"percentile"`` (:mod:`llrcore.uncertainty.intervals`), the method of every interval.
    """

    evaluation: TandemEvaluation
    tdcf: dict[str, TandemBootstrap | None] = field(repr=False)
    cm_eer: dict[str, BootstrapResult] = field(repr=False)
    level: float
    n: int
    seed: int
    method: str = DEFAULT_METHOD

    @property
    def interval_words(self) -> str:
        """``"95 % BCa bootstrap interval"``."""
        return interval_words(self.level, self.method)

    def interval(self, attack: str = POOLED, metric: str = "min t-DCF") -> tuple[float, float]:
        """``(lower, upper)`` of ``"min t-DCF"`` or ``"CM EER"`` (a fraction) for one attack or ``"pooled"``; NaNs for
        a row without a t-DCF, and for the CM EER when it was not bootstrapped."""
        if metric not in INTERVAL_METRICS:
            raise KeyError(f"No interval for {metric!r}: the intervals are of {listed(list(INTERVAL_METRICS))}.")
        if attack not in self.tdcf:
            raise KeyError(f"No row {attack!r}: the rows are {listed(list(self.tdcf))}.")
        if metric == "min t-DCF":
            tdcf = self.tdcf[attack]
            return (np.nan, np.nan) if tdcf is None else tdcf.interval()
        cm_eer = self.cm_eer.get(attack)
        return (np.nan, np.nan) if cm_eer is None else cm_eer.interval("eer")

    def to_frame(self, *, percent: bool = True) -> pd.DataFrame:
        """:meth:`TandemEvaluation.to_frame` with ``min t-DCF lower`` and ``min t-DCF upper`` after ``min t-DCF`` and,
        when the CM EER was bootstrapped, ``CM EER % lower`` and ``CM EER % upper`` after ``CM EER %`` (without
        `` %`` and as fractions when ``percent=False``), and last ``interval method`` (``"95 % BCa"``)."""
        frame = self.evaluation.to_frame(percent=percent)
        for metric in [m for m in INTERVAL_METRICS if m != "CM EER" or self.cm_eer]:
            column, scale = (f"{metric} %", 100.0) if INTERVAL_METRICS[metric] and percent else (metric, 1.0)
            bounds = scale * np.array([self.interval(attack, metric) for attack in frame["attack"]]).reshape(-1, 2)
            position = list(frame.columns).index(column) + 1
            frame.insert(position, f"{column} lower", bounds[:, 0])
            frame.insert(position + 1, f"{column} upper", bounds[:, 1])
        frame[METHOD_COLUMN] = self.interval_words.removesuffix(" bootstrap interval")
        return frame


def _shifted(progress: Progress | None, offset: int, total: int) -> Progress | None:
    """`progress` of one run among several: ``progress(offset + done, total)``."""
    return None if progress is None else (lambda done, _: progress(offset + done, total))


def _attacks(trials: Trials, rows: slice, by: str, what: str) -> tuple[np.ndarray, list[str]]:
    """The attack of each trial of `rows` (of the metadata) as a code, and the attacks' names (as text) the codes
    index; a sentence when the column or a value lacks."""
    if by not in trials.metadata.columns:
        raise ValueError(f"The {what} scores have no column {by!r} saying which attack each spoof is (their columns: "
                         f"{', '.join(trials.conditions) or 'none'}); read a score file that has one "
                         f"({NO_ATTACKS}).")
    codes, values = condition_codes(trials.metadata[by].iloc[rows])
    if (codes < 0).any():
        raise ValueError(f"{int((codes < 0).sum()):,} spoofed trials of the {what} scores have no {by!r}: every "
                         f"spoof needs its attack for the per-attack table ({NO_ATTACKS}).")
    return codes, [str(value) for value in values]


def _natural(value: str) -> tuple:
    digits = "".join(ch for ch in value if ch.isdigit())
    return (value.rstrip("0123456789"), int(digits) if digits else -1, value)


def _judged(attack: str, cm: Trials, asv: Trials, threshold: float, formulation: str,
            cost_model: Mapping | None) -> dict:
    """The row's ``tdcf`` and ``problem`` (why there is none): a refusal of the pooled row is raised."""
    try:
        return {"tdcf": tdcf(cm.tar, cm.non, asv.tar, asv.non, asv.spoof, formulation=formulation,
                             cost_model=cost_model, asv_threshold=threshold), "problem": ""}
    except ValueError as error:
        if attack == POOLED:
            raise
        return {"tdcf": None, "problem": f"no t-DCF ({error})"}


def _row(attack: str, cm: Trials, asv: Trials, threshold: float, formulation: str,
         cost_model: Mapping | None) -> AttackRow:
    """The tandem on `cm`'s bona fide and spoofed trials and `asv`'s targets, non-targets and spoofs."""
    return AttackRow(attack=attack, **_judged(attack, cm, asv, threshold, formulation, cost_model),
                     cm_eer=eer(cm.tar, cm.non),
                     spoof_false_alarm=spoof_false_alarm_rate(asv.spoof, threshold), spf_eer=eer(asv.tar, asv.spoof),
                     n_bonafide=cm.tar.size, n_spoof_cm=cm.non.size, n_spoof_asv=asv.spoof.size, cm_trials=cm,
                     asv_trials=asv)


def _attack_trials(cm: Trials, asv: Trials, by: str) -> list[tuple[str, Trials, Trials]]:
    """``(attack, CM trials, ASV trials)`` per attack in natural order: all bona fide trials with the CM's spoofs of
    the attack; all the ASV's targets and non-targets with its spoofs of the attack. Scores only (no metadata), each
    class in ascending order: sorted here once for all the attacks (a spoof class with its attacks), so that the
    t-DCF, t-EER and a-DCF of each row need not sort them again; the bona fide, target and non-target arrays are
    shared by every row."""
    cm_codes, cm_names = _attacks(cm, slice(cm.tar.size, cm.tar.size + cm.non.size), by, "CM")
    asv_codes, asv_names = _attacks(asv, slice(asv.tar.size + asv.non.size, None), by, "ASV")
    only_cm, only_asv = sorted(set(cm_names) - set(asv_names)), sorted(set(asv_names) - set(cm_names))
    if only_cm or only_asv:
        said = [f"the CM has {listed(only_cm)} and the ASV does not" if only_cm else "",
                f"the ASV has {listed(only_asv)} and the CM does not" if only_asv else ""]
        raise ValueError(f"The CM and the ASV scores are not of the same attacks ({'; '.join(filter(None, said))}):"
                         " give both systems' scores of the same part of the evaluation "
                         f"({NO_ATTACKS}).")
    bonafide, tar, non = np.sort(cm.tar), np.sort(asv.tar), np.sort(asv.non)
    cm_spoof, cm_codes = _sorted_with(cm.non, cm_codes)
    asv_spoof, asv_codes = _sorted_with(asv.spoof, asv_codes)
    return [(attack, Trials(bonafide, cm_spoof[cm_codes == cm_names.index(attack)], name=f"{cm.name} ({by}={attack})"),
             Trials(tar, non, name=f"{asv.name} ({by}={attack})",
                    spoof=asv_spoof[asv_codes == asv_names.index(attack)]))
            for attack in sorted(cm_names, key=_natural)]


def _sorted_with(scores: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`scores` in ascending order, and the codes that go with them."""
    order = np.argsort(scores, kind="stable")
    return scores[order], codes[order]


def evaluate_tandem(cm: Trials, asv: Trials, *, formulation: str = "revised", cost_model: Mapping | None = None,
                    asv_threshold: float | None = None, by: str | None = "attack",
                    name: str | None = None) -> TandemEvaluation:
    """A countermeasure in front of a speaker verifier: min t-DCF, CM EER, ASV EER, SPF-EER and the ASV's spoof
    false-alarm rate, pooled and per attack (the conventions are in the module docstring, :mod:`llrcore.spoofing.tandem`).

    Parameters
    ----------
    cm : Trials
        The CM's scores: bona fide trials as targets, spoofed trials as non-targets (higher = more bona fide), as
        :func:`~llrcore.read_trials` reads the ASVspoof CM score files.
    asv : Trials
        The ASV's scores with their spoof trials (``asv.spoof``), e.g. the organisers' ASV score file.
    formulation, cost_model, asv_threshold
        As in :func:`~llrcore.spoofing.tdcf`: ``"revised"`` (ASVspoof 2021 on) or ``"legacy"`` (ASVspoof 2019), the priors
        and costs (default :func:`~llrcore.tdcf_cost_model`), the ASV threshold (default
        :func:`~llrcore.asv_eer_threshold`), the same for every attack.
    by : str or None
        The metadata column naming each spoof's attack in both files; None: the pooled numbers only.
    name : str, optional
        The CM's name in tables and legends (default ``cm.name``).

    Returns
    -------
    TandemEvaluation

    Raises
    ------
    ValueError
        With a sentence: no spoof trials in the ASV scores, no attack column, spoofs without an attack, attacks in
        one file and not in the other, or anything :func:`~llrcore.spoofing.tdcf` refuses on the pooled trials.
    """
    if not isinstance(cm, Trials) or not isinstance(asv, Trials):
        raise TypeError("Give the CM and the ASV scores as Trials (lc.read_trials), not arrays.")
    if asv.spoof.size == 0:
        raise ValueError(f"The ASV scores{f' {asv.name!r}' if asv.name else ''} have no spoof trials: the t-DCF, the "
                         "SPF-EER and the spoof false-alarm rate need the ASV's scores of spoofing attacks.")
    threshold = asv_eer_threshold(asv.tar, asv.non) if asv_threshold is None else float(asv_threshold)
    pooled = _row(POOLED, cm, asv, threshold, formulation, cost_model)
    assert pooled.tdcf is not None  # (the ASV has spoof trials)
    rows = [] if by is None else [_row(attack, cm_trials, asv_trials, threshold, formulation, cost_model)
                                  for attack, cm_trials, asv_trials in _attack_trials(cm, asv, by)]
    return TandemEvaluation(name=cm.name if name is None else name, formulation=pooled.tdcf.formulation,
                            pooled=pooled, attacks=tuple(rows), asv_eer=eer(asv.tar, asv.non),
                            asv_threshold=threshold, by=by)


def bootstrap_tandem(cm: Trials, asv: Trials, n: int = 1000, level: float = 0.95, seed: int = 0, *,
                     formulation: str = "revised", cost_model: Mapping | None = None,
                     asv_threshold: float | None = None, by: str | None = "attack", name: str | None = None,
                     cm_eer: bool = False, method: str = DEFAULT_METHOD, progress: Progress | None = None,
                     threads: int | None = None) -> TandemIntervals:
    """Bootstrap intervals (BCa, or percentile with ``method="percentile"``) of the min t-DCF (and of the CM EER),
    per attack and pooled: :func:`evaluate_tandem`, then :meth:`TandemEvaluation.bootstrap`.

    Each row is resampled on its own trials, the subsets :func:`evaluate_tandem` computes the row on: all bona fide
    trials and the attack's spoofs for the CM; the ASV's targets, non-targets and spoofs of the attack. The min t-DCF
    interval of a row is ``bootstrap_tdcf(row.cm_trials, row.asv_trials, n, level, seed)``
    (:func:`~llrcore.bootstrap_tdcf`: the five classes of trials drawn apart). **The ASV threshold stays the pooled
    one**: in every row, as :func:`evaluate_tandem` holds it, and in every replicate, as :func:`~llrcore.bootstrap_tdcf`
    holds it (a setting of the deployed ASV; what varies is how often the ASV errs at it). The CM threshold is free: a
    replicate's value is the minimum over the CM thresholds,

    ``min t-DCF = min_s (C0 + C1 Pmiss_cm(s) + C2 Pfa_cm(s)) / t-DCF_default``,

    with C0, C1, C2 from the ASV's error rates in the replicate (Kinnunen et al., IEEE/ACM TASLP 28, 2020). The CM EER
    interval of a row is ``bootstrap(row.cm_trials, n, level, seed=seed).interval("eer")`` (:func:`~llrcore.bootstrap`,
    ROCCH-EER). Intervals are BCa (Efron 1987; :mod:`llrcore.uncertainty.intervals`); replicates without a
    t-DCF (:attr:`~llrcore.TandemBootstrap.failed`) are left out.

    Parameters
    ----------
    cm, asv : Trials
        As in :func:`evaluate_tandem`.
    n : int
        Replicates per row (and per metric).
    level : float
        Confidence level, e.g. 0.95.
    seed : int
        Seed of ``numpy.random.default_rng``, the same for every row: the pooled row's min t-DCF interval is that of
        ``bootstrap_tdcf(cm, asv, n, level, seed)``.
    formulation, cost_model, asv_threshold, by, name
        As in :func:`evaluate_tandem`.
    method : {"bca", "percentile"}
        How every interval is made (:mod:`llrcore.uncertainty.intervals`); the result keeps it as ``.method``.
    cm_eer : bool
        Also the CM EER's interval (it costs about twice the min t-DCF's: :func:`~llrcore.bootstrap` computes every
        binary metric of each replicate).
    progress : callable, optional
        Called as ``progress(done, total)`` over the replicates of all rows and metrics (``total = n × rows``, twice
        that with `cm_eer`).
    threads : int, optional
        Replicates computed at once (:func:`~llrcore.thread_count`: by default ``LLRCORE_THREADS`` or every CPU).
        No number depends on it.

    Returns
    -------
    TandemIntervals
        ``.to_frame()``: one row per attack and the pooled row with ``min t-DCF lower``/``upper`` (and ``CM EER %
        lower``/``upper``); ``.interval(attack, metric)``.
    """
    evaluation = evaluate_tandem(cm, asv, formulation=formulation, cost_model=cost_model, asv_threshold=asv_threshold,
                                 by=by, name=name)
    return evaluation.bootstrap(n, level, seed, cm_eer=cm_eer, method=method, progress=progress, threads=threads)


def tandem_table(evaluations: Mapping[str, TandemEvaluation] | list[TandemEvaluation], *,
                 percent: bool = True) -> pd.DataFrame:
    """One row per CM system: :meth:`TandemEvaluation.summary` (min t-DCF, CM EER, ASV EER, SPF-EER, ASV spoof FA,
    the thresholds).

    Parameters
    ----------
    evaluations : mapping of str to TandemEvaluation, or list of TandemEvaluation
        One per CM system (:func:`evaluate_tandem`); a mapping's keys name the systems, else each evaluation's name.
    percent : bool
        Rates in percent, their column names ending in `` %`` (default), or fractions.

    Returns
    -------
    DataFrame
        One row per system, in the given order: ``system``, ``formulation``, ``min t-DCF``, ``CM EER``,
        ``ASV EER``, ``SPF-EER``, ``ASV spoof FA``, ``ASV threshold``, ``CM threshold`` (pooled numbers).
    """
    items = evaluations.items() if isinstance(evaluations, Mapping) else [(e.name, e) for e in evaluations]
    return pd.DataFrame.from_records([{**e.summary(percent=percent), "system": name} for name, e in items])
