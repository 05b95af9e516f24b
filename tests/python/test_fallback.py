"""quiver.scan(ds).filter(e).collect() is plain Polars' answer, pushed or not.

For every expression of the Polars fixture set (tests/data/polars/cases.txt,
written by tests/expr/gen_polars_fixtures.py) over a table holding every
column those expressions name, and for every expression the peer generator
makes (tests/peers/exprgen.py) over the peer table: the rows of
quiver.scan(ds).filter(e).collect() equal those of
pl.LazyFrame(df).filter(e).collect() on the same rows, or both raise.

A predicate libquiver cannot take (an operator it does not bind, a type rule
it does not have, a construct it does not know) is applied by Polars, and
quiver.last_scan says why; the test prints how many fell back, per reason.
strict=True raises instead.  Errors that are not about the predicate (a
damaged file, a dataset gone, a strict cast failing on a row) still raise.
"""

import collections
import datetime as dt
import decimal
import math
import os
import shutil
import sys

import pytest

try:
    import polars as pl
    from polars.testing import assert_frame_equal
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the quiver fallback tests are SKIPPED. "
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
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CASES_TXT = os.path.join(ROOT, "tests", "data", "polars", "cases.txt")
sys.path.insert(0, os.path.join(ROOT, "tests", "peers"))

import exprgen  # noqa: E402
import peer_table  # noqa: E402

# (`pl.col("a") == None` in the fixtures)
pytestmark = pytest.mark.filterwarnings("ignore:Comparisons with None")

NAMESPACE = {
    "pl": pl,
    "math": math,
    "date": dt.date,
    "datetime": dt.datetime,
    "time": dt.time,
    "timedelta": dt.timedelta,
    "Decimal": decimal.Decimal,
}

# The examples: plain Polars keeps rows, libquiver's binder refused
# them (int ^ int, timestamp - timestamp), and an aggregation.
EXTRA = [
    ("issue_xor", '(pl.col("id") ^ 1) > 2'),
    ("issue_duration", '(pl.col("ts") - pl.col("ts")) == pl.duration(seconds=0)'),
    ("aggregation", 'pl.col("a") > pl.col("a").mean()'),
    ("aggregation_and", '(pl.col("id") > 3) & (pl.col("a") > pl.col("a").mean())'),
]

N = 40


def _cycle(values):
    return [values[i % len(values)] for i in range(N)]


def fixture_frame():
    """One table with every column cases.txt names, each of the type most of
    its uses there expect (the others make Polars raise, which quiver must
    then do too)."""
    dec = decimal.Decimal
    return pl.DataFrame(
        {
            "id": list(range(N)),
            "val": _cycle([0.5, 1.0, None, -2.0, 0.9995, math.nan]),
            "cat": _cycle(["b1", "a", None, "bb", "c"]),
            "text": _cycle(["xyz", "ab", "", None, "xy", "é"]),
            "a": _cycle([0, 1, 2, None, 5, -3, 10, 127, 200]),
            "b": _cycle([True, False, None]),
            "c": _cycle([False, True, True, None]),
            "d": _cycle([dt.date(2024, 1, 1), dt.date(1969, 12, 31), None, dt.date(2024, 7, 4)]),
            "e": _cycle([True, None, False, True, True]),
            "flag": _cycle([True, False, None, True]),
            "s": _cycle(["a", "abc", "", None, "x", "1", "aaa", " x ", "日本語", "it's é\n", "B"]),
            "t": _cycle(["a", None, "b", "ab"]),
            "u": pl.Series(_cycle([0, 18446744073709551615, 7, None]), dtype=pl.UInt64),
            "f": _cycle([0.0, -0.0, 1.23, None, math.nan, math.inf, 2.5, -1.0, 1.0]),
            "g": pl.Series(_cycle([1.1, None, 0.0, 2.0]), dtype=pl.Float32),
            "ts": _cycle([dt.datetime(2024, 1, 1, 12, 30), None, dt.datetime(1969, 12, 31, 23, 59, 59)]),
            "tz": pl.Series(_cycle([dt.datetime(2024, 1, 1, 1), None, dt.datetime(2025, 1, 1)])).dt.replace_time_zone(
                "UTC"
            ),
            "tn": pl.Series(_cycle([dt.datetime(2024, 1, 1, 1), None, dt.datetime(2023, 1, 1)]), dtype=pl.Datetime("ns")),
            "du": _cycle([dt.timedelta(days=2), None, dt.timedelta(seconds=1)]),
            "tm": _cycle([dt.time(1, 2, 3), dt.time(12, 0), None]),
            "dec": pl.Series(_cycle([dec("1.25"), None, dec("-3.00"), dec("7.50")]), dtype=pl.Decimal(10, 2)),
            "x": _cycle([b"ab\x00", b"", None, b"x"]),
            "l": pl.Series(_cycle([[1, 2, 3], [], None, [None], [5], [3, None]]), dtype=pl.List(pl.Int64)),
            "st": pl.Series(_cycle([{"x": 1, "y": 2}, None, {"x": None, "y": 5}, {"x": 3, "y": None}])),
        }
    )


def fixture_cases():
    """(name, text) of every case in cases.txt, then EXTRA."""
    out = []
    with open(CASES_TXT, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _mode, text = line.rstrip("\n").split("\t")
            out.append((name, text))
    assert len(out) >= 100, "cases.txt lost its cases"
    return out + EXTRA


def _outcome(make):
    """("rows", DataFrame) or ("raises", "Type: first line")."""
    try:
        return "rows", make()
    except Exception as exc:  # noqa: BLE001 - any raise counts, Polars' or quiver's
        return "raises", "%s: %s" % (type(exc).__name__, (str(exc).splitlines() or [""])[0])


def compare_all(path, cases, namespace):
    """Runs every case through quiver.scan and plain Polars on the same rows;
    returns (failures, summary lines)."""
    df = quiver.scan(path).collect()
    failures, reasons, kinds = [], collections.Counter(), collections.Counter()
    pushed = fell_back = both_raise = 0
    for name, text in cases:
        expr = eval(text, dict(namespace))  # noqa: S307 - the fixtures' own texts
        want_kind, want = _outcome(lambda: pl.LazyFrame(df).filter(expr).collect())
        quiver.last_scan = None
        got_kind, got = _outcome(lambda: quiver.scan(path).filter(expr).collect())
        report = quiver.last_scan
        if report is not None and report.fallback:
            fell_back += 1
            kinds[report.fallback_status] += 1
            reasons["%s: %s" % (report.fallback_status, report.fallback)] += 1
        elif report is not None and report.pushed:
            pushed += 1
        if want_kind == "raises" or got_kind == "raises":
            if want_kind != got_kind:
                failures.append(
                    "%s: Polars %s, quiver %s\n    %s"
                    % (
                        name,
                        want if want_kind == "raises" else "keeps %d rows" % want.height,
                        got if got_kind == "raises" else "keeps %d rows" % got.height,
                        text,
                    )
                )
            else:
                both_raise += 1
            continue
        try:
            assert_frame_equal(got, want)
        except AssertionError as exc:
            failures.append("%s: rows differ (%s)\n    %s" % (name, str(exc).splitlines()[0], text))
    summary = [
        "%d expressions: %d pushed into libquiver, %d applied by Polars (fallback); %d raise in both "
        "(%d of them Polars refuses before any scan)"
        % (len(cases), pushed, fell_back, both_raise, len(cases) - pushed - fell_back),
        "fallbacks by status: " + ", ".join("%s %d" % kv for kv in kinds.most_common()),
    ]
    summary += ["  %3d  %s" % (n, reason) for reason, n in reasons.most_common()]
    return failures, summary


def _print(capsys, title, summary):
    with capsys.disabled():
        print("\n%s:" % title)
        for line in summary:
            print("  " + line)


@pytest.fixture(scope="module")
def fixture_ds(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("fallback") / "ds")
    quiver.write_dataset(fixture_frame(), path)
    return path


def test_every_fixture_equals_plain_polars(fixture_ds, capsys):
    failures, summary = compare_all(fixture_ds, fixture_cases(), NAMESPACE)
    _print(capsys, "Polars fixtures (tests/data/polars/cases.txt) through quiver.scan", summary)
    assert not failures, "quiver.scan differs from plain Polars, %d cases:\n%s\n%s" % (
        len(failures),
        "\n".join(failures),
        "\n".join(summary),
    )


def test_every_generated_expression_equals_plain_polars(tmp_path, capsys):
    path = str(tmp_path / "peer")
    quiver.write_dataset(peer_table.build_table(), path)
    cases = [(c.shape, c.text) for c in exprgen.generate()]
    failures, summary = compare_all(path, cases, exprgen.NAMESPACE)
    _print(capsys, "peer expressions (tests/peers/exprgen.py, QV_PEERS_SEED=%d) through quiver.scan" % exprgen.seed(),
           summary)
    assert not failures, "quiver.scan differs from plain Polars, %d cases:\n%s" % (
        len(failures),
        "\n".join(failures[:60]),
    )


# ---- the examples, one by one ----------------------------------------------


@pytest.mark.parametrize(
    "text,status,reason",
    [
        ('(pl.col("id") ^ 1) > 2', "type error", "filter: XOR expects boolean operands, got int64"),
        (
            '(pl.col("ts") - pl.col("ts")) == pl.duration(seconds=0)',
            "type error",
            "filter: cannot apply - to timestamp[us] and timestamp[us]",
        ),
        ('pl.col("a") % 3 == 1', None, None),  # pushed: no fallback
        (
            'pl.col("id").is_in(pl.col("l"))',
            "unsupported",
            "filter: the Polars construct is_in is not supported by quiver",
        ),
    ],
)
def test_a_predicate_the_binder_refuses_falls_back(fixture_ds, text, status, reason):
    expr = eval(text, dict(NAMESPACE))  # noqa: S307
    df = quiver.scan(fixture_ds).collect()
    got = quiver.scan(fixture_ds).filter(expr).collect()
    assert_frame_equal(got, pl.LazyFrame(df).filter(expr).collect())
    report = quiver.last_scan
    assert report.fallback == reason
    assert report.fallback_status == status
    assert report.pushed is (reason is None)
    if reason is not None:
        assert "Filter" not in report.explain  # nothing was filtered in C
        # strict=True raises the binder's error instead, with its class
        with pytest.raises(quiver.QuiverError) as info:
            quiver.scan(fixture_ds, strict=True).filter(expr).collect()
        assert str(info.value) == reason
        assert info.value.status == status
        assert isinstance(info.value, (quiver.InvalidInput, quiver.UnsupportedExpression))


def test_strict_raises_for_a_predicate_without_json_form(fixture_ds, monkeypatch):
    """A predicate Polars could hand over but not serialize to JSON (Python
    UDFs; in this venv Polars itself refuses those without cloudpickle, so
    the serializer is made to fail here)."""

    def no_json(expr):
        raise ValueError("cannot serialize this")

    expr = pl.col("a") > 2
    want = quiver.scan(fixture_ds).collect().filter(expr)
    monkeypatch.setattr(quiver, "_expr_json", no_json)
    assert_frame_equal(quiver.scan(fixture_ds).filter(expr).collect(), want)
    assert quiver.last_scan.fallback_status == "no JSON form"
    assert quiver.last_scan.fallback == "the predicate has no JSON form: cannot serialize this"
    with pytest.raises(quiver.UnsupportedExpression) as info:
        quiver.scan(fixture_ds, strict=True).filter(expr).collect()
    assert info.value.status == "unsupported"
    assert str(info.value) == (
        "the predicate has no JSON form: cannot serialize this "
        "(quiver.scan(strict=True) does not hand predicates to Polars)"
    )


def test_strict_does_not_change_a_pushed_scan(fixture_ds):
    expr = pl.col("a") > 2
    want = quiver.scan(fixture_ds).collect().filter(expr)
    assert_frame_equal(quiver.scan(fixture_ds, strict=True).filter(expr).collect(), want)
    assert quiver.last_scan.pushed and quiver.last_scan.fallback is None


@pytest.mark.parametrize(
    "text",
    [
        'pl.col("a") > pl.col("a").mean()',
        '(pl.col("id") > 3) & (pl.col("a") > pl.col("a").mean())',
        'pl.col("a") > pl.col("a").mean().over("g")',
        'pl.col("a").shift(1) > 2',
        'pl.col("a").fill_null(strategy="forward") > 1',
    ],
)
def test_polars_never_hands_an_aggregation_to_the_scan(fixture_ds, text):
    """What README.md says of aggregations: Polars keeps the whole filter
    above the scan, the source gets no predicate, nothing falls back."""
    expr = eval(text, dict(NAMESPACE))  # noqa: S307
    lf = quiver.scan(fixture_ds).filter(expr)
    got = lf.collect()
    assert_frame_equal(got, pl.LazyFrame(quiver.scan(fixture_ds).collect()).filter(expr).collect())
    # (the scan in the line above replaced last_scan: collect again)
    lf.collect()
    report = quiver.last_scan
    assert (report.predicate, report.pushed, report.fallback) == (None, False, None)
    plan = lf.explain().splitlines()
    assert plan[0].startswith("FILTER ") and "PYTHON[quiver] SCAN" in plan[2]
    assert not any("SELECTION" in line for line in plan)
    # a row-wise filter of its own is still pushed
    quiver.scan(fixture_ds).filter(pl.col("id") > 3).filter(expr).collect()
    assert quiver.last_scan.predicate == '[(col("id")) > (3)]' and quiver.last_scan.pushed


# ---- errors that are not about the predicate still raise -------------------------


def test_a_strict_cast_failing_on_a_row_raises_as_in_polars(fixture_ds):
    expr = pl.col("s").cast(pl.Int64) > 1
    df = quiver.scan(fixture_ds).collect()
    with pytest.raises(pl.exceptions.InvalidOperationError):
        pl.LazyFrame(df).filter(expr).collect()
    with pytest.raises(quiver.InvalidInput, match="CAST: .* is not a valid int64"):
        quiver.scan(fixture_ds).filter(expr).collect()


def test_a_dataset_gone_after_scan_raises_not_found(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(pl.DataFrame({"id": [1, 2, 3]}), path)
    lf = quiver.scan(path).filter((pl.col("id") ^ 1) > 2)  # a predicate that falls back
    shutil.rmtree(path)
    with pytest.raises(quiver.NotFound):
        lf.collect()


def test_a_damaged_data_file_raises_with_a_refused_predicate(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(pl.DataFrame({"id": list(range(1000))}), path)
    (name,) = os.listdir(path / "data")
    data_file = path / "data" / name
    data = bytearray(data_file.read_bytes())
    data[40] ^= 0x55  # inside the first page of column `id`
    data_file.write_bytes(bytes(data))
    for expr in [(pl.col("id") ^ 1) > 2, pl.col("id") > 2]:
        with pytest.raises(quiver.CorruptData):
            quiver.scan(path).filter(expr).collect()


@pytest.mark.parametrize(
    "make",
    [
        lambda: pl.col("s").alias("q").str.starts_with("x") | (pl.col("a").alias("k") == 3),
        lambda: (pl.col("a") % 3).alias("m") == 1,
        lambda: pl.when(pl.col("a") > 1).then(pl.col("a")).otherwise(0).alias("w") > 1,
    ],
)
def test_aliases_are_pushed(tmp_path, make):
    """An alias only names an output column: the aliases Polars' optimizer
    leaves in the predicate it hands the scan (the first case keeps
    `col("s").alias("q")`) are read through, and the predicate runs in C."""
    df = pl.DataFrame({"a": [1, 2, 3, None, 4], "s": ["x", "y", None, "xz", "z"]})
    path = str(tmp_path / "alias")
    quiver.write_dataset(df, path)
    expr = make()
    got = quiver.scan(path).filter(expr).collect()
    assert_frame_equal(got, df.lazy().filter(expr).collect())
    assert quiver.last_scan.pushed and quiver.last_scan.fallback is None
    assert got.height > 0
