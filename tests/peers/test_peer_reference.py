"""quiver's translator next to the reference, polars_pylance 0.1.9.

The issue's three documented examples must print byte for byte as the
reference's LanceFilter repr.  On every generated expression the two are
compared; each difference is judged by running both SQL strings through
Lance against Polars' rows, and quiver must never be the side that keeps
the wrong rows.  The full comparison is the coverage table in
docs/lance-pushdown.md, which must be the output of lance_coverage.py.
"""

import os

import conftest

import polars as pl
import pytest

import lance_coverage
import peer_run
import quiver_driver as qv

EXAMPLES = [
    'pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2])',
    'pl.col("text").str.slice(0, 2) == "xy"',
    '(pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")',
]
EXAMPLE_PRINTS = [
    'LanceFilter(sql="(starts_with(`cat`, \'b\') AND (`id` IN (1, 2)))", exact=True)',
    "None",
    "LanceFilter(sql='(`id` > 5)', exact=False)",
]


@pytest.mark.parametrize("index", range(3))
def test_documented_examples_match_reference(index):
    from polars_pylance import to_lance_filter

    text = EXAMPLES[index]
    schema = pl.Schema({"cat": pl.String, "id": pl.Int64, "text": pl.String})
    ref = repr(to_lance_filter(eval(text, {"pl": pl}), schema=schema))  # noqa: S307
    assert ref == EXAMPLE_PRINTS[index]
    assert qv.lance_filter_repr(text, "cat:string,id:int64,text:string") == ref
    assert qv.lance_filter_repr(text) == ref  # as documented: no schema given


def test_quiver_is_never_the_wrong_side(peers):
    world, results = peers
    diffs = lance_coverage.differences(results)
    wrong = [d for d in diffs if d["quiver"].startswith("wrong")]
    who = lance_coverage.who_counts(diffs)
    conftest.SUMMARY.append("quiver vs polars_pylance 0.1.9: %d of %d expressions differ; right rows: %s "
                            "(listed in docs/lance-pushdown.md)" % (len(diffs), len(results), who))
    assert diffs, "the comparison found no difference at all: is the reference running?"
    assert not wrong, "\n".join("%s: %s" % (d["text"], d["quiver"]) for d in wrong)


def test_coverage_doc_is_current(peers):
    import exprgen

    if not exprgen.is_default_run():
        pytest.skip("!!! QV_PEERS_SEED=%d QV_PEERS_COUNT=%d: the committed doc is for seed %d and %d expressions,"
                    " not compared !!!" % (exprgen.seed(), exprgen.count(), exprgen.DEFAULT_SEED, exprgen.DEFAULT_COUNT))
    world, results = peers
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "lance-pushdown.md")
    with open(path, encoding="utf-8") as f:
        committed = f.read()
    marker = lance_coverage.UNCHECKED
    assert committed.split(marker)[0] == lance_coverage.render(results).split(marker)[0], (
        "docs/lance-pushdown.md is stale: regenerate it with `make lance-coverage`")
