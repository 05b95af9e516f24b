#!/usr/bin/env python3
"""Writes what the pinned Polars answers for the string, temporal and list
expressions quiver evaluates itself (tests/data/polars_eval/), for
tests/compute/test_polars_text.c.

table.arrow   the input table (Arrow IPC file written by pyarrow): strings
              with nulls, "" and non-ASCII text, Unicode whitespace; ints
              with negatives; dates and timestamps around the epoch and
              leap days; lists of ints with nulls and empty lists.
json.txt      name TAB the JSON Polars serializes for the expression
              (Expr.meta.serialize(format="json")), read by
              qv_polars_from_json and held to the same answers.
expected.txt  one line per case: name, TAB, the Python text of the
              expression, TAB, then either the result type (quiver's
              spelling) TAB the values, or "error" TAB Polars' message.
              Values are printed as value_text() below prints them (the C
              test prints its results the same way): null, integers,
              true/false, strings in double quotes with \\ \" and \\uXXXX
              for control characters, dates as days and datetimes as their
              integer value since the epoch.

Run with the project's venv after changing the cases or the pinned Polars:

    .venv/bin/python tests/expr/gen_polars_eval.py
"""
import os
import sys
from datetime import date, datetime

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "polars_eval")

STRINGS = ["abc", None, "", "héllo wörld", "  \u00a0x\u2003 ", "ß straße ΣΑΣ", "ǆx ﬀ İ",
           "a,b;c  a", "aaa", "日本語 テキスト\t\n"]
INTS = [1, None, -3, 4, 0, 6, -1, 2, 100, -7]
BOOLS = [True, None, False, True, False, True, True, False, None, True]
DATES = [date(1970, 1, 1), None, date(1969, 12, 31), date(2024, 2, 29), date(2000, 2, 29),
         date(1900, 3, 1), date(2021, 1, 3), date(1968, 2, 29), date(2023, 12, 31), date(1600, 1, 1)]
TIMES = [datetime(1970, 1, 1), None, datetime(1969, 12, 31, 23, 59, 59, 999999),
         datetime(2024, 2, 29, 13, 45, 30, 123456), datetime(2000, 2, 29, 23, 59, 59),
         datetime(1900, 3, 1, 12, 0, 0, 1), datetime(2021, 1, 3, 0, 0, 1), datetime(1968, 2, 29, 6, 7, 8, 900000),
         datetime(2023, 12, 31, 23, 0), datetime(1969, 12, 29, 0, 0)]
CASED = ["hello-world it's a1b 3rd x_y", "ΣΑΣ ΣΑΣa ΑΣ.ΑΣ Σ", "ﬁne ǲx ŉa ΐx", "aİb İx", "a\u0345b a\u0307b",
         "ΑΣ\u0301x ΑΣ\u0301", "ΑΣ'Σ xΣ", "ᾳx ᾼ ﬀ", "ⓐⓑ xⒶ aⅫb", None]
STRUCTS = [{"a": 1, "b": "x"}, None, {"a": None, "b": "straße"}, {"a": -4, "b": None}, {"a": 5, "b": ""},
           {"a": 6, "b": "ǆ"}, None, {"a": 8, "b": "h"}, {"a": 9, "b": "i"}, {"a": 10, "b": "j"}]
FLOATS = [1.5, 1e20, 0.1, 100.0, float("nan"), float("inf"), -0.0, 1e-7, 123456789.123, None]
LISTS = [[1, 2, 3], [], None, [None, 4], [5], [6, 7], [-1], [0, 0, 0, 0], [8], None]


def table():
    return pa.table({
        "s": pa.array(STRINGS, pa.string()),
        "i": pa.array(INTS, pa.int64()),
        "b": pa.array(BOOLS, pa.bool_()),
        "d": pa.array(DATES, pa.date32()),
        "ts": pa.array(TIMES, pa.timestamp("us")),
        "tn": pa.array(TIMES, pa.timestamp("ns")),
        "tz": pa.array(TIMES, pa.timestamp("us", tz="UTC")),
        "l": pa.array(LISTS, pa.list_(pa.int64())),
        "u": pa.array(CASED, pa.string()),
        "f": pa.array(FLOATS, pa.float64()),
        "g": pa.array(FLOATS, pa.float32()),
        "tm": pa.array([t.time() if t else None for t in TIMES], pa.time64("us")),
        "st": pa.array(STRUCTS, pa.struct([("a", pa.int64()), ("b", pa.string())])),
    })


S = 'pl.col("s")'
CASES = [
    # str.slice
    ("slice_1_2", S + ".str.slice(1, 2)"),
    ("slice_neg3", S + ".str.slice(-3)"),
    ("slice_neg20_2", S + ".str.slice(-20, 2)"),
    ("slice_neg3_2", S + ".str.slice(-3, 2)"),
    ("slice_0", S + ".str.slice(0)"),
    ("slice_2_0", S + ".str.slice(2, 0)"),
    ("slice_100", S + ".str.slice(100, 1)"),
    ("slice_col", S + '.str.slice(pl.col("i"), 2)'),
    ("slice_eq", S + '.str.slice(0, 2) == "ab"'),
    ("slice_none_len", S + ".str.slice(1, None)"),
    ("slice_col_len", S + '.str.slice(1, pl.col("i").abs())'),
    # str.strip_chars
    ("strip_ws", S + ".str.strip_chars()"),
    ("strip_set", S + '.str.strip_chars("a ")'),
    ("strip_unicode", S + '.str.strip_chars("ßΣ\u0130")'),
    ("strip_empty", S + '.str.strip_chars("")'),
    # 89 code points outside ASCII (more than the kernel keeps on its stack)
    ("strip_many", S + '.str.strip_chars("'
     + "".join(map(chr, range(0xC0, 0x100))) + "".join(map(chr, range(0x391, 0x3AA))) + '")'),
    ("strip_none", S + ".str.strip_chars(None)"),
    ("strip_col", S + '.str.strip_chars(pl.col("u"))'),
    ("strip_col_self", S + '.str.strip_chars(pl.col("s").str.slice(0, 1))'),
    # concat_str
    ("concat_int", 'pl.concat_str([pl.col("s"), pl.col("i")], separator="-")'),
    ("concat_ignore", 'pl.concat_str([pl.col("s"), pl.col("i")], separator="-", ignore_nulls=True)'),
    ("concat_bool", 'pl.concat_str([pl.col("i"), pl.col("b"), pl.lit("x")], separator="")'),
    ("concat_date", 'pl.concat_str([pl.col("d"), pl.col("s")], separator=" | ")'),
    ("concat_one", 'pl.concat_str([pl.col("s")])'),
    ("concat_f64", 'pl.concat_str([pl.col("f")])'),
    ("concat_f32", 'pl.concat_str([pl.col("g")])'),
    ("concat_lit_float", 'pl.concat_str([pl.col("s"), pl.lit(2.0), pl.lit(-1e-5)], separator=",")'),
    ("concat_ts", 'pl.concat_str([pl.col("ts"), pl.col("s")], separator="@")'),
    # str.replace / replace_all
    ("replace_l", S + '.str.replace("l", "L")'),
    ("replace_all_l", S + '.str.replace_all("l", "L")'),
    ("replace_group", S + '.str.replace("(l+)", "<$1>")'),
    ("replace_literal_dollar", S + '.str.replace("l", "$0", literal=True)'),
    ("replace_n2", S + '.str.replace("a", "X", n=2)'),
    ("replace_all_star", S + '.str.replace_all("a*", "-")'),
    ("replace_all_empty_lit", S + '.str.replace_all("", "|", literal=True)'),
    ("replace_named", S + '.str.replace_all("(?P<v>[aeiou])", "${v}${v}")'),
    ("replace_ws", S + '.str.replace_all("\\\\s+", "_")'),
    ("replace_end", S + '.str.replace("$", "!")'),
    ("replace_dollar_name", S + '.str.replace_all("(a)", "$1x")'),
    ("replace_unicode", S + '.str.replace_all("[ßö]", "?")'),
    ("replace_dot_lit", S + '.str.replace_all(",", ";", literal=True)'),
    ("replace_dollar_dollar", S + '.str.replace_all("a", "$$")'),
    ("replace_braced", S + '.str.replace_all("(b)", "${1}1")'),
    ("replace_missing_group", S + '.str.replace_all("(b)", "[$9]")'),
    ("replace_n0", S + '.str.replace("a", "X", n=0)'),
    ("replace_n0_regex", S + '.str.replace("(a)", "X", n=0)'),
    ("replace_n_neg2", S + '.str.replace("(a)", "X", n=-2)'),
    ("replace_n2_regex", S + '.str.replace("(a)", "X", n=2)'),
    ("replace_n2_plain_expand", S + '.str.replace("a", "${0}x", n=2)'),
    ("replace_n_lit", S + '.str.replace("a", "X", literal=True, n=2)'),
    ("replace_ci", S + '.str.replace_all("(?i)A", "_")'),
    # str.contains_any
    ("contains_any", S + '.str.contains_any(["AB", "ö"])'),
    ("contains_any_ci", S + '.str.contains_any(["AB", "ö"], ascii_case_insensitive=True)'),
    ("contains_any_empty_pat", S + '.str.contains_any([""])'),
    ("contains_any_ci_nonascii", S + '.str.contains_any(["SS", "Ö"], ascii_case_insensitive=True)'),
    # case, lengths
    ("titlecase", S + ".str.to_titlecase()"),
    ("upper", S + ".str.to_uppercase()"),
    ("lower", S + ".str.to_lowercase()"),
    ("len_chars", S + ".str.len_chars()"),
    ("len_bytes", S + ".str.len_bytes()"),
    ("u_titlecase", 'pl.col("u").str.to_titlecase()'),
    ("u_upper", 'pl.col("u").str.to_uppercase()'),
    ("u_lower", 'pl.col("u").str.to_lowercase()'),
    ("u_len_chars", 'pl.col("u").str.len_chars()'),
    ("u_upper_eq", 'pl.col("u").str.to_uppercase() == "ΑΣ\'Σ XΣ"'),
    # reused string predicates on Polars nodes
    ("contains_lenient", S + '.str.contains("(", strict=False)'),
    ("contains_regex", S + '.str.contains("b|ö")'),
    ("contains_literal", S + '.str.contains(".", literal=True)'),
    ("contains_class", S + '.str.contains("^\\\\p{Lu}")'),
    ("starts_with", S + '.str.starts_with("a")'),
    ("ends_with", S + '.str.ends_with("a")'),
    ("ends_with_greek", S + '.str.ends_with("ΣΑΣ")'),
    ("contains_ci_regex", S + '.str.contains("(?i)É")'),
    ("contains_digit", S + '.str.contains("\\d")'),
    ("contains_col", S + '.str.contains(pl.col("s").str.slice(-1), strict=False)'),
    ("contains_col_lenient", 'pl.col("u").str.contains(pl.col("s"), strict=False)'),
    ("contains_col_strict", 'pl.col("u").str.contains(pl.col("s"))'),
    ("contains_col_bad_lenient", 'pl.col("u").str.contains(pl.concat_str([pl.col("s"), pl.lit("(")]), strict=False)'),
    ("contains_col_bad_strict", 'pl.col("u").str.contains(pl.concat_str([pl.col("s"), pl.lit("(")]))'),
    ("contains_col_literal", 'pl.col("u").str.contains(pl.col("s").str.slice(0, 1), literal=True)'),
    ("contains_dollar", S + '.str.contains("t$")'),
    ("contains_dollar_nl", S + '.str.contains("\\n$")'),
    ("contains_ta_dollar", S + '.str.contains("\\t$")'),
    ("contains_multiline", S + '.str.contains("(?m)ト$")'),
    # Rust's regex classes (Unicode \w includes marks and Other_Alphabetic)
    ("regex_word", 'pl.col("u").str.replace_all("\\\\w", ".")'),
    ("regex_nonword", 'pl.col("u").str.replace_all("\\\\W", "_")'),
    ("regex_boundary", 'pl.col("u").str.replace_all("\\\\b", "|")'),
    ("regex_nonboundary", 'pl.col("u").str.replace_all("\\\\B", "|")'),
    ("regex_class_word", 'pl.col("u").str.replace_all("[\\\\w\']+", "W")'),
    ("regex_space", S + '.str.replace_all("\\\\s", "_")'),
    ("regex_nonspace", S + '.str.replace_all("\\\\S+", "_")'),
    ("contains_boundary", 'pl.col("u").str.contains("\\\\bX")'),
    # struct
    ("struct_a", 'pl.col("st").struct.field("a")'),
    ("struct_b_upper", 'pl.col("st").struct.field("b").str.to_uppercase()'),
    ("struct_a_gt", 'pl.col("st").struct.field("a") > 4'),
    # list
    ("list_get_0", 'pl.col("l").list.get(0)'),
    ("list_get_0_oob", 'pl.col("l").list.get(0, null_on_oob=True)'),
    ("list_get_neg1", 'pl.col("l").list.get(-1, null_on_oob=True)'),
    ("list_get_5", 'pl.col("l").list.get(5, null_on_oob=True)'),
    ("list_get_col", 'pl.col("l").list.get(pl.col("i"), null_on_oob=True)'),
    ("list_get_neg5", 'pl.col("l").list.get(-5, null_on_oob=True)'),
    ("list_len", 'pl.col("l").list.len()'),
    ("list_contains", 'pl.col("l").list.contains(4)'),
    ("list_contains_0", 'pl.col("l").list.contains(0)'),
    ("list_contains_null", 'pl.col("l").list.contains(None)'),
    ("list_contains_null_ne", 'pl.col("l").list.contains(None, nulls_equal=False)'),
    ("list_contains_col", 'pl.col("l").list.contains(pl.col("i"))'),
    ("list_contains_col_ne", 'pl.col("l").list.contains(pl.col("i"), nulls_equal=False)'),
    ("list_contains_col_expr", 'pl.col("l").list.contains(pl.col("i") + 1)'),
]

PARTS = ["year", "quarter", "month", "week", "day", "weekday", "ordinal_day", "hour", "minute",
         "second", "millisecond", "microsecond", "nanosecond"]
for col in ["d", "ts", "tn", "tz"]:
    for p in PARTS:
        if col == "d" and p in ("hour", "minute", "second", "millisecond", "microsecond", "nanosecond"):
            continue
        CASES.append((f"{col}_{p}", f'pl.col("{col}").dt.{p}()'))
    for u in ["ns", "us", "ms", "s", "d"]:
        CASES.append((f"{col}_epoch_{u}", f'pl.col("{col}").dt.epoch("{u}")'))
    CASES.append((f"{col}_date", f'pl.col("{col}").dt.date()'))
    for ev in ["1d", "2d", "3d", "2h", "1mo", "2mo", "3mo", "5mo", "7mo", "1y", "2y", "3y", "1w", "2w", "15m", "90s", "1d2h", "1q",
               "7ns", "1500us", "1h30m"]:
        if col == "d" and ev in ("1d2h",):
            continue
        CASES.append((f"{col}_trunc_{ev}", f'pl.col("{col}").dt.truncate("{ev}")'))
for p in PARTS[PARTS.index("hour"):]:
    CASES.append((f"tm_{p}", f'pl.col("tm").dt.{p}()'))
# constant inputs (folded once per evaluation)
CASES += [
    ("lit_lower_eq", 'pl.lit("ΑΣ\'Σ XΣ").str.to_lowercase() == pl.col("u").str.to_lowercase()'),
    ("lit_concat", 'pl.concat_str([pl.lit("ß"), pl.col("s"), pl.lit(None)], separator="/", ignore_nulls=True)'),
    ("lit_date_trunc", 'pl.lit(date(2024, 2, 29)).dt.truncate("1mo") == pl.col("d")'),
    ("lit_list_get", 'pl.lit([10, 20, 30]).list.get(pl.col("i"), null_on_oob=True)'),
    ("lit_list_contains", 'pl.lit([1, None, 4]).list.contains(pl.col("i"))'),
    ("lit_list_contains_ne", 'pl.lit([1, None, 4]).list.contains(pl.col("i"), nulls_equal=False)'),
    ("lit_list_contains_null", 'pl.lit([1, None]).list.contains(None) == pl.col("b")'),
    ("lit_slice_col", 'pl.lit("abcdef").str.slice(pl.col("i"), 2)'),
    ("lit_replace", 'pl.col("s").str.replace_all(pl.lit("a"), pl.lit("+"))'),
    ("lit_titlecase", 'pl.lit("ǆemal ßtraße").str.to_titlecase() == pl.col("s")'),
]
CASES.append(("d_trunc_1d2h", 'pl.col("d").dt.truncate("1d2h")'))
CASES.append(("d_year_filter", 'pl.col("d").dt.year() < 1970'))
# pl.date / pl.datetime of integers: literals, compared with dates and datetimes
CASES += [
    ("pl_date_gt", 'pl.col("d") > pl.date(1969, 12, 31)'),
    ("pl_date_left", 'pl.date(2000, 2, 29) <= pl.col("d")'),
    ("pl_date_ts", 'pl.col("ts") >= pl.date(2000, 2, 29)'),
    ("pl_datetime_ts", 'pl.col("ts") < pl.datetime(1969, 12, 31, 23, 59, 59, 999999)'),
    ("pl_datetime_d", 'pl.col("d") >= pl.datetime(2000, 2, 29, 12)'),
    ("pl_datetime_tn", 'pl.col("tn") == pl.datetime(2000, 2, 29, 23, 59, 59, time_unit="ns")'),
]


# Random compositions (fixed seed): chains of string methods with offsets,
# lengths, patterns and replacements drawn from small pools of awkward
# values; truncations followed by parts; list indexes.
PATTERNS = ["a", "l", "ß", "Σ", "", " ", "(a)", "[aeiou]+", "\\s", "^.", ".$", "a|b", "(?i)S", "x*", "é", "\\d+",
            "(?P<w>\\w+)"]
VALUES = ["", "-", "$1", "<$0>", "$$", "${1}X", "é", "${w}!"]
CHARS = [None, "a", " a", "ßΣ", "\u00a0 x", "aeiou"]
EVERY = ["1d", "2d", "5d", "1h", "3h", "45m", "1w", "3w", "1mo", "2mo", "7mo", "1q", "1y", "3y", "10s", "250ms",
         "1d12h"]
PARTS_R = ["year", "month", "day", "weekday", "week", "ordinal_day", "quarter", "hour", "minute", "second",
           "microsecond"]


def lit(v):
    return "None" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def random_string_expr(r):
    e = r.choice(['pl.col("s")', 'pl.col("u")', 'pl.col("st").struct.field("b")'])
    for _ in range(r.randint(1, 3)):
        k = r.randrange(7)
        if k == 0:
            e += r.choice([".str.to_uppercase()", ".str.to_lowercase()", ".str.to_titlecase()"])
        elif k == 1:
            e += f".str.strip_chars({lit(r.choice(CHARS))})"
        elif k == 2:
            ln = r.choice([None, 0, 1, 2, 3, 5, 8])
            e += f".str.slice({r.randint(-12, 12)}{'' if ln is None and r.random() < 0.5 else ', ' + str(ln)})"
        elif k == 3:
            pat, val = r.choice(PATTERNS), r.choice(VALUES)
            if "(?P<w>" not in pat and "${w}" in val:
                val = "$1"
            lit_flag = r.random() < 0.3
            if r.random() < 0.5:
                e += f".str.replace_all({lit(pat)}, {lit(val)}{', literal=True' if lit_flag else ''})"
            else:
                e += f".str.replace({lit(pat)}, {lit(val)}{', literal=True' if lit_flag else ''}, n={r.randint(0, 3)})"
        elif k == 4:
            e = f'pl.concat_str([{e}, pl.col("i")], separator={lit(r.choice(["", "-", "ß"]))}' + \
                (", ignore_nulls=True)" if r.random() < 0.5 else ")")
        else:
            e += r.choice([".str.to_uppercase()", ".str.strip_chars()", ".str.slice(-3)"])
    k = r.randrange(8)
    if k == 0:
        return e + f".str.starts_with({lit(r.choice(['a', 'A', 'ß', 'S', '', ' ']))})"
    if k == 1:
        return e + f".str.contains({lit(r.choice(PATTERNS))})"
    if k == 2:
        return e + f".str.contains({lit(r.choice(['a', '.', ' ', 'ß']))}, literal=True)"
    if k == 3:
        return e + f".str.contains_any([{lit(r.choice(['a', 'SS', 'é']))}, {lit(r.choice(['x', 'Σ', 'B']))}]" + \
            (", ascii_case_insensitive=True)" if r.random() < 0.5 else ")")
    if k == 4:
        return e + f".str.len_bytes() > {r.randint(0, 8)}"
    return e


def random_temporal_expr(r):
    c = r.choice(["d", "ts", "tn", "tz"])
    e = f'pl.col("{c}")'
    if r.random() < 0.7:
        every = r.choice(EVERY)
        if c == "d" and every == "1d12h":
            every = "1d"
        e += f'.dt.truncate("{every}")'
    k = r.randrange(4)
    if k == 0:
        parts = PARTS_R[:7] if c == "d" else PARTS_R
        return e + f".dt.{r.choice(parts)}()"
    if k == 1:
        return e + f'.dt.epoch("{r.choice(["ms", "us", "ns"])}")'
    if k == 2:
        return e + ".dt.date()"
    return e + f".dt.{r.choice(PARTS_R[:7])}() == {r.randint(1, 12)}"


def random_list_expr(r):
    e = f'pl.col("l").list.get({r.randint(-5, 5)}, null_on_oob=True)'
    return e + r.choice(["", " > 0", " + 1", ".is_null()"])


def random_cases(n, seed=2026):
    r = __import__("random").Random(seed)
    out, seen = [], set()
    while len(out) < n:
        k = r.random()
        text = random_string_expr(r) if k < 0.6 else random_temporal_expr(r) if k < 0.9 else random_list_expr(r)
        if text in seen:
            continue
        seen.add(text)
        out.append((f"random_{len(out):03d}", text))
    return out


CASES += random_cases(300)


def esc(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def value_text(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return esc(v)
    raise TypeError(f"unexpected value {v!r}")


def type_text(dt):
    simple = {pl.Int8: "int8", pl.Int16: "int16", pl.Int32: "int32", pl.Int64: "int64", pl.UInt8: "uint8",
              pl.UInt16: "uint16", pl.UInt32: "uint32", pl.UInt64: "uint64", pl.String: "string",
              pl.Boolean: "bool", pl.Date: "date32"}
    for k, v in simple.items():
        if dt == k:
            return v
    if isinstance(dt, pl.Datetime):
        return f"timestamp[{dt.time_unit}, {dt.time_zone}]" if dt.time_zone else f"timestamp[{dt.time_unit}]"
    if isinstance(dt, pl.List):
        return f"list<{type_text(dt.inner)}>"
    raise TypeError(f"unexpected type {dt}")


def main():
    os.makedirs(OUT, exist_ok=True)
    t = table()
    with ipc.new_file(os.path.join(OUT, "table.arrow"), t.schema) as w:
        w.write_table(t)
    df = pl.from_arrow(t)
    lines = [f"# Polars {pl.__version__}, written by tests/expr/gen_polars_eval.py"]
    jlines = [f"# Polars {pl.__version__}: Expr.meta.serialize(format='json') of each case"]
    names = set()
    for name, text in CASES:
        assert name not in names, name
        names.add(name)
        assert "\t" not in text and "\n" not in text
        js = eval(text).meta.serialize(format="json")
        assert "\n" not in js
        jlines.append(f"{name}\t{js}")
        try:
            r = df.select(eval(text).alias("r"))["r"]
        except Exception as ex:  # Polars refuses: quiver must refuse too
            msg = str(ex).splitlines()[0]
            lines.append(f"{name}\t{text}\terror\t{msg}")
            continue
        tt = type_text(r.dtype)
        if r.dtype == pl.Date:
            vals = r.cast(pl.Int32).to_list()
        elif isinstance(r.dtype, pl.Datetime):
            vals = r.cast(pl.Int64).to_list()
        else:
            vals = r.to_list()
        lines.append(f"{name}\t{text}\t{tt}\t[" + ", ".join(value_text(v) for v in vals) + "]")
    with open(os.path.join(OUT, "expected.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, "json.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(jlines) + "\n")
    print(f"{len(CASES)} cases, Polars {pl.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
