"""Every translation quiver produces runs in Lance with Polars' rows.

The table is written with lance.write_dataset; each expression's
translation (with the table's schema, and schema-less) runs through
lance.dataset(uri).to_table(filter=sql).  exact=True must keep exactly
Polars' rows, exact=False a superset; a Lance error is a failure too.
Schema-less translations assume stored NaNs are positive: where only that
assumption makes them wrong (the table holds -NaN on purpose) they are
listed, not failed.  A failure here is a translator bug: fix
src/pushdown/lance.c or make the node decline, and add a golden case.
"""

import collections

import conftest

import exprgen
import known_gaps
import peer_run


def _check(results, pick, judge):
    failures, counts, noted = [], collections.Counter(), []
    for r in results:
        tr = pick(r)
        if tr.error:
            if not known_gaps.known_gap(tr.error):
                failures.append("translator error %s\n    %s" % (tr.error, r.case.text))
            counts["front-end gap"] += 1
            continue
        if not tr.pushed:
            counts["declined"] += 1
            continue
        counts["exact" if tr.exact else "inexact"] += 1
        verdict = judge(r)
        if verdict is None:
            counts["not judged (Polars raises)"] += 1
        elif verdict.startswith("assumes positive NaN"):
            noted.append("%s\n    %s\n    -> %s" % (verdict, r.case.text, tr.sql))
        elif verdict != "right":
            failures.append("%s\n    %s\n    -> %s (exact=%s)" % (verdict, r.case.text, tr.sql, tr.exact))
    return failures, counts, noted


def test_translations_with_schema_run_in_lance(peers):
    world, results = peers
    failures, counts, _ = _check(results, lambda r: r.quiver, lambda r: peer_run.judge_translation(r.quiver, r.polars))
    conftest.SUMMARY.append("quiver translations with the schema, run in Lance: %s, %d wrong"
                            % (dict(counts), len(failures)))
    assert counts["exact"] > 200, counts
    assert not failures, "Lance disagrees with quiver's translation (QV_PEERS_SEED=%d):\n%s" % (
        exprgen.seed(), "\n".join(failures[:40]))


def test_schemaless_translations_run_in_lance(peers):
    world, results = peers
    failures, counts, noted = _check(results, lambda r: r.quiver_nos, lambda r: peer_run.judge_schemaless(world, r))
    conftest.SUMMARY.append("quiver schema-less translations, run in Lance: %s, %d wrong" % (dict(counts), len(failures)))
    conftest.SUMMARY.append("schema-less, right only when stored NaNs are positive (%d):" % len(noted))
    conftest.SUMMARY.extend("  " + line for line in noted)
    assert not failures, "Lance disagrees with quiver's schema-less translation (QV_PEERS_SEED=%d):\n%s" % (
        exprgen.seed(), "\n".join(failures[:40]))
