"""The release invariants (dpviz.audit.invariants) on every private estimator and option.

Each estimator is fitted under ``watch()`` on boundary data (a pure D, a canary alone in its
leaf, an empty leaf, a node at FS's stopping threshold, depth >= 2, numeric and categorical
attributes, no public rows for RDT#): every noise draw must match its charge (mechanism, ε,
sensitivity), release one number per draw of fresh uniforms, and read the rows only after the
charge; a model's privacy_record must see every call that spent on its rows (refits and updates
included); what a fit settles before reading a row (``public_settings()`` and the public trace
of its queries) must be the same at n and n + 1 rows. The last section plants one fault of
each kind and shows the invariant that sees it (their power).
"""

import contextlib
import math
import warnings
from unittest import mock

import numpy as np
import pytest

from dpviz import mechanisms
from dpviz.audit import suite
from dpviz.audit.invariants import SETTINGS, empirical_sensitivity, public_settings, watch
from dpviz.domain import Categorical, Domain, Numeric
from dpviz.errors import NotProvenPrivateWarning, PrivacyLeakWarning
from dpviz.leaf_release import NoisyLeafLabels, _LeafRelease
from dpviz.privacy import PrivateTable
from dpviz.trees import id3, privatree
from dpviz.trees.forest import DPRandomForestClassifier
from dpviz.trees.id3 import DiffPC45Classifier, DiffPID3Classifier, SuLQID3Classifier
from dpviz.trees.id3_quality import q_gini
from dpviz.trees.privatree import PrivaTreeClassifier
from dpviz.trees.rdt import PrivateRDTClassifier
from dpviz.trees.rdt_sharp import RDTSharpClassifier

CATEGORICAL = Domain([Categorical(f"a{j}", ("0", "1")) for j in range(3)], ["n", "y"])
MIXED = Domain([Categorical("a", ("p", "q", "r")), Numeric("x", 0.0, 1.0),
                Categorical("b", ("0", "1"))], ["n", "y", "z"])
#: Twelve binary attributes: a default height (Fan's k/2 = 6) deeper than log2 of the small
#: row counts compared, so that a height rule of n shows.
WIDE = Domain([Categorical(f"w{j}", ("0", "1")) for j in range(12)], ["n", "y"])
PUBLIC = np.array([["0", "0", "0"], ["1", "1", "1"], ["0", "1", "0"], ["1", "0", "1"]],
                  dtype=object)


# ------------------------------------------------------------------------------- estimators
def _rdt(**kw):
    return lambda d, s: PrivateRDTClassifier(max_depth=3, domain=d, random_state=s, **kw)


def _forest(**kw):
    return lambda d, s: DPRandomForestClassifier(max_depth=3, domain=d, random_state=s, **kw)


def _sharp(**kw):
    return lambda d, s: RDTSharpClassifier(n_primary=2, n_secondary=3, max_depth=3, domain=d,
                                           random_state=s, **kw)


def _fs(cls, **kw):  # at ε = 10 the boundary data split (at ε = 1 every root stops)
    return lambda d, s: cls(10.0, max_depth=2, domain=d, random_state=s, **kw)


def _priva(**kw):
    return lambda d, s: PrivaTreeClassifier(max_depth=2, domain=d, random_state=s, **kw)


#: Every private estimator × the options that change what it releases (the claims rows').
ESTIMATORS = {
    "rdt": _rdt(n_trees=1), "rdt-3-trees": _rdt(n_trees=3), "rdt-clip": _rdt(clip_negative=True),
    "rdt-laplace": _rdt(noise="laplace"),
    # the default height (Fan's k/2, capped by the domain alone): a rule of n would show here
    "rdt-default-height": lambda d, s: PrivateRDTClassifier(n_trees=1, domain=d, random_state=s),
    "forest": _forest(n_trees=1), "forest-disjoint": _forest(n_trees=3),
    "forest-shared": _forest(n_trees=3, disjoint=False),
    "forest-exponential": _forest(n_trees=2, leaf_mechanism="exponential"),
    "forest-smooth": _forest(n_trees=2, leaf_mechanism="smooth_sensitivity"),
    "sharp": _sharp(), "sharp-no-public": _sharp(), "sharp-laplace": _sharp(noise="laplace"),
    "sulq": _fs(SuLQID3Classifier), "sulq-id3-stop": _fs(SuLQID3Classifier, stopping="id3"),
    "diffpid3-max": _fs(DiffPID3Classifier), "diffpid3-gini": _fs(DiffPID3Classifier,
                                                                   criterion="gini"),
    # a size bound near the rows' count: information gain's sensitivity is reached there
    "diffpid3-infogain": _fs(DiffPID3Classifier, criterion="infogain", size_bound=16),
    "diffpc45": _fs(DiffPC45Classifier),
    "privatree-histogram": _priva(), "privatree-exponential": _priva(splitter="exponential"),
    "privatree-n-public": _priva(n_public=300),
}
CATEGORICAL_ONLY = {"sulq", "sulq-id3-stop"}


def fit(name, model, X, y):
    """``model`` fitted on ``X, y`` (RDT# with the public rows unless ``sharp-no-public``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotProvenPrivateWarning)
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        if name.startswith("sharp"):
            public = None if name == "sharp-no-public" else _public_rows(model.domain)
            return model.fit(X, y, public)
        return model.fit(X, y)


def _probe(domain):
    """Rows to predict: every row of the categorical domain, or 12 of the mixed one."""
    if domain is CATEGORICAL:
        return np.array([[a, b, c] for a in "01" for b in "01" for c in "01"], dtype=object)
    return _mixed_rows(12, np.random.default_rng(8))[0]


def _public_rows(domain):
    return PUBLIC if domain is CATEGORICAL else _mixed_rows(6, np.random.default_rng(9))[0]


def _mixed_rows(n, rng):
    X = np.empty((n, 3), dtype=object)
    X[:, 0] = rng.choice(["p", "q", "r"], n)
    X[:, 1] = rng.uniform(0, 1, n).round(3)
    X[:, 2] = rng.choice(["0", "1"], n)
    return X, rng.choice(["n", "y", "z"], n).tolist()


# ------------------------------------------------------------------------------- boundary data
def _canary_alone():
    """D at 000 (both classes), the canary 111 alone in its leaf (and an empty leaf under D)."""
    _, X, y, canary = suite.categorical_problem()
    return CATEGORICAL, *suite.with_row(X, y, canary, "n", first=True)


def _pure():
    """Every row of one class (a pure node at the root and below), the canary of the other."""
    X = np.array([["0", "0", "0"], ["0", "1", "0"], ["1", "0", "0"]] * 4, dtype=object)
    return CATEGORICAL, np.vstack([X, [["1", "1", "1"]]]), ["n"] * 12 + ["y"]


def _at_stop():
    """22 rows: FS's root count at its threshold t|C|√2/ε (22.6 at ε = 1/4, t = |C| = 2)."""
    X = np.array([["0", "0", "1"], ["1", "1", "0"]] * 11, dtype=object)
    return CATEGORICAL, X, ["n", "y"] * 11


def _mixed():
    """Mixed attributes, three classes, depth >= 2: numeric bins, multi-valued categories."""
    return MIXED, *_mixed_rows(40, np.random.default_rng(5))


PROBLEMS = {"canary alone": _canary_alone, "pure": _pure, "at FS's stop": _at_stop,
            "mixed": _mixed}


def _cases():
    for name in ESTIMATORS:
        for problem in PROBLEMS:
            if problem == "mixed" and name in CATEGORICAL_ONLY:
                continue
            yield name, problem


@pytest.mark.parametrize(("name", "problem"), list(_cases()))
def test_every_draw_matches_its_charge_and_reads_follow_them(name, problem):
    domain, X, y = PROBLEMS[problem]()
    for seed in (1, 2):
        model = ESTIMATORS[name](domain, seed)
        with watch() as w:
            fit(name, model, X, y)
            model.predict(_probe(domain))  # the lazy noise of leaves no row reached
        assert w.violations == [], w.violations
        assert w.queries, "the watch saw no query"
        assert model.privacy_record.spent == pytest.approx(w.spent)
        assert model.ledger_.spent == pytest.approx(w.spent)
        # a fixed plan of queries spends the whole budget (a value released without its
        # query would leave some unspent); FS trees stop early on noisy counts
        fs = name.startswith(("sulq", "diffp"))
        assert w.spent == pytest.approx(model.epsilon) or (fs and w.spent < model.epsilon)


def test_every_exported_private_estimator_is_watched():
    import dpviz

    private = {n for n in dpviz.__all__ if n.endswith("Classifier")} - {
        "RandomDecisionTreeClassifier"}  # Fan et al.'s: not private, reads no table
    covered = {type(make(CATEGORICAL, 0)).__name__ for make in ESTIMATORS.values()}
    assert private <= covered, private - covered
    assert private <= set(SETTINGS), private - set(SETTINGS)  # each has its accessor


# ------------------------------------------------------------------------------- records
@pytest.mark.parametrize("method", ["jpw", "recount", "rebuild"])
def test_an_update_is_in_the_record_and_draws_fresh_noise(method):
    domain, X, y = _canary_alone()
    with watch() as w:
        model = PrivateRDTClassifier(n_trees=2, max_depth=3, domain=domain,
                                     random_state=3).fit(X, y)
        model.update(X[:2], y[:2], method=method, X_previous=X, y_previous=y)
    assert w.violations == [], w.violations
    assert model.privacy_record.spent == pytest.approx(w.spent)


def test_a_refit_is_in_the_record_of_the_model_it_came_from():
    domain, X, y = _canary_alone()
    base = RDTSharpClassifier(1.0, n_primary=2, n_secondary=2, max_depth=3, domain=domain,
                              random_state=4)
    with watch() as first:
        base.fit(X, y, PUBLIC)
    with watch() as second:  # a refit repeats its fit's noise by design (docs/privacy.md §8.2.5)
        refit = base.refit(X, y, epsilon=0.2)
    assert first.violations == second.violations == []
    spent = first.spent + second.spent
    assert spent == pytest.approx(1.2)
    assert base.privacy_record.spent == pytest.approx(spent)
    assert refit.privacy_record.spent == pytest.approx(spent)


def test_a_second_fit_is_in_the_record():
    domain, X, y = _canary_alone()
    model = DiffPID3Classifier(1.0, max_depth=1, domain=domain, random_state=5)
    with watch() as w:
        model.fit(X, y)
        model.set_params(epsilon=0.5, random_state=6).fit(X, y)  # (one seed: the same noise)
    assert w.violations == []
    assert model.privacy_record.spent == pytest.approx(w.spent)
    assert len(model.privacy_record.calls) == 2


# ------------------------------------------------------------------------------- n and n + 1
def _robust(domain, n):
    """n rows whose every private decision has a wide margin, the last a copy of the first
    (the rows at n + 1 are those at n and one more)."""
    rng = np.random.default_rng(11)
    if domain is CATEGORICAL or domain is WIDE:
        X = rng.choice(["0", "1"], (n, len(domain))).astype(object)
        y = np.where(X[:, 1] == "1", "y", "n")
    else:
        X, _ = _mixed_rows(n, rng)
        y = np.where(X[:, 0] == "p", "n", np.where(X[:, 1] < 0.5, "y", "z"))
    return X, y.tolist()


def _neighbours(domain, n):
    """The rows at n and at n + 1 (one more: a copy of the first row)."""
    X, y = _robust(domain, n)
    return (X, y), (np.vstack([X, X[:1]]), [*y, y[0]])


def _settings(name, domain, rows, epsilon=2_000.0):
    """``public_settings()`` and the public trace of the queries of a fit on ``rows``."""
    model = ESTIMATORS[name](domain, 21).set_params(epsilon=epsilon)
    with watch() as w:
        fit(name, model, *rows)
    trace = [(q.kind, q.label, q.mechanism, q.epsilon,
              *[(d.sampler, d.sensitivity, d.monotone, d.uniforms.size if q.kind != "leaves"
                 else None) for d in q.draws]) for q in w.queries]
    return public_settings(model), trace


#: Row counts compared: n and n + 1 at several scales (a rule of n shows somewhere).
SIZES = (60, 400)


def _one_class(domain, n):
    """n rows of one class, and the same with a row of another class: a pure D's neighbour."""
    X, y = _robust(domain, n)
    return (X, [y[0]] * n), (np.vstack([X, X[:1]]), [y[0]] * n + [_other(domain, y[0])])


def _other(domain, label):
    return next(c for c in domain.classes if c != label)


@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n not in ("forest-smooth",)])
def test_what_a_fit_settles_is_the_same_at_n_and_n_plus_one_rows(name):
    """``public_settings()`` the same on every data set, and the public trace at n and n + 1.

    The data sets: n and n + 1 rows at several sizes, a pure D and its neighbour with a row of
    another class, one row and two. The trace of public query parameters at n and n + 1: at
    ε = 2,000 and wide margins no private decision turns on the extra row, but the choice among
    tied grid points of a numeric attribute.
    """
    domains = [CATEGORICAL] if name in CATEGORICAL_ONLY else [CATEGORICAL, MIXED]
    if name == "rdt-default-height":
        domains.append(WIDE)
    for domain in domains:
        settings = []
        for n in SIZES:
            (at_n, trace), (at_next, next_trace) = (
                _settings(name, domain, rows) for rows in _neighbours(domain, n))
            # (numeric split points tie over the grid points of a gap: categorical rows only)
            assert trace == next_trace or domain is MIXED, (name, n)
            settings += [at_n, at_next]
        settings += [_settings(name, domain, rows)[0] for rows in _one_class(domain, SIZES[0])]
        X, y = _robust(domain, 3)  # fewer rows than trees, classes, cells
        settings += [_settings(name, domain, (X[:k], y[:k]))[0] for k in (1, 2)]
        assert all(s == settings[0] for s in settings), (name, domain.names)


# ------------------------------------------------------------------------------- power
# Each invariant, and the n/n + 1 comparison, sees a fault of its kind planted in the shipped
# code (one change, only while the test runs): evidence that a pass means something.
def _watched(name, problem="canary alone", **patches):
    domain, X, y = PROBLEMS[problem]()
    model = ESTIMATORS[name](domain, 1)
    with mock.patch.multiple(**patches) if patches else contextlib.nullcontext(), watch() as w:
        fit(name, model, X, y)
        model.predict(_probe(domain))
    return w.violations




def _one_draw_for_all(self, exact, epsilon, mechanism):
    """Noise of the wrong shape: one draw added to every cell of a histogram."""
    return exact + mechanisms.discrete_laplace(0, epsilon=epsilon, rng=self.rng)


def _stop_on_exact_count(table, node, attributes, depth, epsilon, *, stopping="fs"):
    """FS line 9 on the exact count (the node's rows read without a charge)."""
    if not attributes or depth == 0:
        return "maximal depth", None
    codes, _ = table._read()
    return ("too few rows" if len(codes) < SQRT_STOP else None), None


SQRT_STOP = 10


_LEAF_LABEL = privatree.leaf_label


def _empty_leaf_without_query(table, epsilon):
    """A leaf no row reaches labelled 0 without a query."""
    if len(table._labels) == 0:
        return 0
    return _LEAF_LABEL(table, epsilon)


def _histograms_charged_once(table, scope, edges, epsilon):
    """Every histogram of a node under one charge."""
    domain = table.domain
    names = scope.active(domain)
    table._charge(epsilon / len(names), privatree.LABEL_HISTOGRAM, "discrete_laplace")
    codes, labels = table._read()
    splits, ginis = [], []
    for name in names:
        cells = privatree._cells(domain, scope, name, edges.get(name, np.empty(0)))(codes)
        exact = np.zeros((scope.size(name), domain.n_classes), dtype=np.int64)
        np.add.at(exact, (cells, labels), 1)
        h = table._noisy(exact, epsilon / len(names), "discrete_laplace")
        s, g = privatree.histogram_splits(h, name, domain.index(name), scope, edges.get(name))
        splits += s
        ginis.append(g)
    return splits[int(np.argmin(np.concatenate(ginis)))]


_SELECT = PrivateTable.select


def _says_monotone(self, candidates, quality, **kw):
    """The split choice declared monotone (the exponential mechanism's factor 2 dropped)."""
    return _SELECT(self, candidates, quality, **{**kw, "monotone": True})


_APPLY = NoisyLeafLabels._apply


def _majority_as_monotone(counts, uniforms, *, epsilon, mechanism):
    """FI's 0/1 majority label drawn as if its utility were monotone (factor 2 dropped)."""
    if mechanism != "exponential" or not len(counts):
        return _APPLY(counts, uniforms, epsilon=epsilon, mechanism=mechanism)
    top = (counts == counts.max(axis=1, keepdims=True)).astype(np.float64)
    return np.atleast_1d(mechanisms.exponential_mechanism(
        top, epsilon=epsilon, sensitivity=1, uniforms=uniforms, monotone=True))


@pytest.mark.parametrize(("name", "problem", "patches", "seen"), [
    ("diffpid3-max", "canary alone",
     {"target": PrivateTable, "_noisy": _one_draw_for_all}, "wrong shape"),
    ("sulq", "canary alone", {"target": PrivateTable, "_noisy": _one_draw_for_all},
     "wrong shape"),
    ("rdt", "canary alone", {"target": "dpviz.leaf_release", "mechanisms": suite._SharedNoise()},
     "share uniforms"),
    ("forest", "canary alone",
     {"target": "dpviz.leaf_release", "mechanisms": suite._SharedNoise()}, "share uniforms"),
    ("rdt-3-trees", "canary alone",
     {"target": PrivateTable, "noisy_leaf_counts": suite._counts_from_a_copy}, "noise reused"),
    ("privatree-exponential", "pure",
     {"target": privatree, "sensitivity_gini": lambda: 1.0}, "declared sensitivity 1"),
    ("privatree-exponential", "pure", {"target": PrivateTable, "select": _says_monotone},
     "monotone"),
    ("forest-exponential", "canary alone",
     {"target": NoisyLeafLabels, "_apply": staticmethod(_majority_as_monotone)},
     "monotone=True"),
    ("diffpid3-max", "at FS's stop", {"target": id3, "stopping_rule": _stop_on_exact_count},
     "without a charge"),
    ("privatree-histogram", "canary alone",
     {"target": privatree, "leaf_label": _empty_leaf_without_query}, "outside a query"),
    ("privatree-histogram", "mixed",
     {"target": privatree, "choose_split_histogram": _histograms_charged_once},
     "charge outside a query"),
])
def test_each_invariant_sees_its_planted_fault(name, problem, patches, seen):
    assert _watched(name, problem) == []  # the shipped code
    found = _watched(name, problem, **patches)
    assert any(seen in v for v in found), found


def test_the_n_comparison_sees_a_setting_computed_from_the_rows():
    leaf = privatree.leaf_epsilon
    rows = _neighbours(CATEGORICAL, 400)

    def fits(patch):
        out = []
        for X, y in rows:
            n = len(y)

            def leaf_from_n(epsilon, levels, n_classes, n_public, n=n):  # n from the rows
                return leaf(epsilon, levels, n_classes, n)

            planted = mock.patch.object(privatree, "leaf_epsilon", leaf_from_n)
            with planted if patch else contextlib.nullcontext():
                out.append(_settings("privatree-histogram", CATEGORICAL, (X, y)))
        return out

    assert fits(False)[0] == fits(False)[1]
    assert fits(True)[0] != fits(True)[1]


def test_a_refit_with_a_record_of_its_own_is_seen():
    domain, X, y = _canary_alone()
    base = RDTSharpClassifier(1.0, n_primary=1, n_secondary=0, max_depth=3, domain=domain,
                              random_state=4).fit(X, y, PUBLIC)
    refit_ = RDTSharpClassifier.refit

    def own_record(self, *args, **kw):  # the planted fault: the refit starts its own record
        from dpviz.records import RECORD

        saved = vars(self).pop(RECORD)
        try:
            return refit_(self, *args, **kw)
        finally:
            vars(self)[RECORD] = saved

    with mock.patch.object(RDTSharpClassifier, "refit", own_record):
        base.refit(X, y, epsilon=0.2)
    assert base.privacy_record.spent == pytest.approx(1.0)  # 1.2 was spent: the test above fails


def test_a_select_declared_monotone_is_checked_on_its_rows():
    """A quality that moves both ways (class n's count minus class y's) declared monotone."""
    _, X, y = _canary_alone()
    table = PrivateTable(X, y, domain=CATEGORICAL, epsilon=1.0, rng=0)

    def difference(codes, labels):
        counts = np.bincount(labels, minlength=2)
        return np.array([counts[0] - counts[1], counts[1] - counts[0]], dtype=float)

    for monotone, flagged in ((False, False), (True, True)):
        with watch() as w:
            table.select([0, 1], difference, sensitivity=2.0, epsilon=0.1, monotone=monotone)
        assert any("monotone" in v for v in w.violations) == flagged, w.violations


def test_empirical_sensitivity_finds_gini_above_one_on_a_pure_side():
    """FS's Gini quality moves by up to 2 (a row of a new class on a pure side): on 10 pure rows
    the search finds 1 + 9/11 > 1, so a declared Δ = 1 is refused."""
    domain = Domain([Categorical("a", ("0", "1"))], ["n", "y"])
    codes = np.zeros((10, 1))
    labels = np.zeros(10, dtype=np.int64)

    def quality(c, lab):
        t = np.bincount(c[:, 0].astype(int) * 2 + lab, minlength=4).reshape(1, 2, 2)
        return np.atleast_1d(q_gini(t.astype(float)))

    worst, _ = empirical_sensitivity(quality, codes, labels, domain)
    assert worst == pytest.approx(1 + 9 / 11)
    assert worst <= 2.0 and not math.isclose(worst, 1.0)


_CALL = _LeafRelease.__call__


def _unvisited_leaves_get_class_0(self, leaf_keys):
    """A leaf no row reached released as class 0 (no keyed noise)."""
    keys = np.asarray(leaf_keys, dtype=np.uint64)
    out = np.zeros(len(keys), dtype=np.int64)
    hit = np.isin(keys, self._visited)
    if hit.any():
        out[hit] = _CALL(self, keys[hit])
    return out


def test_a_leaf_released_without_noise_is_seen():
    assert _watched("forest", "canary alone") == []
    found = _watched("forest", "canary alone", target=_LeafRelease,
                     __call__=_unvisited_leaves_get_class_0)
    assert any("without noise" in v for v in found), found
