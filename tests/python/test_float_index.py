"""Scalar indices on float columns keep exactly Polars' rows.

A table of float64 and float32 values with NaN of both signs, +-inf, -0.0
and 0.0, nulls and ordinary values is written by Polars as Arrow IPC,
imported with `quiver import`, and indexed (BTREE on both columns, BITMAP on
the float32 one as well).  For every predicate, `quiver.scan(...).filter(e)`
with use_scalar_index on and off keeps the same rows as Polars' own
`df.filter(e)`; the selective ones must be answered by an index (the scan's
explain says which) and the others not.

The build directory comes from QV_BUILD_DIR (default /work/main/build).
"""

import math
import os
import subprocess

import pytest

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the float index tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the float index tests are SKIPPED. "
        "Run make pypackage. !!!" % exc,
        allow_module_level=True,
    )

BUILD = os.environ.get("QV_BUILD_DIR", "/work/main/build")
QUIVER = os.path.join(BUILD, "quiver")

ROWS = 200000
EDGES = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, None, 1.5, -2.5]


def _table():
    x = []
    for i in range(ROWS):
        k = i % 1000
        x.append(EDGES[k] if k < len(EDGES) else (i * 7919 % ROWS) / ROWS)
    return pl.DataFrame(
        {
            "idx": pl.Series(range(ROWS), dtype=pl.Int64),
            "x": pl.Series(x, dtype=pl.Float64),
            "f": pl.Series(x, dtype=pl.Float32),
        }
    )


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    if not os.path.exists(QUIVER):
        pytest.skip("!!! %s not found (build it, or set QV_BUILD_DIR) !!!" % QUIVER)
    d = tmp_path_factory.mktemp("float_index")
    df = _table()
    # the data really holds both NaN signs and both zeros
    signs = {math.copysign(1.0, v) for v in df["x"].to_list() if v is not None and (math.isnan(v) or v == 0)}
    assert signs == {1.0, -1.0}
    ipc = d / "t.arrow"
    df.write_ipc(ipc)
    ds = d / "ds"
    subprocess.run([QUIVER, "import", "-q", "--page-rows", "256", str(ipc), str(ds)], check=True)
    for col, kind in (("x", "btree"), ("f", "btree"), ("f", "bitmap")):
        subprocess.run(
            [QUIVER, "index", "create", str(ds), "--column", col, "--type", kind, "--name", f"{col}_{kind}"],
            check=True,
            capture_output=True,
        )
    return df, ds


# (predicate, answered by an index when scanning).  Infinite and NaN
# literals are not here: Polars serializes them as JSON null, so such a
# predicate does not reach quiver (test_non_finite_literals_fall_back).
PREDICATES = [
    ('pl.col("x") > 0.999', True),
    ('pl.col("x") >= 0.999', True),
    ('pl.col("x") > 1.0', True),  # 1.5, inf and NaN of both signs
    ('pl.col("x") >= 1.5', True),
    ('pl.col("x") == 0.0', True),
    ('pl.col("x") == -0.0', True),
    ('pl.col("x") <= -0.0', True),
    ('pl.col("x") < 0.0', True),
    ('pl.col("x") < -1', True),  # -2.5 and -inf, never -NaN
    ('pl.col("x") <= -2.5', True),
    ('pl.col("x").is_in([0.0, 1.5])', True),
    ('pl.col("x").is_between(0.998, 1.0)', True),
    ('pl.col("x").is_between(0.5, 0.51)', True),  # neither half alone: one lookup of both
    ('pl.col("f").is_between(-0.0, 0.01)', True),
    ('~(pl.col("x") <= 0.999)', True),
    ('~pl.col("x").is_in([0.0, 1.5])', False),  # most rows: scanned
    ('pl.col("x") > -0.0', False),
    ('pl.col("x") != 0.0', False),
    ('~(pl.col("x") > 0.5)', False),
    ('pl.col("f") > 0.999', True),
    ('pl.col("f") > 1', True),
    ('pl.col("f") == -0.0', True),
    ('pl.col("f") < -1', True),
    ('pl.col("f").is_in([-2.5, 0.0])', True),
    ('~(pl.col("f") < 0.999)', True),
    ('pl.col("f") >= 0.0', False),
]


def _ids(lf):
    return sorted(lf.select("idx").collect()["idx"].to_list())


@pytest.mark.parametrize("text,indexed", PREDICATES)
def test_index_rows_equal_polars(dataset, text, indexed):
    df, ds = dataset
    expr = eval(text, {"pl": pl})  # noqa: S307 - test expressions written here
    want = sorted(df.filter(expr)["idx"].to_list())
    without = _ids(quiver.scan(ds, use_scalar_index=False).filter(expr))
    report_off = quiver.last_scan
    assert report_off.pushed, report_off.fallback
    assert "scalar indices: off" in report_off.explain
    got = _ids(quiver.scan(ds, use_scalar_index=True).filter(expr))
    report = quiver.last_scan
    assert report.pushed, report.fallback
    assert got == want
    assert without == want
    used = [ln for ln in report.explain.splitlines() if "exact, estimate" in ln and "not used" not in ln]
    assert bool(used) == indexed, report.explain


def test_polars_keeps_both_nans_and_zeros(dataset):
    # what makes the cases above worth checking: Polars keeps NaN of both
    # signs above every value and -0.0 with 0.0, where IEEE would not
    df, ds = dataset
    assert df.filter(pl.col("x").is_nan()).height == 2 * (ROWS // 1000)
    got = _ids(quiver.scan(ds).filter(pl.col("x") > 1.5))
    assert "x_btree (btree) answers (x > 1.5): exact" in quiver.last_scan.explain
    assert got == sorted(df.filter(pl.col("x").is_nan() | pl.col("x").is_infinite() & (pl.col("x") > 0))["idx"])
    got = _ids(quiver.scan(ds).filter(pl.col("x") == 0.0))
    assert "x_btree (btree) answers (x = 0.0): exact" in quiver.last_scan.explain
    assert len(got) == 2 * (ROWS // 1000)  # the -0.0 and 0.0 edges
    assert got == sorted(df.filter(pl.col("x") == 0.0)["idx"])


@pytest.mark.parametrize("text", ['pl.col("x") > float("inf")', 'pl.col("x") < float("-inf")', 'pl.col("f") > float("nan")'])
def test_non_finite_literals_fall_back(dataset, text):
    df, ds = dataset
    expr = eval(text, {"pl": pl})  # noqa: S307 - test expressions written here
    assert '{"Float":null}' in expr.meta.serialize(format="json")
    got = _ids(quiver.scan(ds).filter(expr))
    assert not quiver.last_scan.pushed
    assert got == sorted(df.filter(expr)["idx"].to_list())
