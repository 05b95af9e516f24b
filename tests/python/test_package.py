"""The Python package quiver (python/), installed into .venv by `make test`.

* quiver.to_lance_filter: the issue's three examples byte for byte, the
  LanceFilter object, schemas given as dict / pl.Schema, the explain text,
  and agreement with `quiver lance-filter` (the Python-syntax front end) on
  the same expressions written as real pl.Expr (the JSON front end).
* quiver.scan: a dataset made by `quiver import` from a CSV; every collect
  equals the same query run by Polars on the CSV read into memory, with
  projection, limit, pushdown on and off, version=, and the temporary
  fallback for predicates libquiver cannot bind yet.
* The Arrow C stream path: capsules named as the PyCapsule interface says,
  Polars columns pointing at the very buffers libquiver exported.
* Errors: QuiverError with libquiver's message (the classes: test_errors.py).

The build directory (for the `quiver` command) comes from QV_BUILD_DIR
(default: build/ of this checkout).
"""

import datetime
import os
import random
import subprocess
import threading
import warnings

import pytest

try:
    import polars as pl
    from polars.testing import assert_frame_equal
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the quiver package tests are SKIPPED. "
        "Run `make pyenv` and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package is not installed (%s): its tests are SKIPPED. "
        "`make test-python` installs it with `pip install .` into .venv. !!!" % exc,
        allow_module_level=True,
    )

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("QV_BUILD_DIR", os.path.join(HERE, "..", "..", "build"))
QUIVER = os.path.join(BUILD, "quiver")


def cli(*args, check=True):
    if not os.path.exists(QUIVER):
        pytest.skip("!!! %s not found (build it, or set QV_BUILD_DIR) !!!" % QUIVER)
    proc = subprocess.run([QUIVER, *map(str, args)], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError("quiver %s failed: %s" % (" ".join(map(str, args)), proc.stderr))
    return proc


# ---- to_lance_filter ---------------------------------------------------------------


def test_documented_examples_byte_exact():
    f = quiver.to_lance_filter(pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2]))
    assert repr(f) == "LanceFilter(sql=\"(starts_with(`cat`, 'b') AND (`id` IN (1, 2)))\", exact=True)"
    assert quiver.to_lance_filter(pl.col("text").str.slice(0, 2) == "xy") is None
    f = quiver.to_lance_filter((pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy"))
    assert repr(f) == "LanceFilter(sql='(`id` > 5)', exact=False)"


def test_lance_filter_object():
    f = quiver.to_lance_filter((pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy"))
    assert isinstance(f, quiver.LanceFilter)
    assert f.sql == "(`id` > 5)"
    assert f.exact is False
    assert f == quiver.LanceFilter("(`id` > 5)", False)
    assert f != quiver.LanceFilter("(`id` > 5)", True)
    with pytest.raises(AttributeError):
        f.sql = "x"
    # Python's own str repr picks the quotes and escapes.
    g = quiver.LanceFilter("it's \"q\"\n", True)
    assert repr(g) == "LanceFilter(sql=%r, exact=True)" % "it's \"q\"\n"


def test_schema_changes_the_translation():
    e = pl.col("id") > 2.5
    assert quiver.to_lance_filter(e) is None
    want = "LanceFilter(sql='(`id` >= 3)', exact=True)"
    assert repr(quiver.to_lance_filter(e, schema={"id": pl.Int64})) == want
    assert repr(quiver.to_lance_filter(e, schema=pl.Schema({"id": pl.Int64}))) == want
    x = pl.col("x") == -0.0
    assert repr(quiver.to_lance_filter(x, schema={"x": pl.Float64})) == (
        "LanceFilter(sql='((`x` = 0.0) OR (`x` = -0.0))', exact=True)"
    )


def test_explain_lance_filter():
    e = (pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")
    assert quiver.explain_lance_filter(e) == (
        "declined >: without a schema the column may be a float whose NaN Lance orders by sign: kept as a superset "
        "(exact=False), assuming stored NaNs are positive [(id > 5)]\n"
        "declined str.slice: str.slice has no Lance spelling with Polars' offsets [str.slice(`text`, 0, 2)]\n"
        "dropped a conjunct of AND: the filter keeps a superset\n"
    )
    assert quiver.explain_lance_filter(pl.col("v").round(1) == 0.5, schema={"v": pl.Float64}) == (
        "declined round: round: Polars rounds ties to even, Lance away from zero [round(v, 1, 'half_to_even')]\n"
    )
    assert quiver.explain_lance_filter(pl.col("id").is_in([1, 2])) == "nothing declined\n"


# The same expressions as Python text for `quiver lance-filter` and as pl.Expr
# for the package: the two front ends must give the same answer.
CROSS_CHECK = [
    'pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2])',
    '(pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")',
    'pl.col("id") > 2.5',
    'pl.col("x") == -0.0',
    '(pl.col("id") % 3 == 1) | pl.col("cat").is_null()',
    '~(pl.col("cat") == "c2") & pl.col("x").is_not_nan()',
    'pl.col("text").str.contains("it\'s") ^ (pl.col("id") <= 10)',
    'pl.col("d") >= pl.lit(datetime.date(2024, 3, 1))',
    'pl.col("x").abs() < 0.25',
    'pl.col("id").cast(pl.Int16) == 7',
    'pl.col("text").str.to_uppercase() == "ABC"',
    'pl.col("id") // 7 == 2',
    'pl.when(pl.col("id") > 5).then(True).otherwise(False)',
]
SCHEMA_TEXT = "id:int64,x:float64,cat:string,text:string,d:date32"
SCHEMA = {"id": pl.Int64, "x": pl.Float64, "cat": pl.String, "text": pl.String, "d": pl.Date}


@pytest.mark.parametrize("text", CROSS_CHECK)
@pytest.mark.parametrize("with_schema", [False, True])
def test_same_answer_as_the_command(text, with_schema):
    expr = eval(text, {"pl": pl, "datetime": datetime})
    args = ["lance-filter", text] if not with_schema else ["lance-filter", "--schema", SCHEMA_TEXT, text]
    want = cli(*args).stdout
    got = repr(quiver.to_lance_filter(expr, schema=SCHEMA if with_schema else None)) + "\n"
    assert got == want


def test_to_lance_filter_errors():
    with pytest.raises(TypeError, match="expected a polars Expr, not str"):
        quiver.to_lance_filter("id > 1")
    with pytest.raises(TypeError, match="schema must be a dict"):
        quiver.to_lance_filter(pl.col("a") > 1, schema=["a"])
    with pytest.raises(quiver.QuiverError) as info:
        quiver._quiver.to_lance_filter("{bad")
    assert str(info.value) == "polars json: expected a member name, found 'b' at byte 1"
    assert info.value.status == "parse error"
    with pytest.raises(quiver.QuiverError, match="^field 'a': import: Arrow format 'w:8' is not supported$"):
        quiver.to_lance_filter(pl.col("a") > 1, schema={"a": pl.Object})


# ---- BigQuery ---------------------------------------------------------------------------

BQ_SCHEMA = [
    {"name": "id", "type": "INT64", "mode": "REQUIRED"},
    {"name": "x", "type": "FLOAT64"},
    {"name": "cat", "type": "STRING"},
    {"name": "text", "type": "STRING"},
    {"name": "d", "type": "DATE"},
]


@pytest.mark.parametrize("text", CROSS_CHECK)
def test_bigquery_same_answer_as_the_command(text, tmp_path):
    import json

    expr = eval(text, {"pl": pl, "datetime": datetime})
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(BQ_SCHEMA))
    want = cli("bigquery-filter", "--schema", str(schema_file), text).stdout
    for schema in (BQ_SCHEMA, json.dumps(BQ_SCHEMA), {"fields": BQ_SCHEMA}):
        assert repr(quiver.to_bigquery_filter(expr, schema)) + "\n" == want
    # (the text front end knows where each node is; Polars' JSON does not)
    import re

    want_explain = cli("bigquery-filter", "--explain", "--schema", str(schema_file), text).stdout
    want_explain = re.sub(r" at column \d+", "", want_explain)
    assert want_explain.startswith(repr(quiver.to_bigquery_filter(expr, BQ_SCHEMA)) + "\n")
    assert want_explain.endswith(quiver.explain_bigquery_filter(expr, BQ_SCHEMA))


def test_bigquery_filter_object_and_errors():
    f = quiver.to_bigquery_filter((pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy"), BQ_SCHEMA)
    assert isinstance(f, quiver.BigQueryFilter)
    assert repr(f) == "BigQueryFilter(sql='(`id` > 5)', exact=False)"
    assert f == quiver.BigQueryFilter("(`id` > 5)", False)
    assert f != quiver.LanceFilter("(`id` > 5)", False)
    assert quiver.to_bigquery_filter(pl.col("text").str.slice(0, 2) == "xy") is None
    # a Polars schema works too
    assert repr(quiver.to_bigquery_filter(pl.col("id") > 5, {"id": pl.Int64})) == (
        "BigQueryFilter(sql='(`id` > 5)', exact=True)"
    )
    with pytest.raises(quiver.QuiverError):
        quiver.to_bigquery_filter(pl.col("a.b") > 1)
    with pytest.raises(quiver.QuiverError):
        quiver.to_bigquery_filter(pl.col("a") > 1, '[{"name": "a", "type": "FLOAT32"}]')


# ---- scans ----------------------------------------------------------------------------

ROWS = 30000


def _csv_rows(seed, n, start=0):
    rng = random.Random(seed)
    words = ["abc", "bx", "xyz", "", "étoile", "b", "it's", "zz top", "XY"]
    lines = []
    for i in range(start, start + n):
        val = "" if i % 13 == 0 else repr(round(rng.uniform(-1, 1), 6))
        cat = "" if i % 29 == 0 else "c%d" % (i % 5)
        d = datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 400)
        text = rng.choice(words)
        lines.append('%d,%s,%s,%s,"%s"' % (i, val, cat, d.isoformat(), text))
    return lines


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A three-fragment dataset (version 1) plus an appended version 2, and
    the same rows read by Polars for each version."""
    tmp = tmp_path_factory.mktemp("quiver")
    header = "id,val,cat,d,text"
    csv1, csv2 = tmp / "v1.csv", tmp / "v2.csv"
    csv1.write_text("\n".join([header, *_csv_rows(1, ROWS)]) + "\n")
    csv2.write_text("\n".join([header, *_csv_rows(2, 1000, start=ROWS)]) + "\n")
    path = tmp / "ds"
    opts = ["--page-rows", "2048", "--max-rows-per-file", "12000", "-q"]
    cli("import", csv1, path, *opts)
    cli("import", csv2, path, "--mode", "append", *opts)
    schema = quiver.scan(path).collect_schema()
    v1 = pl.read_csv(csv1, schema=schema)
    v2 = pl.concat([v1, pl.read_csv(csv2, schema=schema)])
    return str(path), v1, v2


def test_scan_schema_and_everything(dataset):
    path, _, v2 = dataset
    lf = quiver.scan(path)
    assert isinstance(lf, pl.LazyFrame)
    assert lf.collect_schema() == pl.Schema(
        {"id": pl.Int64, "val": pl.Float64, "cat": pl.String, "d": pl.Date, "text": pl.String}
    )
    assert_frame_equal(lf.collect(), v2)
    assert quiver.last_scan.rows == ROWS + 1000
    # Polars asks for batches of 100000 rows; with strings projected the
    # scanner hands over its page pieces as they come (nothing copied into
    # bigger batches): one per page of the 4 fragments (2,048 rows a page).
    assert quiver.SCAN_BATCH_ROWS == 8192
    assert quiver.last_scan.counters["fragments"] == 4
    assert quiver.last_scan.counters["fragments_index_skipped"] == 0  # no index here
    assert quiver.last_scan.batches == quiver.last_scan.counters["pages_total"] == 6 + 6 + 3 + 1
    # Fixed-width columns only: bigger chunks (joining pieces copies little).
    got = quiver.scan(path).select("id", "val", "d").collect()
    assert_frame_equal(got, v2.select("id", "val", "d"))
    assert quiver.FIXED_WIDTH_BATCH_ROWS == 65536
    assert quiver.last_scan.batches == -(-(ROWS + 1000) // quiver.FIXED_WIDTH_BATCH_ROWS)
    # A selective filter leaves a few rows per page: those small pieces are
    # joined (below 8192 / 16 rows), so Polars gets one chunk, not sixteen.
    sel = quiver.scan(path).filter(pl.col("id") % 1000 == 0).select("id", "text").collect()
    assert_frame_equal(sel, v2.filter(pl.col("id") % 1000 == 0).select("id", "text"))
    assert quiver.last_scan.counters["pages_total"] == 16
    assert quiver.last_scan.batches == 1


# Elementwise predicates libquiver binds today.
PUSHED = [
    pl.col("val") > 0.5,
    (pl.col("id") % 7 == 3) & pl.col("cat").is_in(["c1", "c3"]),
    pl.col("text").str.starts_with("b") | pl.col("val").is_null(),
    pl.col("d") >= datetime.date(2024, 6, 1),
    ~(pl.col("cat") == "c2"),
    pl.col("text").str.contains("é") | (pl.col("text") == ""),
    pl.col("id") < 100,
    (pl.col("val") * 2 + 1 > 1.5) & pl.col("cat").is_not_null(),
]
# Predicates that libquiver could not bind when this was written (some may
# be bound by now: then they are pushed, and the rows must still be equal).
MAYBE_FALLBACK = [
    pl.col("text").str.slice(0, 1) == "x",
    pl.col("val").round(1) == 0.5,
    pl.col("id") // 1000 == 3,
    pl.when(pl.col("id") > 5).then(pl.col("val") > 0.5).otherwise(False),
    pl.col("id").is_between(100, 200),
]


@pytest.mark.parametrize("pushdown", [True, False])
@pytest.mark.parametrize("pred", PUSHED, ids=str)
def test_filter_equals_polars(dataset, pred, pushdown):
    path, _, v2 = dataset
    got = quiver.scan(path, predicate_pushdown=pushdown).filter(pred).collect()
    assert_frame_equal(got, v2.filter(pred))
    assert quiver.last_scan.pushed, quiver.last_scan.fallback
    assert quiver.last_scan.rows == got.height


@pytest.mark.parametrize("pred", MAYBE_FALLBACK, ids=str)
def test_not_yet_bindable_predicates_fall_back(dataset, pred):
    path, _, v2 = dataset
    got = quiver.scan(path).filter(pred).select("id", "text").collect()
    assert_frame_equal(got, v2.filter(pred).select("id", "text"))
    report = quiver.last_scan
    if not report.pushed:
        assert "cannot be bound" in report.fallback or "not supported" in report.fallback


def test_fallback_is_visible(dataset):
    """str.reverse is a Polars operator libquiver's JSON reader does not know:
    the predicate is evaluated by Polars on the batches, and the report says so."""
    path, _, v2 = dataset
    pred = pl.col("text").str.reverse() == "cba"
    got = quiver.scan(path).filter(pred).collect()
    assert_frame_equal(got, v2.filter(pred))
    report = quiver.last_scan
    assert report.pushed is False
    # The JSON reader keeps an operator it does not know as such, by name.
    assert report.fallback == "filter: the Polars construct StringExpr.Reverse is not supported by quiver"
    assert report.explain.splitlines()[0].startswith("Scan %s version 2" % path)
    assert "Filter" not in report.explain  # nothing was filtered in C
    assert report.rows == got.height


def test_fallback_resumes_after_rows_already_given(dataset):
    """A pushed scan that fails midway (an operator the evaluator does not
    support) continues with the fallback, which drops the matching rows
    already produced."""
    path, _, v2 = dataset
    pred = pl.col("val") > 0.25
    report = quiver.ScanReport(path, 2, None, str(pred), 50, False, "test")
    frames = list(quiver._fallback(path, ["id"], pred, 50, 17, {"version": 2, "batch_size": 4096}, report))
    got = pl.concat(frames)
    assert_frame_equal(got, v2.filter(pred).select("id").slice(17, 33))
    assert report.rows == 50


def test_projection_and_limit_go_to_the_scanner(dataset):
    path, _, v2 = dataset
    lf = quiver.scan(path)
    got = lf.select("text", "id").collect()
    assert_frame_equal(got, v2.select("text", "id"))
    assert sorted(quiver.last_scan.columns) == ["id", "text"]
    assert "Project: id, text" in quiver.last_scan.explain

    got = lf.head(25).collect()
    assert_frame_equal(got, v2.head(25))
    assert quiver.last_scan.limit == 25
    assert quiver.last_scan.counters["rows_returned"] == 25

    pred = pl.col("val") < -0.9
    got = lf.filter(pred).select("id").head(7).collect()
    assert_frame_equal(got, v2.filter(pred).select("id").head(7))

    assert lf.select(pl.len()).collect().item() == ROWS + 1000


def test_polars_plan_shows_the_quiver_scan(dataset):
    path, _, _ = dataset
    plan = quiver.scan(path).filter(pl.col("id") > 5).select("cat").explain().splitlines()
    assert [line.strip() for line in plan[1:]] == [
        "PYTHON[quiver] SCAN []",
        "PROJECT 2/5 COLUMNS",
        'SELECTION: col("id") > 5',
        "INFO: %s version 2" % path,
    ]


def test_pushdown_switch_changes_the_work_not_the_rows(dataset):
    path, _, v2 = dataset
    pred = pl.col("id") < 100
    on = quiver.scan(path).filter(pred).collect()
    pruned_on = quiver.last_scan.counters["pages_pruned"]
    off = quiver.scan(path, predicate_pushdown=False).filter(pred).collect()
    pruned_off = quiver.last_scan.counters["pages_pruned"]
    assert_frame_equal(on, off)
    assert on.height == 100
    assert pruned_on > 0 and pruned_off == 0


def test_versions(dataset):
    path, v1, v2 = dataset
    pred = pl.col("cat") == "c4"
    assert_frame_equal(quiver.scan(path, version=1).filter(pred).collect(), v1.filter(pred))
    assert quiver.last_scan.version == 1
    assert_frame_equal(quiver.scan(path, version=2).collect(), v2)
    assert_frame_equal(quiver.scan(path, use_scalar_index=False).collect(), v2)


def test_version_is_fixed_when_scan_is_called(dataset, tmp_path):
    _, _, v2 = dataset
    path = tmp_path / "grow"
    csv = tmp_path / "g.csv"
    csv.write_text("a\n1\n2\n")
    cli("import", csv, path, "-q")
    lf = quiver.scan(path)
    cli("import", csv, path, "--mode", "append", "-q")
    assert lf.collect()["a"].to_list() == [1, 2]
    assert quiver.scan(path).collect()["a"].to_list() == [1, 2, 1, 2]


def test_streaming_engine_and_threads(dataset):
    path, _, v2 = dataset
    pred = pl.col("val") > 0.9
    want = v2.filter(pred)
    assert_frame_equal(quiver.scan(path).filter(pred).collect(engine="streaming"), want)
    results, errors = [], []

    def work():
        try:
            results.append(quiver.scan(path).filter(pred).collect())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for r in results:
        assert_frame_equal(r, want)


# ---- the Arrow C stream path ------------------------------------------------------------


def test_string_views(dataset):
    """with_string_views(): the same rows, strings as Arrow string_view
    (views onto libquiver's bytes), which is what quiver.scan hands Polars."""
    pa = pytest.importorskip("pyarrow", reason="!!! pyarrow cannot be imported: string_view check SKIPPED !!!")
    path, _, v2 = dataset
    batch = next(quiver.Scanner(path, columns=["id", "cat", "text"], filter="id >= 100", batch_size=5000))
    views = batch.with_string_views()
    assert views.num_rows == batch.num_rows
    table = pa.table(views)
    assert table.schema.field("text").type == pa.string_view()
    assert table.schema.field("id").type == pa.int64()
    assert table.cast(pa.table(batch).schema).equals(pa.table(batch))
    df = pl.DataFrame(views)
    assert df.schema["text"] == pl.String
    assert_frame_equal(df, pl.DataFrame(batch))
    want = v2.filter(pl.col("id") >= 100).select("id", "cat", "text").head(df.height)
    assert_frame_equal(df, want)
    del views, batch  # Polars' frame keeps the exported buffers
    assert_frame_equal(df, want)


def test_batches_cross_without_copying(dataset):
    path, _, v2 = dataset
    scanner = quiver.Scanner(path, columns=["id", "val"], filter="id >= 5000", batch_size=3000)
    batch = next(scanner)
    capsule = batch.__arrow_c_stream__()
    assert type(capsule).__name__ == "PyCapsule"
    assert "arrow_array_stream" in repr(capsule)
    del capsule  # an unconsumed capsule releases its stream
    df = pl.DataFrame(batch)
    assert df.height == batch.num_rows
    assert 0 < batch.num_rows <= 3000
    # Polars' column points at the buffer libquiver exported: no copy.
    assert df["id"].to_numpy(allow_copy=False).ctypes.data == batch.values_address(0)
    assert df["id"][0] == 5000
    with pytest.raises(TypeError, match="not of a fixed-width type"):
        quiver.Scanner(path, columns=["text"]).__next__().values_address(0)
    # The frame outlives the batch object and the scanner.
    del batch, scanner
    assert_frame_equal(df, v2.filter(pl.col("id") >= 5000).select("id", "val").head(df.height))


def test_memory_trim(tmp_path):
    """memory_trim gives back the large blocks a scan freed, and only once."""
    csv = tmp_path / "n.csv"
    csv.write_text("n\n" + "".join("%d\n" % i for i in range(40000)))
    path = tmp_path / "ds"
    cli("import", csv, path, "-q")
    quiver.memory_trim()
    assert quiver.memory_trim() == 0
    # one batch of 40,000 int64: a 320,000-byte buffer, kept when freed
    batch = next(quiver.Scanner(str(path), batch_size=40000))
    assert batch.num_rows == 40000
    del batch
    assert quiver.memory_trim() >= 320000
    assert quiver.memory_trim() == 0


def test_batches_stream_one_frame_of_chunks(dataset):
    """batches_stream: a scan's batches as one stream, which is how
    quiver.scan hands Polars a frame: each batch a chunk, buffers shared,
    strings as views when asked."""
    from quiver._quiver import batches_stream

    path, _, v2 = dataset
    batches = list(quiver.Scanner(path, columns=["id", "text"], filter="id >= 100 AND id < 7100", batch_size=3000))
    assert len(batches) >= 3

    class Chunks:
        def __init__(self, views):
            self.views = views

        def __arrow_c_stream__(self, requested_schema=None):
            return batches_stream(batches, string_views=self.views)

    for views in (False, True):
        df = pl.DataFrame(Chunks(views))
        assert df.n_chunks() == len(batches)
        assert df.height == 7000
        assert_frame_equal(df, v2.filter((pl.col("id") >= 100) & (pl.col("id") < 7100)).select("id", "text"))
    # the first chunk's ids are the first batch's buffer, not a copy
    df = pl.DataFrame(Chunks(True))
    first = df["id"][: batches[0].num_rows].to_numpy(allow_copy=False)
    assert first.ctypes.data == batches[0].values_address(0)
    with pytest.raises(ValueError, match=r"0 batches \(1 or more\)"):
        batches_stream([])
    with pytest.raises(TypeError, match="item 1 is a int, not a Batch"):
        batches_stream([batches[0], 5])
    other = next(quiver.Scanner(path, columns=["id"]))
    with pytest.raises(ValueError, match="batch 1 has another schema than batch 0"):
        batches_stream([batches[0], other])


def test_scanner_stream_capsule(dataset):
    path, _, v2 = dataset
    scanner = quiver.Scanner(path, columns=["id", "cat"], polars_json=(pl.col("id") < 30).meta.serialize(format="json"))
    assert scanner.column_names == ["id", "cat"]
    assert pl.Schema(scanner) == pl.Schema({"id": pl.Int64, "cat": pl.String})
    df = pl.DataFrame(scanner)  # consumes scanner.__arrow_c_stream__
    assert_frame_equal(df, v2.filter(pl.col("id") < 30).select("id", "cat"))
    with pytest.raises(RuntimeError, match="handed to an Arrow stream"):
        next(scanner)
    with pytest.raises(RuntimeError, match="handed to an Arrow stream"):
        scanner.__arrow_c_stream__()


def test_pyarrow_reads_the_stream(dataset):
    pa = pytest.importorskip("pyarrow", reason="!!! pyarrow is not installed: this check is SKIPPED !!!")
    path, _, v2 = dataset
    reader = pa.RecordBatchReader.from_stream(quiver.Scanner(path, limit=10))
    table = reader.read_all()
    assert table.num_rows == 10
    assert table.column("id").to_pylist() == list(range(10))
    assert table.schema.field("d").type == pa.date32()


def test_dataset_object(dataset):
    path, _, v2 = dataset
    ds = quiver.Dataset(path)
    assert (ds.version, ds.num_rows, ds.num_fragments) == (2, ROWS + 1000, 4)
    assert quiver.Dataset(path, 1).num_rows == ROWS
    assert pl.Schema(ds) == v2.schema


# ---- errors -----------------------------------------------------------------------------


def test_missing_dataset(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(quiver.QuiverError) as info:
        quiver.scan(missing)
    assert str(info.value) == "%s: no dataset here (no _versions/*.manifest)" % missing
    assert info.value.status == "not found"
    assert isinstance(info.value, ValueError)


def test_errors_carry_the_c_message(dataset):
    path, _, _ = dataset
    with pytest.raises(quiver.QuiverError, match="^%s: version 9 does not exist$" % path):
        quiver.scan(path, version=9)
    with pytest.raises(quiver.QuiverError, match="^filter: expected an expression at column 5, found end of input$"):
        quiver.Scanner(path, filter="id >")
    with pytest.raises(quiver.QuiverError, match=r"^filter: no column `nope` \(columns: id, val, cat, d, text\)$"):
        quiver.Scanner(path, polars_json=(pl.col("nope") > 1).meta.serialize(format="json"))
    with pytest.raises(quiver.QuiverError, match=r"^select: no column `zz` \(columns: id, val, cat, d, text\)$"):
        quiver.Scanner(path, columns=["zz"])
    # A strict cast that fails while scanning surfaces through Polars' collect.
    with pytest.raises(quiver.QuiverError, match=r"^scan of data/[0-9a-f]+\.qvf: CAST: '[^']*' is not a valid int64 \(row \d+\)$"):
        quiver.scan(path).filter(pl.col("text").cast(pl.Int64) > 1).collect()


def test_damaged_index_is_reported_not_fatal(tmp_path):
    """An index file with a flipped byte: the rows are those of a scan
    without the index, last_scan.index_fallbacks names the index and the
    file, counters count the fragment, and an IndexFallbackWarning is
    issued.  Rebuilt, the index is used again without a warning."""
    csv = tmp_path / "big.csv"
    csv.write_text("id,word\n" + "".join("%d,w%05d\n" % (i, (i * 7919) % 3000) for i in range(1, 3001)))
    path = tmp_path / "dmg"
    cli("import", csv, path, "-q")
    cli("index", "create", path, "--column", "id", "--type", "btree")
    (qvi,) = (path / "_indices").iterdir()
    data = bytearray(qvi.read_bytes())
    data[20] ^= 0x55
    qvi.write_bytes(bytes(data))
    pred = pl.col("id").is_between(100, 102)
    want = quiver.scan(path, use_scalar_index=False).filter(pred).collect()
    assert want.height == 3
    with pytest.warns(quiver.IndexFallbackWarning, match=r"index id_idx unusable for 1 fragment\(s\): _indices/"):
        got = quiver.scan(path).filter(pred).collect()
    assert_frame_equal(got, want)
    report = quiver.last_scan
    assert report.counters["index_fallback_fragments"] == 1
    [(name, fragments, error)] = report.index_fallbacks
    assert (name, fragments) == ("id_idx", 1)
    assert error == "_indices/%s: offset 16: chunk 1 (page 0): checksum mismatch" % qvi.name
    assert "damaged: id_idx: 1 of 1 file(s) unusable: _indices/" in cli("index", "list", path).stdout
    cli("index", "optimize", path, "id_idx", "--rebuild")
    with warnings.catch_warnings():
        warnings.simplefilter("error", quiver.IndexFallbackWarning)
        assert_frame_equal(quiver.scan(path).filter(pred).collect(), want)
    assert quiver.last_scan.index_fallbacks == []
    assert quiver.last_scan.counters["index_fallback_fragments"] == 0
