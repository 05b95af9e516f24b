"""quiver's BigQuery row_restriction, checked without a live BigQuery.

* The restriction and selected_fields that `quiver bigquery-filter --json`
  prints go into a real google.cloud.bigquery_storage_v1 ReadSession (and
  its CreateReadSessionRequest), which is serialized and read back; nothing
  is sent.
* A property test generates Polars expressions (Python text), runs each in
  the pinned Polars on an in-memory DataFrame with nulls, NaN, -0.0/+0.0,
  infinities, extreme integers, non-ASCII strings, dates and timestamps (the
  oracle), translates it with quiver, and evaluates the restriction on the
  same rows with googlesql_eval (BigQuery's semantics).  The rows the
  restriction keeps must include every row Polars keeps, and be exactly
  them when quiver says exact=True.
* The same expressions go through the reference translator, polars-bigquery
  0.2.0 (polars_bigquery.core.compiler.predicate_to_row_restriction); every
  case where it keeps fewer rows than Polars is reported (and counted in
  docs/bigquery.md).  A JSON report is written to $QV_BUILD_DIR.

The build directory comes from QV_BUILD_DIR (default /work/main/build).
"""

import datetime
import json
import math
import os
import random
import subprocess

import pytest

from googlesql_eval import Unsupported, kept_rows

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip("!!! polars cannot be imported (%s): the BigQuery tests are SKIPPED. "
                "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc, allow_module_level=True)

BUILD = os.environ.get("QV_BUILD_DIR", "/work/main/build")
QUIVER = os.path.join(BUILD, "quiver")
SCHEMA = ("a:int64,b:int64,f:float64,g:float64,s:string,t:string,flag:bool,ok:bool,"
          "d:date32,ts:timestamp[us],tz:timestamp[us, UTC]")
UTC = datetime.timezone.utc
# More or other expressions for a deeper local run: QV_BQ_EXPRESSIONS=5000 QV_BQ_SEED=7.
N_EXPRESSIONS = int(os.environ.get("QV_BQ_EXPRESSIONS", "600"))
SEED = int(os.environ.get("QV_BQ_SEED", "20261130"))


def quiver_filter(expr_text, schema=SCHEMA, select=None, polars_json=False):
    """quiver bigquery-filter --json on Python text (or on Polars' JSON)."""
    if not os.path.exists(QUIVER):
        pytest.fail("the quiver command is not built at %s (set QV_BUILD_DIR)" % QUIVER)
    cmd = [QUIVER, "bigquery-filter", "--json"]
    if schema:
        cmd += ["--schema", schema]
    if polars_json:
        cmd.append("--polars-json")
    if select:
        cmd += ["--select", ",".join(select)]
    out = subprocess.run(cmd + [expr_text], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


# ---- the real request --------------------------------------------------------


def test_read_session_request():
    try:
        from google.cloud import bigquery_storage_v1
        from google.cloud.bigquery_storage_v1 import types
    except ImportError as exc:
        pytest.skip("!!! google-cloud-bigquery-storage cannot be imported (%s): the ReadSession test is "
                    "SKIPPED. Run scripts/pyenv.sh. !!!" % exc)
    schema_file = os.path.join(os.path.dirname(__file__), "..", "cli", "data", "bq_schema.json")
    r = quiver_filter('(pl.col("score") > 0.5) & pl.col("city").str.starts_with("New") & '
                      '(pl.col("city").str.slice(0, 1) == "N")', schema=schema_file, select=["id"])
    assert r == {
        "row_restriction": "(((`score` > 0.5) OR IS_NAN(`score`)) AND STARTS_WITH(`city`, 'New'))",
        "exact": False,
        "selected_fields": ["id", "score", "city"],
    }
    session = types.ReadSession(
        table="projects/my-project/datasets/my_dataset/tables/people",
        data_format=types.DataFormat.ARROW,
        read_options=types.ReadSession.TableReadOptions(
            selected_fields=r["selected_fields"], row_restriction=r["row_restriction"]),
    )
    request = types.CreateReadSessionRequest(parent="projects/my-project", read_session=session,
                                             max_stream_count=1)
    wire = types.CreateReadSessionRequest.serialize(request)
    back = types.CreateReadSessionRequest.deserialize(wire)
    assert back.read_session.read_options.row_restriction == r["row_restriction"]
    assert list(back.read_session.read_options.selected_fields) == ["id", "score", "city"]
    assert back.read_session.data_format == types.DataFormat.ARROW
    # The client class that would send it exists with the method the docs use.
    assert hasattr(bigquery_storage_v1.BigQueryReadClient, "create_read_session")


# ---- data and expressions ---------------------------------------------------------

I64_MAX, I64_MIN = 2**63 - 1, -2**63


def frame():
    nan, inf = float("nan"), float("inf")
    rows = [
        # a, b, f, g, s, t, flag, ok, d, ts
        (0, 0, 0.0, -0.0, "", "", True, False, datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 2)),
        (1, 2, -0.0, 0.0, "abc", "ab", False, True, datetime.date(1969, 12, 31), datetime.datetime(1969, 12, 31, 23, 59, 59)),
        (-1, -1, 0.5, 0.5, "ABC", "abc", None, None, None, None),
        (5, 3, nan, nan, "zoë", "Zoë", True, True, datetime.date(1, 1, 1), datetime.datetime(1, 1, 1)),
        (None, 5, inf, 1.5, "Zoë", "zoë", False, None, datetime.date(9999, 12, 31), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)),
        (I64_MAX, None, -inf, None, None, "x", None, True, datetime.date(2000, 2, 29), datetime.datetime(2000, 2, 29, 12)),
        (I64_MIN, I64_MAX, None, nan, "a c", None, True, False, datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1, 0, 0, 0, 1)),
        (3, 3, 1.5, -2.5, "\u00a0x", " x", False, False, datetime.date(1970, 1, 1), datetime.datetime(1970, 1, 1)),
        (10, -10, -2.5, 1e300, "straße", "STRASSE", True, None, datetime.date(2024, 6, 1), datetime.datetime(2024, 6, 1, 12)),
        (None, None, 1e300, inf, "x1", "x٣", None, False, None, datetime.datetime(2024, 1, 2, 3, 4, 5)),
        (7, 7, 3.0, 3.0, "٣", "3", True, True, datetime.date(2024, 1, 3), None),
        (2, 1, -1e-300, 0.0, "it's", "it", False, True, datetime.date(1999, 12, 31), datetime.datetime(1999, 12, 31, 23, 59)),
        (-5, 5, 2.0, -inf, "a.c", "aXc", True, False, datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 2, 0, 0, 1)),
        (4, None, nan, 2.0, "aXc", "a.c", None, None, datetime.date(2023, 12, 31), datetime.datetime(2023, 12, 31)),
        (2**53 + 1, 9, 9007199254740992.0, None, "Ab\ncd", "abc\n", False, True, datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29)),
        (-2**53 - 1, 0, -0.0, -0.0, "ǅ", "ǆ", True, True, datetime.date(1900, 1, 1), datetime.datetime(1900, 1, 1)),
    ]
    cols = list(zip(*rows))
    return pl.DataFrame(
        {
            "a": pl.Series(cols[0], dtype=pl.Int64),
            "b": pl.Series(cols[1], dtype=pl.Int64),
            "f": pl.Series(cols[2], dtype=pl.Float64),
            "g": pl.Series(cols[3], dtype=pl.Float64),
            "s": pl.Series(cols[4], dtype=pl.String),
            "t": pl.Series(cols[5], dtype=pl.String),
            "flag": pl.Series(cols[6], dtype=pl.Boolean),
            "ok": pl.Series(cols[7], dtype=pl.Boolean),
            "d": pl.Series(cols[8], dtype=pl.Date),
            "ts": pl.Series(cols[9], dtype=pl.Datetime("us")),
            "tz": pl.Series(cols[9], dtype=pl.Datetime("us")).dt.replace_time_zone("UTC"),
        }
    )


class Gen:
    """Random Polars expressions as Python text, mostly well typed (what
    Polars rejects is skipped), mixing what translates with what does not."""

    INT_LITS = ["0", "1", "-1", "3", "5", "10", str(I64_MAX), str(I64_MIN), "2.5", "-0.5", str(2**53)]
    FLOAT_LITS = ["0.0", "-0.0", "0.5", "1.5", "-2.5", "3", "1e300", "2", "-1e-300", "9007199254740993"]
    STR_LITS = ['""', '"abc"', '"ABC"', '"zoë"', '"x"', '"a.c"', '"it\'s"', '"straße"', '"STRASSE"', '"ǅ"']
    REGEXES = ['"^a"', '"c$"', '"a.c"', '"(?i)zo"', '"[a-c]+"', '"x{1,2}"', '"^$"', '"\\\\d"', '"\\\\w+"',
               '"[[:alpha:]]"', '"a|b"', '"\\\\."', '"ß"', '"\\\\s"']

    def __init__(self, seed):
        self.r = random.Random(seed)

    def pick(self, xs):
        return self.r.choice(xs)

    def int_val(self, depth):
        c = self.r.random()
        if depth > 0 and c < 0.12:
            return 'pl.col("%s").fill_null(%s)' % (self.pick("ab"), self.pick(["0", "3", "-1"]))
        if depth > 0 and c < 0.2:
            return 'pl.coalesce(pl.col("a"), pl.col("b"))'
        if depth > 0 and c < 0.27:
            return 'pl.col("%s").fill_null(strategy="%s")' % (self.pick("ab"), self.pick(["zero", "one", "forward"]))
        if depth > 0 and c < 0.3:
            return "pl.when(%s).then(pl.col(\"a\")).otherwise(%s)" % (self.pred(depth - 1), self.pick(['pl.col("b")', "0"]))
        if depth > 0 and c < 0.34:
            tail = self.pick([".otherwise(-1)", ""])  # CASE, with and without ELSE
            return "pl.when(%s).then(pl.col(\"a\")).when(%s).then(pl.col(\"b\"))%s" % (
                self.pred(depth - 1), self.pred(depth - 1), tail)
        if depth > 0 and c < 0.4:
            return '(pl.col("%s") + 1)' % self.pick("ab")
        return 'pl.col("%s")' % self.pick("ab")

    def float_val(self, depth):
        c = self.r.random()
        if depth > 0 and c < 0.12:
            return 'pl.col("%s").fill_null(%s)' % (self.pick("fg"), self.pick(["0.0", "1.5", "float(\"nan\")"]))
        if depth > 0 and c < 0.2:
            return 'pl.coalesce(pl.col("f"), pl.col("g"))'
        if depth > 0 and c < 0.26:
            return "pl.when(%s).then(pl.col(\"f\")).otherwise(pl.col(\"g\"))" % self.pred(depth - 1)
        return 'pl.col("%s")' % self.pick("fg")

    def str_val(self, depth):
        c = self.r.random()
        base = 'pl.col("%s")' % self.pick("st")
        if depth > 0 and c < 0.15:
            return base + ".str.to_uppercase()"
        if depth > 0 and c < 0.3:
            return base + ".str.to_lowercase()"
        if depth > 0 and c < 0.37:
            return base + '.fill_null("x")'
        if depth > 0 and c < 0.42:
            return base + ".str.slice(1)"
        return base

    def cmp(self, x, lit_or_col):
        return "(%s %s %s)" % (x, self.pick(["==", "!=", "<", "<=", ">", ">="]), lit_or_col)

    def pred(self, depth):
        c = self.r.random()
        if depth > 0 and c < 0.28:
            op = self.pick(["&", "&", "|"])
            return "(%s %s %s)" % (self.pred(depth - 1), op, self.pred(depth - 1))
        if depth > 0 and c < 0.36:
            return "~%s" % self.pred(depth - 1)
        if depth > 0 and c < 0.42:
            fn = self.pick(["all_horizontal", "all_horizontal", "any_horizontal"])
            return "pl.%s(%s)" % (fn, ", ".join(self.pred(depth - 1) for _ in range(self.r.randint(1, 3))))
        if depth > 0 and c < 0.5:
            n = self.r.randint(1, 2)
            first = self.pred(depth - 1) if self.r.random() < 0.85 else self.pick(["False", "None"])
            chain = "pl.when(%s).then(%s)" % (self.pred(depth - 1), first)
            for _ in range(n - 1):
                chain += ".when(%s).then(%s)" % (self.pred(depth - 1), self.pred(depth - 1))
            if self.r.random() < 0.8:
                chain += ".otherwise(%s)" % self.pred(depth - 1)
            return chain
        return self.atom(depth)

    def atom(self, depth):
        k = self.r.randint(0, 17)
        if k <= 2:
            x = self.int_val(depth)
            return self.cmp(x, self.pick(self.INT_LITS + ['pl.col("b")', 'pl.col("f")']))
        if k <= 5:
            x = self.float_val(depth)
            return self.cmp(x, self.pick(self.FLOAT_LITS + ['pl.col("g")', 'pl.col("a")']))
        if k == 6:
            return self.cmp(self.str_val(depth), self.pick(self.STR_LITS + ['pl.col("t")']))
        if k == 7:
            return self.pick(['pl.col("flag")', 'pl.col("ok")', '(pl.col("flag") == True)', 'pl.col("ok").fill_null(False)',
                              'pl.lit(True)'])
        if k == 8:
            col = self.pick(["a", "f", "s", "flag", "d", "ts", "tz"])
            return 'pl.col("%s").%s()' % (col, self.pick(["is_null", "is_not_null"]))
        if k == 9:
            col, vals = self.pick([("a", ["1", "3", "-1", str(I64_MAX)]), ("s", ['"abc"', '"zoë"', '""', '"x"']),
                                   ("f", ["0.0", "1.5", "-2.5", "3.0"]), ("b", ["0", "5", "None"]),
                                   ("d", ["date(2024, 1, 2)", "date(1, 1, 1)", "date(1969, 12, 31)"]),
                                   ("ts", ["datetime(2024, 1, 2)", "datetime(1970, 1, 1)"])])
            items = self.r.sample(vals, self.r.randint(1, len(vals)))
            return 'pl.col("%s").is_in([%s])' % (col, ", ".join(items))
        if k == 10:
            fn = self.pick(["starts_with", "ends_with"])
            arg = self.pick(self.STR_LITS + ['pl.col("t")'])
            return "%s.str.%s(%s)" % (self.str_val(depth), fn, arg)
        if k == 11:
            return "%s.str.contains(%s)" % (self.str_val(depth), self.pick(self.REGEXES))
        if k == 12:
            return "%s.str.contains(%s, literal=True)" % (self.str_val(depth), self.pick(self.STR_LITS[1:]))
        if k == 13:
            return 'pl.col("%s").%s()' % (self.pick("fg"), self.pick(["is_nan", "is_not_nan", "is_finite", "is_infinite"]))
        if k == 14:
            day = self.pick(["date(2024, 1, 2)", "date(1, 1, 1)", "date(9999, 12, 31)", "date(1970, 1, 1)"])
            return self.cmp('pl.col("d")', "pl.lit(%s)" % day)
        if k == 15:
            dt = self.pick(["datetime(2024, 1, 2)", "datetime(1969, 12, 31, 23, 59, 59)", "datetime(2024, 1, 1, 0, 0, 0, 1)",
                            "datetime(9999, 12, 31, 23, 59, 59, 999999)"])
            return self.cmp('pl.col("ts")', dt)
        if k == 16:
            unit = self.pick(["us", "ms", "ns"])
            dt = self.pick(["datetime(2024, 1, 2)", "datetime(1969, 12, 31, 23, 59, 59)", "datetime(2000, 2, 29, 12)"])
            return self.cmp('pl.col("tz")', 'pl.lit(%s, dtype=pl.Datetime("%s", "UTC"))' % (dt, unit))
        return self.cmp('pl.col("a")', 'pl.col("b")')


def polars_rows(df, text):
    e = eval(text, {"pl": pl, "date": datetime.date, "datetime": datetime.datetime})
    out = df.with_row_index("__row").filter(e)
    return e, set(out["__row"].to_list())


def verdict(want, got):
    """How a restriction's rows compare with Polars' rows."""
    if got is None:
        return "declines"
    if not want <= got:
        return "LOSES rows %s" % sorted(want - got)
    if got == want:
        return "keeps exactly Polars' rows"
    return "keeps a superset (+%d rows)" % len(got - want)


def test_property_superset_and_exact():
    df = frame()
    rows = df.to_dicts()
    gen = Gen(SEED)
    stats = {"generated": 0, "polars_error": 0, "evaluated": 0, "translated": 0, "exact": 0, "inexact": 0,
             "declined": 0, "schemaless_translated": 0, "schemaless_exact": 0, "json_same": 0}
    reference = {"available": False, "translated": 0, "loses_rows": [], "keeps_extra": 0, "same_sql": 0,
                 "different_sql": [], "error": 0}
    try:
        from polars_bigquery.core.compiler import predicate_to_row_restriction
        reference["available"] = True
    except ImportError as exc:
        print("!!! polars-bigquery cannot be imported (%s): the reference comparison is SKIPPED !!!" % exc)
        predicate_to_row_restriction = None
    failures = []
    seen = set()
    while stats["evaluated"] < N_EXPRESSIONS:
        text = gen.pred(gen.r.randint(0, 3))
        if text in seen:
            continue
        seen.add(text)
        stats["generated"] += 1
        assert stats["generated"] < 5 * N_EXPRESSIONS, "the generator makes too many expressions Polars rejects"
        try:
            expr, want = polars_rows(df, text)
        except Exception:  # a mistyped expression: Polars is the judge of that
            stats["polars_error"] += 1
            continue
        stats["evaluated"] += 1
        r = quiver_filter(text)
        sql = r["row_restriction"]
        q_rows = None
        if sql is None:
            stats["declined"] += 1
        else:
            stats["translated"] += 1
            stats["exact" if r["exact"] else "inexact"] += 1
            got = q_rows = kept_rows(sql, rows)
            if not want <= got:
                failures.append("LOSES ROWS %s\n  polars %s\n  sql %s keeps %s" % (text, sorted(want), sql, sorted(got)))
            elif r["exact"] and got != want:
                failures.append("NOT EXACT %s\n  polars %s\n  sql %s keeps %s" % (text, sorted(want), sql, sorted(got)))
        # The JSON Polars writes for the same expression translates the same.
        rj = quiver_filter(expr.meta.serialize(format="json"), polars_json=True)
        if rj == r:
            stats["json_same"] += 1
        else:
            failures.append("JSON DIFFERS %s\n  text %s\n  json %s" % (text, r, rj))
        # Schema-less: only what is safe for every column type may push.
        rs = quiver_filter(text, schema=None)
        if rs["row_restriction"] is not None:
            stats["schemaless_translated"] += 1
            stats["schemaless_exact"] += rs["exact"]
            got = kept_rows(rs["row_restriction"], rows)
            if not want <= got or (rs["exact"] and got != want):
                failures.append("SCHEMA-LESS %s\n  polars %s\n  sql %s keeps %s" % (text, sorted(want), rs, sorted(got)))
        if predicate_to_row_restriction is not None:
            try:
                ref = predicate_to_row_restriction(expr)
            except Exception as exc:
                reference["error"] += 1
                continue
            ref_rows = None
            if ref:
                reference["translated"] += 1
                try:
                    ref_got = ref_rows = kept_rows(ref, rows)
                except Unsupported as exc:
                    reference["error"] += 1
                    continue
                if not want <= ref_got:
                    reference["loses_rows"].append({"expr": text, "reference": ref, "quiver": sql,
                                                    "polars_rows": sorted(want), "reference_rows": sorted(ref_got),
                                                    "lost": sorted(want - ref_got)})
                elif ref_got != want:
                    reference["keeps_extra"] += 1
            if (ref or None) == sql:
                reference["same_sql"] += 1
            elif len(reference["different_sql"]) < 2000:
                reference["different_sql"].append({
                    "expr": text, "reference": ref or None, "quiver": sql, "quiver_exact": r["exact"],
                    "polars_rows": sorted(want), "reference_verdict": verdict(want, ref_rows),
                    "quiver_verdict": verdict(want, q_rows)})
    report = {"stats": stats, "reference": reference}
    try:
        with open(os.path.join(BUILD, "bigquery_property_report.json"), "w") as fh:
            json.dump(report, fh, indent=1, ensure_ascii=False)
    except OSError:
        pass
    print(json.dumps(stats), json.dumps({k: (len(v) if isinstance(v, list) else v) for k, v in reference.items()}))
    assert not failures, "\n".join(failures[:20])
    assert stats["evaluated"] >= 500
    # The generator must exercise every outcome, or the test proves little.
    assert stats["exact"] >= N_EXPRESSIONS // 4 and stats["inexact"] >= N_EXPRESSIONS // 50, stats
    assert stats["declined"] >= N_EXPRESSIONS // 50, stats


def test_evaluator_semantics():
    """The evaluator itself: IEEE floats, Kleene logic, NULL in functions."""
    rows = [{"f": float("nan"), "x": None, "s": "ab"}, {"f": -0.0, "x": 1, "s": None}]
    assert kept_rows("(`f` != 1.5)", rows) == {0, 1}
    assert kept_rows("(`f` = `f`)", rows) == {1}
    assert kept_rows("(`f` = 0)", rows) == {1}
    assert kept_rows("(`f` > 1)", rows) == set()
    assert kept_rows("((`x` = 1) OR TRUE)", rows) == {0, 1}
    assert kept_rows("(NOT (`x` = 1))", rows) == set()
    assert kept_rows("(`x` IN (1, 2))", rows) == {1}
    assert kept_rows("IF((`x` = 1), FALSE, TRUE)", rows) == {0}
    assert kept_rows("(STRPOS(`s`, 'b') > 0)", rows) == {0}
    assert kept_rows("(`s` = 'it\\'s')", [{"s": "it's"}]) == {0}
    assert kept_rows("(DATE(TIMESTAMP_SECONDS(-1 * 86400)) = DATE(TIMESTAMP_MICROS(-86400000000)))", [{}]) == {0}
    with pytest.raises(Unsupported):
        kept_rows("SAFE_DIVIDE(`x`, 2) > 1", rows)


def test_evaluator_reads_regexes_as_re2():
    """\\d is ASCII-only in RE2 (BigQuery) and Unicode-aware in Polars: the
    reason quiver does not push it; the evaluator must side with RE2."""
    rows = [{"s": "٣"}, {"s": "3"}, {"s": "b"}]
    assert kept_rows("REGEXP_CONTAINS(`s`, '\\\\d')", rows) == {1}
    assert kept_rows("REGEXP_CONTAINS(`s`, '[[:alpha:]]')", rows) == {2}
    assert kept_rows("REGEXP_CONTAINS(`s`, 'c$')", [{"s": "abc\n"}, {"s": "abc"}]) == {1}
    assert set(pl.DataFrame({"s": ["٣", "3", "b"]}).with_row_index().filter(
        pl.col("s").str.contains("\\d"))["index"].to_list()) == {0, 1}
