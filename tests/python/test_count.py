"""Counts without columns: ``quiver.count`` and ``Scanner.count()`` keep
exactly Polars' count of the same rows, without materializing a column.

A table with nulls in the filter columns is written with
``quiver.write_dataset`` in several fragments, indexed (BTREE on ``id``,
BITMAP on ``cat``) and has rows deleted.  For every predicate the count
equals ``df.filter(e).height`` over the live rows in Polars, with indices on
and off and pushdown on and off, and equals what ``quiver.scan(...)
.filter(e).select(pl.len())`` counts through Polars.  A count without a
predicate opens no data file (the counters say 0 fragments).
"""

import pytest

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the count tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the count tests are SKIPPED. Run make pypackage. !!!" % exc,
        allow_module_level=True,
    )

ROWS = 30000


def _table() -> pl.DataFrame:
    ids = list(range(ROWS))
    return pl.DataFrame(
        {
            "id": pl.Series(ids, dtype=pl.Int64),
            "val": pl.Series([None if i % 17 == 3 else (i * 7919 % ROWS) / ROWS for i in ids], dtype=pl.Float64),
            "cat": pl.Series([None if i % 23 == 0 else f"c{i % 8}" for i in ids], dtype=pl.String),
            "text": pl.Series([f"row {i}" + (" needle" if i % 1000 == 7 else "") for i in ids], dtype=pl.String),
        }
    )


DELETE = pl.col("id").is_in([5, 6, 7, 20000]) | ((pl.col("cat") == "c1") & (pl.col("id") < 3000))

PREDICATES = [
    pl.col("val") > 0.5,
    pl.col("val") > 0.999,
    pl.col("val").is_null(),
    pl.col("val").is_not_null(),
    pl.col("cat") == "c3",
    pl.col("cat").is_null() | (pl.col("val") < 0.1),
    (pl.col("cat") == "c3") & (pl.col("id") < 10000),
    pl.col("id").is_between(100, 200),
    pl.col("id").is_in([1, 2, 3, 7, 29999]),
    pl.col("text").str.contains("needle"),
    ~(pl.col("val") < 0.25),
    pl.col("id") > 10**9,
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("count") / "ds")
    df = _table()
    quiver.write_dataset(df, path, max_rows_per_file=8000, page_rows=1000)
    quiver.create_index(path, "id", "btree")
    quiver.create_index(path, "cat", "bitmap")
    deleted, _ = quiver.delete(path, DELETE)
    live = df.filter(~DELETE.fill_null(False))
    assert deleted == ROWS - live.height > 0
    return path, live


@pytest.mark.parametrize("predicate", PREDICATES, ids=str)
@pytest.mark.parametrize("use_scalar_index", [True, False])
@pytest.mark.parametrize("predicate_pushdown", [True, False])
def test_count_equals_polars(dataset, predicate, use_scalar_index, predicate_pushdown):
    path, live = dataset
    want = live.filter(predicate).height
    got = quiver.count(path, predicate, use_scalar_index=use_scalar_index, predicate_pushdown=predicate_pushdown)
    assert got == want
    lf = quiver.scan(path, use_scalar_index=use_scalar_index, predicate_pushdown=predicate_pushdown)
    assert lf.filter(predicate).select(pl.len()).collect().item() == want


def test_count_lance_sql(dataset):
    path, live = dataset
    assert quiver.count(path, "cat = 'c3' AND val > 0.5") == live.filter(
        (pl.col("cat") == "c3") & (pl.col("val") > 0.5)
    ).height
    assert quiver.count(path, "") == live.height  # an empty filter keeps every row


def test_count_without_predicate_opens_no_data_file(dataset):
    path, live = dataset
    assert quiver.count(path) == live.height
    scanner = quiver.Scanner(path, columns=[])
    assert scanner.count() == live.height
    counters = scanner.counters()
    assert counters["fragments"] == 0
    assert counters["pages_total"] == 0
    assert counters["rows_returned"] == live.height
    # the scan has ended
    assert list(scanner) == []
    # an older version counts its own rows (before the delete)
    versions = quiver.Dataset(path, 0).version
    assert quiver.count(path, version=versions - 1) == ROWS


def test_scanner_count_with_predicate_reads_only_filter_columns(dataset):
    path, live = dataset
    expr = pl.col("val") > 0.5
    scanner = quiver.Scanner(path, columns=["id", "text"], polars_json=expr.meta.serialize(format="json"))
    assert scanner.count() == live.filter(expr).height
    # the counters table: "  column  bytes read  bytes decoded  pages"
    explain = scanner.explain(counters=True)
    table = {}
    for line in explain.split("bytes decoded", 1)[1].splitlines()[1:]:
        name, read, decoded, pages = line.split()
        table[name] = (int(read), int(decoded), int(pages))
    assert table["val"][0] > 0, explain
    assert table["id"] == (0, 0, 0), explain
    assert table["text"] == (0, 0, 0), explain


def test_count_after_batches_counts_the_rest(dataset):
    path, live = dataset
    expr = pl.col("cat") == "c3"
    scanner = quiver.Scanner(path, columns=["id"], polars_json=expr.meta.serialize(format="json"), batch_size=500)
    first = next(scanner).num_rows
    assert first + scanner.count() == live.filter(expr).height


def test_count_limit_and_offset(dataset):
    path, live = dataset
    expr = pl.col("val") > 0.5
    n = live.filter(expr).height
    js = expr.meta.serialize(format="json")
    assert quiver.Scanner(path, columns=[], polars_json=js, limit=100).count() == 100
    assert quiver.Scanner(path, columns=[], polars_json=js, offset=n - 10).count() == 10
    assert quiver.Scanner(path, columns=[], offset=live.height + 5).count() == 0
    assert quiver.Scanner(path, columns=[], limit=7, offset=3).count() == 7


def test_empty_projection_batches(dataset):
    path, live = dataset
    expr = pl.col("val") > 0.5
    batches = list(quiver.Scanner(path, columns=[], polars_json=expr.meta.serialize(format="json")))
    assert all(b.num_columns == 0 for b in batches)
    assert sum(b.num_rows for b in batches) == live.filter(expr).height


def test_count_predicate_libquiver_cannot_take(dataset):
    """A predicate quiver cannot bind is counted by Polars, as scan filters it."""
    path, live = dataset
    expr = (pl.col("id") ^ 1) > 2
    assert quiver.count(path, expr) == live.filter(expr).height
