"""quiver's scanner keeps exactly Polars' rows, pushdown on and off.

For every generated expression: Polars' df.filter(expr) on the in-memory
DataFrame against `quiver scan --where expr` with and without pushdown,
compared as sorted rows (-0.0 and 0.0 told apart, every NaN equal).
Fails on any difference in rows, on quiver returning rows where Polars
raises, and on a quiver error that is neither "not yet evaluable" nor a
named gap (known_gaps.py).  The not-yet-evaluable operators are printed.
Where eager Polars raises (a strict cast that fails on a row another
conjunct drops), scans through the package (a lazy frame) are judged
against Polars' lazy engine, which applies such a conjunct after the scan;
scans through the command (QV_PEERS_SCAN=cli) must fail as eager Polars.
"""

import collections
import re

import conftest
import exprgen
import known_gaps
import peer_run
import quiver_driver as qv


def test_enough_expressions_and_every_shape():
    cases = exprgen.generate()
    assert len(cases) >= 500, len(cases)
    assert len({c.text for c in cases}) == len(cases), "duplicate expressions"
    shapes = {c.shape for c in cases}
    for shape, texts in exprgen.catalogue():
        assert texts and shape in shapes
    # Reproducible: the same seed gives the same expressions.
    assert [c.text for c in exprgen.generate()] == [c.text for c in cases]


def _operator(message):
    m = re.search(r"operator (\S+) cannot be bound", message or "")
    return m.group(1) if m else re.sub(r" at column \d+", "", message or "")


def test_scan_matches_polars(peers):
    world, results = peers
    failures, not_yet, gaps = [], collections.Counter(), collections.Counter()
    compared = lazy_only = 0
    for r in results:
        for mode, got in (("pushdown on", r.scan_on), ("pushdown off", r.scan_off)):
            want = r.polars
            if not want.ok and qv.scan_via() == "package" and r.polars_lazy.ok:
                # quiver.scan is a lazy frame: Polars' lazy engine decides
                # which conjuncts reach the scan (never a strict cast) and
                # applies the others itself, on the rows the scan kept
                want = r.polars_lazy
                lazy_only += 1
            if not got.ok:
                if peer_run.not_yet_evaluable(got):
                    not_yet[_operator(got.error)] += 1
                elif known_gaps.known_gap(got.error):
                    gaps[known_gaps.known_gap(got.error)] += 1
                elif want.ok:
                    failures.append("%s: quiver fails (%s) where Polars keeps %d rows\n    %s"
                                    % (mode, got.error, len(want.ids), r.case.text))
                continue
            if not want.ok:
                failures.append("%s: quiver keeps %d rows where Polars raises %s\n    %s"
                                % (mode, len(got.ids), want.error, r.case.text))
                continue
            compared += 1
            if got.rows != want.rows:
                failures.append("%s: %s\n    %s" % (mode, peer_run.describe_diff(got.ids, want.ids), r.case.text))
            if failures and r.case.shape.startswith("composed") and failures[-1].endswith(r.case.text):
                failures[-1] += "  (composed)"
    out = conftest.SUMMARY
    out.append("peer run (QV_PEERS_SEED=%d): %d expressions, %d scans compared with Polars row for row, %d differ"
               % (exprgen.seed(), len(results), compared, len(failures)))
    out.append("scans judged against lazy Polars because eager Polars raises (a strict cast the lazy engine "
               "applies after the scan): %d" % lazy_only)
    out.append("not yet evaluable by quiver's scanner (scans refused, by operator): "
               + ", ".join("%s %d" % (op, n) for op, n in not_yet.most_common()))
    out.append("known gaps (scans refused): " + "; ".join("%s (%d)" % (k, n) for k, n in gaps.most_common()))
    # Catalogue expressions first: they name the root causes.
    failures.sort(key=lambda f: "composed" in f)
    assert not failures, "quiver scan differs from Polars (QV_PEERS_SEED=%d), %d failures:\n%s" % (
        exprgen.seed(), len(failures), "\n".join(failures[:60]))
