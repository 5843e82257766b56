"""Tests of the Beta family of proper scoring rules (:mod:`llrcore.calibration.rules`) against independent references.

References used (no expected value below is an output of llrcore itself):

- the canonical definition (DESIGN.md, "The mathematics you must get exactly right"; Brümmer & Doddington 2013,
  eqs. 2-3): ``C(q|H1) = int_x^inf w(t) (1 + e^-t) dt``, ``C(q|H2) = int_-inf^x w(t) (1 + e^t) dt`` with
  ``w(t) = sigmoid(t)^alpha sigmoid(-t)^beta / B(alpha, beta)``, integrated here by ``scipy.integrate.quad``;
- the probability-domain forms (Buja, Stuetzle & Shen 2005): weight ``c^(alpha-2) (1-c)^(beta-2) / B`` on cost
  thresholds ``c``, integrated by ``quad`` with its algebraic-singularity weight; and the textbook closed forms
  ``-ln q`` (logarithmic), ``3 (1-q)^2`` (Brier), ``(2/pi) sqrt((1-q)/q)`` (boosting);
- ``B(alpha-1, beta) / B(alpha, beta) = (alpha+beta-1)/(alpha-1)`` for the cost of certainty on the wrong side;
- central finite differences for the derivatives;
- the threshold-weighting identity of the objective (DESIGN.md): ``E = int w(t+tau) Omega_tau(t) [(1+e^-t) Pmiss(t)
  + (1+e^t) Pfa(t)] dt`` with the empirical rates, integrated exactly between the data points;
- ``E = Cllr ln 2`` for the logarithmic rule at prior 1/2, with scikit-learn's ``log_loss`` as a second reference;
- the exact mode of the weighting found by ``scipy.optimize`` on the formula written out here.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, optimize, special
from scipy.special import expit, log_expit
from sklearn.metrics import log_loss

import llrcore as lc
from llrcore.calibration.rules import BetaRule, objective, threshold_weighting

NAMED = {
    "logarithmic": (1.0, 1.0),
    "Brier": (2.0, 2.0),
    "boosting": (0.5, 0.5),
    "asymmetric": (2.0, 1.0),
}
GENERAL = [(3.0, 0.7), (0.7, 3.0), (0.3, 0.4), (1.0, 3.0), (2.5, 2.5), (3.0, 1.0), (1.5, 0.5)]
ALL_RULES = list(NAMED.values()) + GENERAL
RULE_IDS = [f"{a:g},{b:g}" for a, b in ALL_RULES]

# Covers both sides of the table's edges at |t| = 40 and far into the exponential tails.
X_GRID = np.array(
    [-60.0, -52.3, -45.0, -40.5, -40.0, -39.99, -33.3, -25.0, -17.0, -10.0, -6.5, -3.3, -1.0, -0.1, 0.0, 0.01,
     0.7, 2.0, 5.5, 12.0, 21.7, 30.0, 39.99, 40.0, 40.01, 41.0, 47.5, 55.0, 70.0]
)
BREAKS = np.array([-50.0, -40.0, -30.0, -20.0, -10.0, -5.0, -2.0, 0.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0])


# ----- independent references ------------------------------------------------------------------------------------


def log_w(alpha, beta, t):
    """log of w(t) = sigmoid(t)^alpha sigmoid(-t)^beta / B(alpha, beta)."""
    return alpha * log_expit(t) + beta * log_expit(-t) - special.betaln(alpha, beta)


def piecewise_quad(f, lo, hi, extra_breaks=()):
    """int_lo^hi f, split at fixed breakpoints (and `extra_breaks`) so each piece is smooth and quad's relative
    tolerance holds piece by piece; every integrand here is positive, so the sum keeps full relative precision."""
    inner = np.unique(np.concatenate([BREAKS, np.asarray(extra_breaks, float)]))
    inner = inner[(inner > lo) & (inner < hi)]
    edges = np.concatenate([[lo], inner, [hi]])
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        value, _ = integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=400)
        total += value
    return total


def canonical_costs(alpha, beta, x):
    """(C(q|H1), C(q|H2)) by quadrature of the canonical definition in the log-odds domain."""
    target = piecewise_quad(lambda t: np.exp(log_w(alpha, beta, t) + np.logaddexp(0.0, -t)), x, np.inf)
    non = piecewise_quad(lambda t: np.exp(log_w(alpha, beta, t) + np.logaddexp(0.0, t)), -np.inf, x)
    return target, non


def buja_costs(alpha, beta, q):
    """(C(q|H1), C(q|H2)) from Buja's weight c^(alpha-2) (1-c)^(beta-2) / B on cost thresholds c:
    C(q|H1) = int_q^1 (1-c) weight dc, C(q|H2) = int_0^q c weight dc; quad's 'alg' weight takes the end
    singularities (c^(alpha-1) at 0, (1-c)^(beta-1) at 1) exactly."""
    b = special.beta(alpha, beta)
    target, _ = integrate.quad(lambda c: c ** (alpha - 2) / b, q, 1.0, weight="alg", wvar=(0.0, beta - 1),
                               epsabs=0.0, epsrel=1e-12, limit=200)
    non, _ = integrate.quad(lambda c: (1 - c) ** (beta - 2) / b, 0.0, q, weight="alg", wvar=(alpha - 1, 0.0),
                            epsabs=0.0, epsrel=1e-12, limit=200)
    return target, non


def effective_weight(alpha, beta, tau, t):
    """The UNnormalised w(t + tau) Omega_tau(t), Omega_tau(t) = sigmoid(-tau) (1 + e^{t+tau}) / (1 + e^t)."""
    log_omega = log_expit(-tau) + np.logaddexp(0.0, t + tau) - np.logaddexp(0.0, t)
    return np.exp(log_w(alpha, beta, t + tau) + log_omega)


def objective_by_thresholds(alpha, beta, tau, tar, non):
    """E = int w(t+tau) Omega_tau(t) [(1+e^-t) Pmiss(t) + (1+e^t) Pfa(t)] dt, Pmiss(t) = P(l < t | tar),
    Pfa(t) = P(l >= t | non), integrated exactly piece by piece between consecutive data points (the rates are
    constant on each piece)."""
    tar, non = np.asarray(tar, float), np.asarray(non, float)
    points = np.unique(np.concatenate([tar, non]))
    edges = np.concatenate([[-np.inf], points, [np.inf]])
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        middle = (a + b) / 2 if np.isfinite(a) and np.isfinite(b) else (b - 1 if np.isfinite(b) else a + 1)
        p_miss = np.mean(tar < middle)
        p_fa = np.mean(non >= middle)

        def integrand(t, p_miss=p_miss, p_fa=p_fa):
            base = log_w(alpha, beta, t + tau) + log_expit(-tau) + np.logaddexp(0.0, t + tau) - np.logaddexp(0.0, t)
            value = 0.0  # a rate of 0 multiplies a factor that can overflow in the tails: leave the term out
            if p_miss > 0:
                value += p_miss * np.exp(base + np.logaddexp(0.0, -t))
            if p_fa > 0:
                value += p_fa * np.exp(base + np.logaddexp(0.0, t))
            return value

        # long pieces and the tails are split further so that quad's relative tolerance holds on each part
        total += piecewise_quad(integrand, a, b)
    return total


def gauss_legendre_total(f, lo=-120.0, hi=120.0, nodes=24):
    """int_lo^hi f for a smooth vectorised f: Gauss-Legendre on unit-width pieces, f called once on all nodes.
    (The library's threshold_weighting normalises by quadrature on every call, so it is evaluated once here.)"""
    x, w = np.polynomial.legendre.leggauss(nodes)
    left = np.arange(lo, hi)
    points = (left[:, None] + (x[None, :] + 1) / 2).ravel()
    return float(np.sum(f(points).reshape(left.size, nodes) @ w) / 2)


@pytest.fixture(scope="module")
def small_llrs():
    rng = np.random.default_rng(20130825)
    tar = rng.normal(1.5, 1.7, 30)
    non = rng.normal(-2.0, 2.2, 40)
    return tar, non


# ----- 1. closed forms and tables equal the canonical definition -------------------------------------------------


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_costs_equal_quadrature_of_canonical_definition(alpha, beta):
    rule = BetaRule(alpha, beta)
    got_target, got_non = rule.costs(X_GRID)
    expected = np.array([canonical_costs(alpha, beta, x) for x in X_GRID])
    np.testing.assert_allclose(got_target, expected[:, 0], rtol=1e-9, atol=0)
    np.testing.assert_allclose(got_non, expected[:, 1], rtol=1e-9, atol=0)


@pytest.mark.parametrize("alpha,beta", [(0.3, 0.4), (3.0, 0.7), (1.0, 3.0)], ids=["0.3,0.4", "3,0.7", "1,3"])
def test_costs_between_table_nodes_equal_quadrature(alpha, beta):
    """The tabulated rules are interpolated between nodes 1/128 apart: check points that fall between nodes."""
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(-39.9, 39.9, 25))
    got_target, got_non = BetaRule(alpha, beta).costs(x)
    expected = np.array([canonical_costs(alpha, beta, v) for v in x])
    np.testing.assert_allclose(got_target, expected[:, 0], rtol=1e-9, atol=0)
    np.testing.assert_allclose(got_non, expected[:, 1], rtol=1e-9, atol=0)


@pytest.mark.parametrize("alpha,beta", [(1.1, 1.0), (1.01, 2.0), (1.2, 3.0)], ids=["1.1,1", "1.01,2", "1.2,3"])
def test_costs_for_alpha_just_above_one_on_the_wrong_side(alpha, beta):
    """For 1 < alpha < 2 the target cost still changes by e^{(alpha-1) x} / ((alpha-1) B) far to the left (x < -36):
    e.g. Beta(1.01, 2) at x = -40 costs 64.918 (quadrature), not its limit (alpha+beta-1)/(alpha-1) = 201.
    Mirrored: the non-target cost of Beta(beta, alpha) at x = +40."""
    x = np.array([-20.0, -36.0, -38.0, -40.0, -60.0])
    expected = np.array([canonical_costs(alpha, beta, v)[0] for v in x])
    np.testing.assert_allclose(BetaRule(alpha, beta).costs(x)[0], expected, rtol=1e-9)
    np.testing.assert_allclose(BetaRule(beta, alpha).costs(-x)[1], expected, rtol=1e-9)


def test_scalar_and_array_costs_agree():
    rule = BetaRule(0.7, 3.0)
    x = np.array([-45.0, -3.0, 0.5, 42.0])
    target, non = rule.costs(x)
    for i, value in enumerate(x):
        t, n = rule.costs(value)
        assert float(t) == pytest.approx(target[i], rel=1e-14)
        assert float(n) == pytest.approx(non[i], rel=1e-14)


# ----- 2. probability-domain forms ---------------------------------------------------------------------------------

X_PROB = np.array([-30.0, -12.0, -5.0, -1.3, 0.0, 0.4, 2.2, 7.0, 15.0, 30.0])


def test_logarithmic_is_minus_log_q():
    x = X_PROB
    q, one_minus_q = expit(x), expit(-x)  # each accurate in its own tail
    target, non = BetaRule.logarithmic().costs(x)
    np.testing.assert_allclose(target, -np.log(q), rtol=1e-12, atol=1e-15)  # -ln q: q rounds near 1 ...
    np.testing.assert_allclose(non, -np.log(one_minus_q), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(target, -log_expit(x), rtol=1e-13)  # ... so also -ln q computed as -log(expit(x))
    np.testing.assert_allclose(non, -log_expit(-x), rtol=1e-13)


def test_brier_is_three_times_squared_error():
    x = X_PROB
    q, one_minus_q = expit(x), expit(-x)
    target, non = BetaRule.brier().costs(x)
    np.testing.assert_allclose(target, 3 * one_minus_q**2, rtol=1e-12)
    np.testing.assert_allclose(non, 3 * q**2, rtol=1e-12)


def test_boosting_is_scaled_square_root_odds():
    x = X_PROB
    q, one_minus_q = expit(x), expit(-x)
    target, non = BetaRule.boosting().costs(x)
    np.testing.assert_allclose(target, (2 / np.pi) * np.sqrt(one_minus_q / q), rtol=1e-12)
    np.testing.assert_allclose(non, (2 / np.pi) * np.sqrt(q / one_minus_q), rtol=1e-12)


def test_asymmetric_non_target_cost_to_the_last_digits():
    """``2 (ln(1 + e^x) - e^x / (1 + e^x))`` in 500-digit decimal arithmetic: the closed form cancels to ~u^2/2,
    so any loss of digits shows; a few units in the last place are all that may differ."""
    from decimal import Decimal, localcontext

    x = np.concatenate([-np.geomspace(350, 1e-3, 400), np.linspace(-1, 30, 63)])  # values above the subnormals
    got = BetaRule.asymmetric().non_cost(x)
    with localcontext() as context:
        context.prec = 500
        for value, cost in zip(x, got):
            u = Decimal(float(value)).exp()
            reference = 2 * ((1 + u).ln() - u / (1 + u))
            assert abs(Decimal(float(cost)) - reference) <= Decimal("1e-15") * reference, value


def test_asymmetric_closed_form():
    x = np.array([-5.0, -1.3, 0.0, 0.4, 2.2, 7.0])
    q = expit(x)
    target, non = BetaRule.asymmetric().costs(x)
    np.testing.assert_allclose(target, 2 * (1 - q), rtol=1e-12)
    np.testing.assert_allclose(non, 2 * (-np.log1p(-q) - q), rtol=1e-10)


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_costs_equal_buja_weight_on_cost_thresholds(alpha, beta):
    x = np.array([-9.0, -4.0, -1.0, -0.2, 0.0, 0.6, 2.5, 6.0, 9.0])
    target, non = BetaRule(alpha, beta).costs(x)
    expected = np.array([buja_costs(alpha, beta, expit(v)) for v in x])
    np.testing.assert_allclose(target, expected[:, 0], rtol=1e-9)
    np.testing.assert_allclose(non, expected[:, 1], rtol=1e-9)


# ----- 3. derivatives and the weight --------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_derivatives_equal_finite_differences(alpha, beta):
    rule = BetaRule(alpha, beta)
    x = np.array([-15.0, -7.3, -2.0, -0.5, 0.0, 0.3, 1.7, 4.0, 9.5, 15.0])
    h = 1e-5
    for side, derivatives, index in (("target", rule.target_derivatives, 0), ("non", rule.non_derivatives, 1)):
        slope, curvature = derivatives(x)
        cost_plus, cost_minus = rule.costs(x + h)[index], rule.costs(x - h)[index]
        fd_slope = (cost_plus - cost_minus) / (2 * h)
        cost_scale = np.maximum(np.abs(rule.costs(x)[index]), 1.0)
        # rounding: a cost accurate to ~1e-14 relative gives a difference quotient accurate to ~1e-9 * cost
        assert np.all(np.abs(fd_slope - slope) <= 1e-6 * np.abs(slope) + 1e-8 * cost_scale), side
        slope_plus, slope_minus = derivatives(x + h)[0], derivatives(x - h)[0]
        fd_curvature = (slope_plus - slope_minus) / (2 * h)
        assert np.all(np.abs(fd_curvature - curvature) <= 1e-6 * np.abs(curvature) + 1e-8 * np.abs(slope)), side
        # signs from the definition: the target cost falls and the non-target cost rises with x
        assert np.all(slope <= 0) if side == "target" else np.all(slope >= 0)


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_target_slope_is_minus_weight_times_odds_factor(alpha, beta):
    """d/dx C(q|H1) = -w(x) (1 + e^-x) and d/dx C(q|H2) = w(x) (1 + e^x): the fundamental theorem of calculus."""
    rule = BetaRule(alpha, beta)
    x = np.linspace(-30, 30, 61)
    np.testing.assert_allclose(rule.target_derivatives(x)[0], -np.exp(log_w(alpha, beta, x) + np.logaddexp(0, -x)),
                               rtol=1e-12)
    np.testing.assert_allclose(rule.non_derivatives(x)[0], np.exp(log_w(alpha, beta, x) + np.logaddexp(0, x)),
                               rtol=1e-12)


# Both sides of the asymmetric non-target cost's switches of form (x = -0.01 and e^x = 1e-3) and of the table's edges.
X_SIDES = np.sort(np.concatenate([X_GRID, [-8.0, np.log(1e-3) - 1e-9, np.log(1e-3) + 1e-9, -0.0100001, -0.0099999]]))


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_per_side_costs_and_derivatives_equal_references(alpha, beta):
    """target_cost and non_cost (the calibration objective calls each on one class's trials) against quadrature of
    the canonical definition, and target_derivatives / non_derivatives against central differences of these
    per-side costs; costs() is the two of them together, also at infinite and extreme LLRs."""
    rule = BetaRule(alpha, beta)
    target, non = rule.target_cost(X_SIDES), rule.non_cost(X_SIDES)
    expected = np.array([canonical_costs(alpha, beta, x) for x in X_SIDES])
    np.testing.assert_allclose(target, expected[:, 0], rtol=1e-9, atol=0)
    np.testing.assert_allclose(non, expected[:, 1], rtol=1e-9, atol=0)
    x_all = np.concatenate([X_SIDES, [-np.inf, -1e6, -1e3, 1e3, 1e6, np.inf]])
    both = rule.costs(x_all)
    assert np.array_equal(both[0], rule.target_cost(x_all)) and np.array_equal(both[1], rule.non_cost(x_all))

    x = np.array([-15.0, -7.3, np.log(1e-3), -2.0, -0.5, -0.01, 0.0, 0.3, 1.7, 4.0, 9.5, 15.0])
    h = 1e-5
    for side, cost, derivatives in (("target", rule.target_cost, rule.target_derivatives),
                                    ("non", rule.non_cost, rule.non_derivatives)):
        slope, curvature = derivatives(x)
        fd_slope = (cost(x + h) - cost(x - h)) / (2 * h)
        # a cost accurate to ~1e-11 relative (the tables) gives a difference quotient accurate to ~1e-6 * cost
        assert np.all(np.abs(fd_slope - slope) <= 1e-6 * (np.abs(slope) + cost(x))), side
        fd_curvature = (derivatives(x + h)[0] - derivatives(x - h)[0]) / (2 * h)
        assert np.all(np.abs(fd_curvature - curvature) <= 1e-6 * np.abs(curvature) + 1e-8 * np.abs(slope)), side


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_weight_is_a_density(alpha, beta):
    rule = BetaRule(alpha, beta)
    total = piecewise_quad(lambda t: float(rule.weight(t)), -np.inf, np.inf)
    assert total == pytest.approx(1.0, rel=1e-10)
    t = np.linspace(-20, 20, 41)
    np.testing.assert_allclose(rule.weight(t), np.exp(log_w(alpha, beta, t)), rtol=1e-13)


# ----- 4. numerical safety -------------------------------------------------------------------------------------------

EXTREMES = np.array([-np.inf, -1e6, -1e3, 1e3, 1e6, np.inf])


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_extreme_llrs_give_no_nan(alpha, beta):
    rule = BetaRule(alpha, beta)
    target, non = rule.costs(EXTREMES)
    for values in (target, non, *rule.target_derivatives(EXTREMES), *rule.non_derivatives(EXTREMES)):
        assert not np.isnan(values).any()
    assert np.all(target >= 0) and np.all(non >= 0)
    # certainty on the right side costs nothing
    assert target[-1] == 0 and non[0] == 0
    # certainty on the wrong side: int_0^1 c^(alpha-2) (1-c)^(beta-1) dc / B = B(alpha-1, beta) / B(alpha, beta)
    if alpha <= 1:
        assert target[0] == np.inf
    else:
        wrong = special.beta(alpha - 1, beta) / special.beta(alpha, beta)
        assert target[0] == pytest.approx(wrong, rel=1e-9)
        assert target[1] == pytest.approx(wrong, rel=1e-9)
    if beta <= 1:
        assert non[-1] == np.inf
    else:
        wrong = special.beta(alpha, beta - 1) / special.beta(alpha, beta)
        assert non[-1] == pytest.approx(wrong, rel=1e-9)
        assert non[-2] == pytest.approx(wrong, rel=1e-9)
    # finite LLRs of +-1e3 have finite costs for every rule here (at most ~e^{(1 - alpha) 1e3} < 1e308)
    assert np.all(np.isfinite(target[2:])) and np.all(np.isfinite(non[:-2]))


def test_boosting_is_infinite_at_minus_infinity_target():
    target, non = BetaRule.boosting().costs(np.array([-np.inf, np.inf]))
    assert target[0] == np.inf and non[1] == np.inf
    assert target[1] == 0 and non[0] == 0


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_objective_on_extreme_llrs(alpha, beta):
    rule = BetaRule(alpha, beta)
    value = objective([1e3, -1e3, 5.0], [-1e3, 1e3, -2.0], rule, plo=0.0)
    assert not np.isnan(value)
    if alpha > 1 and beta > 1:
        assert np.isfinite(value)


def test_objective_brier_finite_on_huge_llrs():
    value = objective(np.array([1e3, -1e3, 1e6, -1e6]), np.array([-1e3, 1e3, -1e6, 1e6]), BetaRule.brier(), plo=-3.0)
    assert np.isfinite(value)
    # each wrong-side certainty costs 3 (= 3 (1 - 0)^2), each right-side one 0
    assert value == pytest.approx(expit(-3.0) * 3 * 0.5 + expit(3.0) * 3 * 0.5, rel=1e-12)


def test_objective_with_infinite_llrs():
    assert objective([np.inf], [-np.inf], BetaRule.logarithmic()) == 0.0
    assert objective([-np.inf], [-np.inf], BetaRule.logarithmic()) == np.inf


@pytest.mark.parametrize("params", [(0, 1), (1, 0), (-1, 2), (np.nan, 1), (np.inf, 1)])
def test_rule_parameters_must_be_positive(params):
    with pytest.raises(ValueError):
        BetaRule(*params)


def test_named_constructors():
    assert (BetaRule.logarithmic().alpha, BetaRule.logarithmic().beta) == (1.0, 1.0)
    assert (BetaRule.brier().alpha, BetaRule.brier().beta) == (2.0, 2.0)
    assert (BetaRule.boosting().alpha, BetaRule.boosting().beta) == (0.5, 0.5)
    assert (BetaRule.asymmetric().alpha, BetaRule.asymmetric().beta) == (2.0, 1.0)
    assert BetaRule(1, 1) == BetaRule.logarithmic()


# ----- 5. objective identities ------------------------------------------------------------------------------------


def test_logarithmic_objective_is_cllr_ln2(small_llrs):
    tar, non = small_llrs
    value = objective(tar, non, BetaRule.logarithmic(), plo=0.0)
    assert value == pytest.approx(lc.cllr(tar, non) * np.log(2), rel=1e-13)
    # an independent Cllr: scikit-learn's balanced log loss on posteriors sigmoid(l)
    y = np.r_[np.ones(tar.size), np.zeros(non.size)]
    p = expit(np.r_[tar, non])
    weights = np.r_[np.full(tar.size, 0.5 / tar.size), np.full(non.size, 0.5 / non.size)]
    assert value == pytest.approx(log_loss(y, p, sample_weight=weights), rel=1e-12)


def test_logarithmic_objective_is_cllr_ln2_on_real_scores(evalita, asvspoof_dev):
    for tar, non in (evalita, (asvspoof_dev["target"], asvspoof_dev["nontarget"])):
        value = objective(tar, non, BetaRule.logarithmic(), plo=0.0)
        reference = (np.mean(np.logaddexp(0, -tar)) + np.mean(np.logaddexp(0, non))) / 2
        assert value == pytest.approx(reference, rel=1e-12)
        assert value == pytest.approx(lc.cllr(tar, non) * np.log(2), rel=1e-12)


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 2.0), (0.5, 0.5), (2.0, 1.0), (3.0, 0.7), (0.3, 0.4)],
                         ids=["log", "Brier", "boosting", "asymmetric", "3,0.7", "0.3,0.4"])
@pytest.mark.parametrize("plo", [0.0, -2.3, 3.0])
def test_objective_equals_threshold_integral(small_llrs, alpha, beta, plo):
    tar, non = small_llrs
    expected = objective_by_thresholds(alpha, beta, plo, tar, non)
    assert objective(tar, non, BetaRule(alpha, beta), plo=plo) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 2.0), (3.0, 0.7)], ids=["log", "Brier", "3,0.7"])
def test_objective_is_prior_weighted_mean_of_costs(small_llrs, alpha, beta):
    """E = P mean_tar C(sigmoid(l+tau)|H1) + (1-P) mean_non C(sigmoid(l+tau)|H2), each cost by quadrature."""
    tar, non = small_llrs
    plo = -1.2
    target = np.mean([canonical_costs(alpha, beta, v + plo)[0] for v in tar])
    non_cost = np.mean([canonical_costs(alpha, beta, v + plo)[1] for v in non])
    expected = expit(plo) * target + expit(-plo) * non_cost
    assert objective(tar, non, BetaRule(alpha, beta), plo=plo) == pytest.approx(expected, rel=1e-9)


# ----- 6. threshold weighting ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 2.0), (0.5, 0.5), (2.0, 1.0), (3.0, 0.7)],
                         ids=["log", "Brier", "boosting", "asymmetric", "3,0.7"])
@pytest.mark.parametrize("plo", [-10.0, -4.0, 0.0, 2.5, 10.0])
def test_threshold_weighting_integrates_to_one(alpha, beta, plo):
    rule = BetaRule(alpha, beta)
    # the tails beyond +-120 are below e^{-min(alpha, beta) (120 - |plo|)} < 1e-20
    total = gauss_legendre_total(lambda t: threshold_weighting(rule, plo, t))
    assert total == pytest.approx(1.0, rel=1e-8)


@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 2.0), (2.0, 1.0), (3.0, 0.7)],
                         ids=["log", "Brier", "asymmetric", "3,0.7"])
def test_threshold_weighting_is_normalised_formula(alpha, beta):
    plo = -2.0
    t = np.linspace(-25, 25, 501)
    unnormalised = effective_weight(alpha, beta, plo, t)
    total = piecewise_quad(lambda s: effective_weight(alpha, beta, plo, s), -np.inf, np.inf, extra_breaks=[-plo])
    np.testing.assert_allclose(threshold_weighting(BetaRule(alpha, beta), plo, t), unnormalised / total, rtol=1e-8)


def test_boosting_weighting_does_not_move_with_prior():
    t = np.linspace(-30, 30, 601)
    rule = BetaRule.boosting()
    reference = threshold_weighting(rule, 0.0, t)
    # for (1/2, 1/2): w(t+tau) Omega_tau(t) = sigmoid(-tau) e^{tau/2} e^{t/2} / (1 + e^t),
    # which normalised is 1 / (2 pi cosh(t/2)) whatever tau
    np.testing.assert_allclose(reference, 1 / (2 * np.pi * np.cosh(t / 2)), rtol=1e-9)
    for plo in (-6.0, -2.3, 1.0, 4.0):
        np.testing.assert_allclose(threshold_weighting(rule, plo, t), reference, rtol=1e-8)


def exact_mode(alpha, beta, tau):
    result = optimize.minimize_scalar(lambda t: -np.log(effective_weight(alpha, beta, tau, t)),
                                      bracket=(-tau - 3, -tau / 2, -tau + 3), tol=1e-12)
    return result.x


@pytest.mark.parametrize("plo", [-4.0, 3.0])
def test_weighting_modes(plo):
    grid = np.arange(-15, 15, 1e-3)
    log_mode = grid[np.argmax(threshold_weighting(BetaRule.logarithmic(), plo, grid))]
    brier_mode = grid[np.argmax(threshold_weighting(BetaRule.brier(), plo, grid))]
    # the library's curve peaks where the formula does
    assert log_mode == pytest.approx(exact_mode(1, 1, plo), abs=2e-3)
    assert brier_mode == pytest.approx(exact_mode(2, 2, plo), abs=2e-3)
    # logarithmic: w(t+tau) Omega(t) is proportional to sigmoid(t+tau) sigmoid(-t), whose mode is exactly -tau/2
    assert log_mode == pytest.approx(-plo / 2, abs=2e-3)
    # Brier: the mode solves 2 sigmoid(-(t+tau)) = sigmoid(t+tau) + sigmoid(t); for plo=-4 that is t = 3.357,
    # "close to -plo" as DESIGN says: between -plo/2 and -plo and nearer to -plo
    assert abs(brier_mode + plo) < 0.7
    assert abs(brier_mode + plo) < abs(brier_mode + plo / 2)
    assert min(-plo / 2, -plo) < brier_mode < max(-plo / 2, -plo)


@pytest.mark.parametrize("alpha,beta", ALL_RULES, ids=RULE_IDS)
def test_the_most_a_trial_can_cost_is_the_cost_of_certainty_on_the_wrong_side(alpha, beta):
    rule = BetaRule(alpha, beta)
    target_bound = special.beta(alpha - 1, beta) / special.beta(alpha, beta) if alpha > 1 else np.inf
    non_bound = special.beta(alpha, beta - 1) / special.beta(alpha, beta) if beta > 1 else np.inf
    assert rule.max_target_cost == pytest.approx(target_bound, rel=1e-12)
    assert rule.max_non_cost == pytest.approx(non_bound, rel=1e-12)
    assert rule.max_target_cost == pytest.approx(float(rule.target_cost(-np.inf)), rel=1e-9)
    assert rule.max_non_cost == pytest.approx(float(rule.non_cost(np.inf)), rel=1e-9)
