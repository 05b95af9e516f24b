"""Generates the Polars expressions the peer tests filter with.

Each expression is Python text over the peer table (peer_table.py), valid
both as `eval(text, NAMESPACE)` for Polars and as the text `quiver
lance-filter` and `quiver scan --where` read.  Three parts:

* the catalogue: every predicate shape of issue 3's translate and decline
  lists, each with a few instances over different columns and edge literals;
* compositions: catalogue and random atoms nested under & | ^ ~, drawn by a seeded
  random.Random (QV_PEERS_SEED, printed with every failure), so a run is
  reproducible and a failing expression is named by its text.

* random atoms: predicates over random columns, operators and edge literals
  (same seeded generator), so each rule meets values the catalogue did not
  pick.

`generate()` returns a list of Case(shape, text); shapes name rows of the
coverage table in docs/lance-pushdown.md.
"""

import datetime
import os
import random
from dataclasses import dataclass

import polars as pl

DEFAULT_SEED = 20261130
N_COMPOSED = 330
N_RANDOM_ATOMS = 260
# QV_PEERS_COUNT=N generates N random expressions (atoms and compositions,
# in the default's proportion) instead of the default 590, e.g. 10000 for
# a long local run; CI keeps the default.
DEFAULT_COUNT = N_COMPOSED + N_RANDOM_ATOMS

NAMESPACE = {
    "pl": pl,
    "date": datetime.date,
    "datetime": datetime.datetime,
    "time": datetime.time,
    "timedelta": datetime.timedelta,
    "timezone": datetime.timezone,
}

INTS = ["i8", "i16", "i32", "i64", "u8", "u32", "u64"]
FLOATS = ["f", "g", "f32"]
CMP = ["==", "!=", "<", "<=", ">", ">="]
INT_EDGES = {
    "i8": [-128, 127, 0, 5],
    "i16": [-32768, 32767, 7],
    "i32": [-2147483648, 2147483647, 3],
    "i64": [-9223372036854775808, 9223372036854775807, 0, -3],
    "u8": [255, 0, 128],
    "u32": [4294967295, 1],
    "u64": [18446744073709551615, 9223372036854775808, 0, 3],
}


@dataclass(frozen=True)
class Case:
    shape: str
    text: str


def c(name):
    return 'pl.col("%s")' % name


def seed():
    return int(os.environ.get("QV_PEERS_SEED", DEFAULT_SEED))


def count():
    """Random expressions per run (QV_PEERS_COUNT, default 590)."""
    return int(os.environ.get("QV_PEERS_COUNT", DEFAULT_COUNT))


def is_default_run():
    """The seed and count docs/lance-pushdown.md was generated with."""
    return seed() == DEFAULT_SEED and count() == DEFAULT_COUNT


def catalogue():
    """(shape, [texts]) for every shape of the issue's lists."""
    out = []

    def add(shape, *texts):
        out.append((shape, list(texts)))

    # -- comparisons -------------------------------------------------------
    add("compare int column with int literal",
        *["%s %s %d" % (c(col), op, v) for col in INTS for v, op in zip(INT_EDGES[col], CMP[(len(col)) % 3:])])
    add("compare int column with integral float literal",
        '%s == 3.0' % c("i64"), '%s >= 2.0' % c("i32"), '%s < -1.0' % c("i8"), '%s != 0.0' % c("u8"))
    add("compare int column with fractional float literal",
        '%s > 2.5' % c("i64"), '%s >= 2.5' % c("i32"), '%s < -2.5' % c("i8"), '%s <= 0.5' % c("u64"),
        '%s == 2.5' % c("i16"), '%s != 2.5' % c("i64"), '%s > 1e19' % c("u64"), '%s < -1e19' % c("i64"))
    add("compare float column with int literal",
        '%s > 1' % c("f"), '%s <= 2' % c("g"), '%s == 3' % c("f32"), '%s != -1' % c("f"))
    add("compare float column with float literal",
        '%s > 0.999' % c("f"), '%s < 0.5' % c("f"), '%s == 0.5' % c("g"), '%s != 2.5' % c("f"),
        '%s >= -2.5' % c("g"), '%s <= 1e300' % c("f"), '%s > 0.1' % c("f32"), '%s == 1.5' % c("f32"),
        '%s < 5e-324' % c("f"))
    add("compare float column with zero (-0.0 == 0.0)",
        *["%s %s %s" % (c(col), op, z) for col, z in [("f", "0.0"), ("g", "-0.0"), ("f32", "0")] for op in CMP])
    add("compare with NaN or infinite literal",
        '%s > float("inf")' % c("f"), '%s == float("nan")' % c("g"), '%s < float("-inf")' % c("f"),
        '%s >= float("nan")' % c("f"))
    add("compare literal on the left", '1 < %s' % c("i64"), '0.5 >= %s' % c("f"), '"b" > %s' % c("s"))
    add("compare two int columns", '%s < %s' % (c("i64"), c("i32")), '%s == %s' % (c("i8"), c("i16")),
        '%s >= %s' % (c("u8"), c("i8")))
    add("compare two float columns", '%s < %s' % (c("f"), c("g")), '%s == %s' % (c("f"), c("g")))
    add("compare int column with float column", '%s > %s' % (c("i64"), c("f")))
    add("compare string column with literal",
        '%s >= "abc"' % c("s"), '%s == ""' % c("s"), '%s == "é"' % c("s"), '%s == "it\'s"' % c("s"),
        '%s < "b"' % c("s"), '%s != "x"' % c("t"), '%s == "日本語"' % c("s"), '%s > "\u00e9"' % c("s"))
    add("compare string columns", '%s == %s' % (c("s"), c("t")), '%s < %s' % (c("s"), c("t")))
    add("compare bool column", '%s == True' % c("b"), '%s != False' % c("c"), c("b"), '%s == %s' % (c("b"), c("c")))
    add("compare with None", '%s == None' % c("i64"), '%s != None' % c("s"))
    add("compare date column with date literal",
        '%s >= date(2024, 1, 1)' % c("d"), '%s < date(1970, 1, 1)' % c("d"), '%s == date(2024, 2, 29)' % c("d"),
        '%s != pl.lit(date(1969, 12, 31))' % c("d"))
    add("compare timestamp column with datetime literal",
        '%s < datetime(2000, 1, 1)' % c("ts"), '%s >= datetime(1970, 1, 1)' % c("ts"),
        '%s == datetime(1969, 12, 31, 23, 59, 59, 999999)' % c("ts"),
        '%s > datetime(2024, 1, 1, 12, 30, 15, 250000)' % c("ts"), '%s <= datetime(1900, 1, 1, 6)' % c("ts"),
        '%s < datetime(1500, 1, 1)' % c("ts"))
    add("compare zoned timestamp with datetime literal",
        '%s < pl.lit(datetime(2024, 1, 1), dtype=pl.Datetime("us", "UTC"))' % c("tz"))
    add("compare with Time or Duration literal",
        '%s.dt.time() > pl.lit(time(12, 0))' % c("ts"), '(%s - %s) > pl.lit(timedelta(days=1))' % (c("ts"), c("ts")))

    # -- membership, logic -------------------------------------------------
    add("is_in int list", '%s.is_in([1, 2])' % c("i64"), '%s.is_in([-128, 127])' % c("i8"),
        '%s.is_in([18446744073709551615, 3])' % c("u64"), '%s.is_in([0, 5])' % c("i32"))
    add("is_in with None item", '%s.is_in([1, None])' % c("i64"), '%s.is_in(["a", None])' % c("s"))
    add("is_in long list", '%s.is_in(%r)' % (c("i64"), list(range(-20, 60, 3))),
        '%s.is_in(%r)' % (c("i32"), list(range(0, 4000, 7))))
    add("is_in float items", '%s.is_in([0.0, 2.5])' % c("f"), '%s.is_in([1.0, 2.5])' % c("i64"),
        '%s.is_in([0.5, -0.0])' % c("g"))
    add("is_in string list", '%s.is_in(["a", "é", ""])' % c("s"), '%s.is_in(["x", " "])' % c("t"))
    add("is_in empty list", '%s.is_in([])' % c("i64"))
    add("is_in(nulls_equal=True)", '%s.is_in([1, None], nulls_equal=True)' % c("i64"),
        '%s.is_in(["a", None], nulls_equal=True)' % c("s"))
    add("xor", '%s ^ %s' % (c("b"), c("c")), '(%s > 1) ^ (%s < 0)' % (c("i64"), c("i32")),
        '(%s == "a") ^ %s' % (c("s"), c("b")))
    add("xor of integers (bitwise)", '(%s ^ %s) > 0' % (c("i64"), c("i32")))
    add("eq_missing / ne_missing", '%s.eq_missing(1)' % c("i64"), '%s.ne_missing(2)' % c("i8"),
        '%s.eq_missing(None)' % c("i64"), '%s.eq_missing(%s)' % (c("b"), c("c")),
        '%s.eq_missing("a")' % c("s"), '%s.ne_missing(0.5)' % c("f"))
    add("eq_missing against float zero", '%s.eq_missing(0.0)' % c("f"))
    add("not", '~(%s > 1)' % c("i64"), '~%s' % c("b"), '~%s.is_in([1, None])' % c("i64"))

    # -- arithmetic ----------------------------------------------------------
    add("add / sub / mul", '(%s + 1 - 2) * 3 > 4' % c("i64"), '%s * 2 < 10' % c("i32"),
        '%s + %s > 0' % (c("i64"), c("i32")), '%s - 1.5 > 0' % c("f"), '%s * %s > 1' % (c("f"), c("g")))
    add("integer overflow wraps", '%s + 100 > 0' % c("i8"), '%s * 2 < 0' % c("i64"), '%s + 1 == 0' % c("u64"))
    add("true division /", '%s / %s > 1.5' % (c("i64"), c("i32")), '%s / 2 > 1' % c("i64"),
        '%s / 0 > 1' % c("i32"), '%s / 4 < 0.5' % c("f"), '%s / 3 > 0.1' % c("f32"), '%s / 10 == 0.15' % c("f32"))
    add("floor division //", '%s // 2 > 1' % c("i64"), '%s // 2 == -2' % c("i32"))
    add("modulo %", '%s %% 3 == 1' % c("i64"), '%s %% 3 == 1' % c("u32"), '%s %% -3 == -1' % c("i64"),
        '%s %% 4 == 2' % c("i8"), '%s %% 2.5 > 1' % c("f"))
    add("power ** non-negative integer", '%s ** 2 > 10' % c("i64"), '%s ** 3 > 8' % c("i8"),
        '%s ** 2 > 8' % c("f"), '%s ** 3 > 8' % c("f"))
    add("power ** fractional or negative", '%s ** 0.5 > 1' % c("f"), '%s ** -1 > 1' % c("i64"))
    add("unary minus", '-%s < -1' % c("i64"), '-%s > 0' % c("f"), '-%s > 0' % c("i8"))
    add("abs", '%s.abs() < 3' % c("i64"), '%s.abs() > 1' % c("f"), '%s.abs() == 128' % c("i8"))
    add("min_horizontal / max_horizontal",
        'pl.min_horizontal("i64", "i32") < pl.max_horizontal(pl.col("i64"), 1)',
        'pl.max_horizontal("i8", "i16") > 5', 'pl.min_horizontal("f", "g") < 1')
    add("fill_null", '%s.fill_null(0) > 1' % c("i64"), '%s.fill_null(0.5) < 1' % c("f"),
        '%s.fill_null("z") == "z"' % c("s"), '%s.fill_null(False)' % c("b"), '%s.fill_null(0.1) == 0.1' % c("f32"))
    add("fill_null(strategy=...)", '%s.fill_null(strategy="forward") > 1' % c("i64"))
    add("coalesce", 'pl.coalesce("i64", pl.col("i32"), 5) > 3', 'pl.coalesce("s", "t") == "b"')
    add("is_nan family", '%s.is_nan()' % c("f"), '%s.is_not_nan()' % c("g"), '%s.is_finite()' % c("f"),
        '%s.is_infinite()' % c("g"), '%s.is_nan()' % c("f32"), '%s.is_finite()' % c("f32"))
    add("is_nan on an integer", '%s.is_nan()' % c("i64"))

    # -- casts -------------------------------------------------------------
    add("widening cast", '%s.cast(pl.Int64) > 1' % c("i32"), '%s.cast(pl.Float64) > 1.5' % c("i32"),
        '%s.cast(pl.Int16) < 0' % c("i8"), '%s.cast(pl.Float64) > 0.1' % c("f32"),
        '%s.cast(pl.Int64) > 100' % c("u32"))
    add("narrowing integer cast", '%s.cast(pl.Int8) > 1' % c("i64"), '%s.cast(pl.UInt8) > 1' % c("i16"))
    add("non-strict cast, widening", '%s.cast(pl.Int64, strict=False) > 1' % c("i32"))
    add("non-strict cast, not widening", '%s.cast(pl.Int8, strict=False).is_null()' % c("i64"),
        '%s.cast(pl.Int64, strict=False).is_null()' % c("s"), '%s.cast(pl.Int32, strict=False) > 1' % c("f"))
    add("float to integer cast", '%s.cast(pl.Int64) > 1' % c("f"))
    add("cast to string", '%s.cast(pl.String) == "1"' % c("i64"))

    # -- temporal ------------------------------------------------------------
    add("dt parts of a date", '%s.dt.year() == 2024' % c("d"), '%s.dt.month() > 6' % c("d"),
        '%s.dt.day() == 31' % c("d"), '%s.dt.quarter() == 1' % c("d"), '%s.dt.week() == 1' % c("d"),
        '%s.dt.ordinal_day() > 100' % c("d"), '%s.dt.weekday() == 7' % c("d"), '%s.dt.weekday() == 1' % c("d"))
    add("dt parts of a timestamp", '%s.dt.year() < 1970' % c("ts"), '%s.dt.hour() < 12' % c("ts"),
        '%s.dt.minute() == 30' % c("ts"), '%s.dt.weekday() > 5' % c("ts"), '%s.dt.week() == 52' % c("ts"),
        '%s.dt.day() == 31' % c("ts"))
    add("dt.second", '%s.dt.second() == 15' % c("ts"))
    add("dt parts of a zoned timestamp", '%s.dt.hour() == 0' % c("tz"), '%s.dt.day() == 1' % c("tz"),
        '%s.dt.year() == 2024' % c("tz"))
    add("dt.epoch", '%s.dt.epoch() > 0' % c("ts"), '%s.dt.epoch("d") < 0' % c("d"))
    add("dt.truncate single unit", '%s.dt.truncate("1d") == %s' % (c("ts"), c("ts")),
        '%s.dt.truncate("1mo") == date(2024, 2, 1)' % c("d"), '%s.dt.truncate("1y") == %s' % (c("d"), c("d")))
    add('dt.truncate multiple ("2d")', '%s.dt.truncate("2d") == %s' % (c("ts"), c("ts")))
    add("dt.date", '%s.dt.date() == date(2024, 1, 1)' % c("ts"), '%s.dt.date() < date(1970, 1, 1)' % c("ts"))

    # -- lists, structs ------------------------------------------------------
    add("list.contains", '%s.list.contains(1)' % c("l"), '%s.list.contains(-9223372036854775808)' % c("l"))
    add("list.contains(None)", '%s.list.contains(None)' % c("l"))
    add("list.len", '%s.list.len() > 1' % c("l"), '%s.list.len() == 0' % c("l"))
    add("list.get(null_on_oob=True)", '%s.list.get(0, null_on_oob=True) > 1' % c("l"),
        '%s.list.get(-1, null_on_oob=True) == 2' % c("l"), '%s.list.get(2, null_on_oob=True).is_null()' % c("l"))
    add("list.get without null_on_oob", '%s.list.get(0) == 3' % c("l"))
    add("struct.field", '%s.struct.field("x") > 1' % c("st"), '%s.struct.field("x").is_null()' % c("st"))

    # -- strings -------------------------------------------------------------
    add("concat_str", 'pl.concat_str([pl.col("s"), pl.col("t")], separator="-") == "a-b"',
        'pl.concat_str("s", "t", separator="-", ignore_nulls=True) == "x"', 'pl.concat_str(["s", "t"]) == "ab"')
    add("concat_str of a non-string", 'pl.concat_str([pl.col("i64"), pl.col("s")]) == "1a"')
    add("str.starts_with / ends_with", '%s.str.starts_with("a")' % c("s"), '%s.str.ends_with("x")' % c("s"),
        '%s.str.starts_with("")' % c("s"), '%s.str.starts_with("É")' % c("s"), '%s.str.ends_with("e\'s")' % c("s"))
    add("str.contains literal", '%s.str.contains("a.", literal=True)' % c("s"),
        '%s.str.contains("ß", literal=True)' % c("s"), '%s.str.contains("%%", literal=True)' % c("s"))
    add("str.contains regex", '%s.str.contains("^a+$")' % c("s"), '%s.str.contains("a.b")' % c("s"),
        '%s.str.contains("[é日]")' % c("s"), '%s.str.contains("^$")' % c("s"), '%s.str.contains("(?i)ab")' % c("s"))
    add("str.contains(strict=False)", '%s.str.contains("(", strict=False)' % c("s"))
    add("case mapping", '%s.str.to_lowercase() == "école"' % c("s"), '%s.str.to_uppercase() == "STRASSE"' % c("s"),
        '%s.str.to_uppercase() == "AB"' % c("s"), '%s.str.to_lowercase() == "ab"' % c("s"))
    add("str.to_titlecase", '%s.str.to_titlecase() == "Ab"' % c("s"))
    add("str.len_chars / len_bytes", '%s.str.len_chars() > 2' % c("s"), '%s.str.len_bytes() < 3' % c("s"),
        '%s.str.len_chars() == 0' % c("s"))
    add("str.strip_chars() (whitespace)", '%s.str.strip_chars() == "x"' % c("s"))
    add("str.strip_chars(chars)", '%s.str.strip_chars("x ") == ""' % c("s"), '%s.str.strip_chars("a") == "bc"' % c("s"))
    add("str.replace(literal=True)", '%s.str.replace("a", "b", literal=True) == "bbc"' % c("s"))
    add("str.replace regex", '%s.str.replace("a+", "b") == "b"' % c("s"), '%s.str.replace_all("a", "b") == "bbb"' % c("s"))
    add("str.contains_any", '%s.str.contains_any(["ab", "é"])' % c("s"), '%s.str.contains_any(["", "x"])' % c("t"),
        '%s.str.contains_any(["X", "ß", "\u00a0"])' % c("s"))
    add("str.contains_any(ascii_case_insensitive=True)",
        '%s.str.contains_any(["ab", "cd"], ascii_case_insensitive=True)' % c("s"))
    add("str.slice", '%s.str.slice(0, 2) == "ab"' % c("s"), '%s.str.slice(1) == "b"' % c("s"))

    # -- null checks ---------------------------------------------------------
    add("is_null / is_not_null", *['%s.is_null()' % c(col) for col in ["i64", "f", "s", "d", "ts", "l", "st", "b"]],
        *['%s.is_not_null()' % c(col) for col in ["u64", "g", "t", "tz"]])

    # -- declines --------------------------------------------------------------
    add("round", '%s.round(0) == 2' % c("f"), '%s.round(1) == 0.5' % c("f"))
    add("sqrt / ln / log10 / cbrt / log", '%s.sqrt() > 1' % c("f"), '%s.log10() > 0' % c("f"),
        '%s.log() < 0' % c("g"), '%s.cbrt() > 1' % c("f"), '%s.log(2) > 1' % c("f"))
    add("when/then/otherwise", 'pl.when(pl.col("i64") > 1).then(1).otherwise(2) == 2')
    add("all_horizontal / any_horizontal", 'pl.all_horizontal(pl.col("b"), pl.col("c"))',
        'pl.any_horizontal(pl.col("i64") > 1, pl.col("b"))')

    # -- the documented partial translation -----------------------------------
    add("AND with a declining conjunct", '(%s > 5) & (%s.str.slice(0, 2) == "ab")' % (c("i64"), c("s")),
        '(%s.round(0) == 2) & (%s < 0.5)' % (c("f"), c("g")))
    add("OR with a declining branch", '(%s > 1) | (%s.round(2) == 1.5)' % (c("i64"), c("f")))
    add("NOT over a declining conjunct", '~((%s > 1) & (%s.sqrt() > 2))' % (c("i64"), c("f")))
    return out


INT_TYPES = {"i8": "pl.Int8", "i16": "pl.Int16", "i32": "pl.Int32", "i64": "pl.Int64", "u8": "pl.UInt8",
             "u32": "pl.UInt32", "u64": "pl.UInt64"}
FLOAT_LITS = ["0.0", "-0.0", "0.5", "-2.5", "1e300", "5e-324", "0.1", "3.0", "1e19", "9007199254740993.0", "-1.5"]
STR_LITS = ['""', '"a"', '"é"', '"x"', '" "', '"ß"', '"日"', '"ab"', '"A"', '"\u00a0"', '"b"', '"it\'s"']


def _rand_int_lit(rng, col):
    return rng.choice(INT_EDGES[col] + [0, 1, -1, 2, 100, 127, 255, 2 ** 31, 2 ** 62, -(2 ** 63), 2 ** 64 - 1])


def random_atoms(rng, n):
    """Predicates over random columns, operators and edge literals, so the
    rules are tried beyond the catalogue's hand-picked instances."""
    out = []
    kinds = ["int cmp", "int arith", "int-int arith", "float cmp", "float arith", "string", "is_in", "date",
             "timestamp", "cast", "list", "null-safe", "fill_null", "struct", "string fn", "horizontal", "truncate",
             "when", "strict cast", "string concat", "wrapping arith", "zoned timestamp"]
    while len(out) < n:
        kind = rng.choice(kinds)
        op = rng.choice(CMP)
        col = rng.choice(INTS)
        f = rng.choice(FLOATS)
        if kind == "int cmp":
            lit = rng.choice([str(_rand_int_lit(rng, col)), rng.choice(FLOAT_LITS)])
            text = "%s %s %s" % (c(col), op, lit)
        elif kind == "int arith":
            text = "(%s %s %d) %s %d" % (c(col), rng.choice("+-*"), rng.choice([1, 2, 3, 100, 127, -1, 2 ** 31, 2 ** 62]),
                                         op, rng.choice([0, 10, -5, 1]))
        elif kind == "int-int arith":
            text = "(%s %s %s) %s 0" % (c(col), rng.choice("+-*"), c(rng.choice(INTS)), op)
        elif kind == "float cmp":
            text = "%s %s %s" % (c(f), op, rng.choice(FLOAT_LITS + ["1", "0", "-1"]))
        elif kind == "float arith":
            text = rng.choice(["(%s %s %s) %s %s" % (c(f), rng.choice("+-*/"), rng.choice(["2", "0.5", "-1", "0.0"]),
                                                      op, rng.choice(["0", "1.5", "-0.0"])),
                               "-%s %s %s" % (c(f), op, rng.choice(["0", "1", "-2.5"])),
                               "%s.abs() %s %s" % (c(f), op, rng.choice(["0", "1", "0.5"]))])
        elif kind == "string":
            lit = rng.choice(STR_LITS)
            text = rng.choice(["%s %s %s" % (c("s"), op, lit),
                               "%s.str.%s(%s)" % (c(rng.choice("st")), rng.choice(["starts_with", "ends_with"]), lit),
                               "%s.str.contains(%s, literal=True)" % (c("s"), lit),
                               "%s.str.to_%s() == %s" % (c("s"), rng.choice(["lowercase", "uppercase"]), lit),
                               "%s.str.len_chars() %s %d" % (c("s"), op, rng.choice([0, 1, 2, 3]))])
        elif kind == "is_in":
            pool = rng.choice([[str(v) for v in INT_EDGES[col]] + ["0", "1", "None"], STR_LITS + ["None"]])
            items = ", ".join(rng.sample(pool, rng.randint(1, min(5, len(pool)))))
            target = c(col) if pool[-2] == "1" else c(rng.choice("st"))
            text = "%s.is_in([%s])" % (target, items)
        elif kind == "date":
            y, m, d = rng.choice([(2024, 1, 1), (1970, 1, 1), (1969, 12, 31), (2024, 2, 29), (2000, 12, 31)])
            text = rng.choice(["%s %s date(%d, %d, %d)" % (c("d"), op, y, m, d),
                               "%s.dt.%s() %s %d" % (c(rng.choice(["d", "ts"])),
                                                     rng.choice(["year", "month", "day", "weekday", "week", "quarter",
                                                                 "ordinal_day"]), op, rng.choice([1, 2, 7, 31, 2024]))])
        elif kind == "timestamp":
            text = "%s %s datetime(%d, %d, %d, %d, %d, %d, %d)" % (
                c("ts"), op, rng.choice([1969, 1970, 2000, 2024, 1900]), rng.randint(1, 12), rng.randint(1, 28),
                rng.randint(0, 23), rng.choice([0, 30, 59]), rng.choice([0, 15, 59]), rng.choice([0, 250000, 999999]))
        elif kind == "cast":
            to = rng.choice(list(INT_TYPES.values()) + ["pl.Float64", "pl.Float32"])
            text = "%s.cast(%s%s) %s %s" % (c(rng.choice(INTS + FLOATS)), to, rng.choice(["", ", strict=False"]), op,
                                           rng.choice(["0", "1", "-1", "0.5"]))
        elif kind == "list":
            text = rng.choice(["%s.list.contains(%d)" % (c("l"), rng.choice([1, 0, 5, -1])),
                               "%s.list.len() %s %d" % (c("l"), op, rng.choice([0, 1, 2])),
                               "%s.list.get(%d, null_on_oob=True) %s %d" % (c("l"), rng.choice([0, 1, -1, 2]), op,
                                                                            rng.choice([0, 1, 2, 3]))])
        elif kind == "fill_null":
            target = rng.choice([col, f, "s"])
            fill = {"s": rng.choice(STR_LITS)}.get(target) or rng.choice(["0", "1", "-1", "0.5", "0.1", "-0.0"])
            if target in INTS and "." in fill:
                fill = "0"
            lit = rng.choice(STR_LITS) if target == "s" else rng.choice(["0", "1", "0.1", "-0.5"] if target in FLOATS
                                                                       else ["0", "1", "-1"])
            text = "%s.fill_null(%s) %s %s" % (c(target), fill, op, lit)
        elif kind == "struct":
            text = "%s.struct.field(\"x\") %s %s" % (c("st"), op, rng.choice(["0", "1", "-5", "2.5", "None"]))
        elif kind == "string fn":
            lit = rng.choice(STR_LITS)
            text = rng.choice(["%s.str.strip_chars(%s) == %s" % (c("s"), rng.choice(['"x "', '"a"', '" "']), lit),
                               "%s.str.replace(%s, %s) == %s" % (c("s"), rng.choice(['"a"', '"a+"', '"^."']),
                                                                 rng.choice(['"b"', '""']), lit),
                               "%s.str.replace_all(%s, %s) == %s" % (c("s"), rng.choice(['"a"', '"[ab]"']),
                                                                     rng.choice(['"b"', '"x"']), lit),
                               "%s.str.contains(%s)" % (c("s"), rng.choice(['"^a"', '"b$"', '"\\\\s"', '"[^a-z]"'])),
                               "%s.str.len_bytes() %s %d" % (c("s"), op, rng.choice([0, 1, 2, 3]))])
        elif kind == "horizontal":
            a2, b2 = rng.sample(INTS, 2)
            text = "pl.%s_horizontal(%s, %s) %s %d" % (rng.choice(["min", "max"]), c(a2),
                                                       rng.choice([c(b2), str(rng.choice([0, 1, -1, 5]))]), op,
                                                       rng.choice([0, 1, -1, 5]))
        elif kind == "truncate":
            every = rng.choice(["1d", "1mo", "1y", "1h", "1w", "1q"])
            target = rng.choice(["d", "ts"])
            text = "%s.dt.truncate(\"%s\") %s %s" % (c(target), every, op, rng.choice(
                ["date(2024, 1, 1)", "date(2000, 12, 1)", c(target)] if target == "d" else [c("ts")]))
        elif kind == "when":
            text = "%s %s %s" % (_when(rng, 2), op, rng.choice(["0", "1", "-1", "2", "0.5"]))
        elif kind == "strict cast":
            # casts that fail on some rows of the table (Polars raises on the whole column)
            text = "%s %s %s" % (_value(rng, cast_only=True), op, rng.choice(["0", "1", "-1", "3"]))
        elif kind == "string concat":
            a2, b2 = rng.choice([(c("s"), c("t")), (c("t"), c("s")), (c("s"), rng.choice(STR_LITS)),
                                 (rng.choice(STR_LITS), c("t")), (c("t"), c("t"))])
            text = rng.choice(["(%s + %s) %s %s" % (a2, b2, rng.choice(["==", "!="]), rng.choice(STR_LITS + ['"ab"', '"bb"'])),
                               "(%s + %s).str.len_chars() %s %d" % (a2, b2, op, rng.choice([0, 1, 2, 3])),
                               "(%s + %s).str.starts_with(%s)" % (a2, b2, rng.choice(STR_LITS))])
        elif kind == "wrapping arith":
            small = rng.choice(["i8", "i16", "u8", "u32", "i32"])
            text = rng.choice([
                "(%s * %s) %s 0" % (c(small), c(small), op),
                "(%s + %d) %s 0" % (c(small), rng.choice([1, 100, 127, 255, 2 ** 31 - 1]), op),
                "(%s.cast(%s, wrap_numerical=True) * 3) %s %d" % (c(rng.choice(INTS)), INT_TYPES[small], op,
                                                                 rng.choice([0, 1, -1, 100])),
                "(%s - %s) %s 0" % (c(small), c(rng.choice(["u8", "u32"])), op),
                "(%s * 2 + %s) %s 0" % (c(f), c(small), op)])
        elif kind == "zoned timestamp":
            text = "%s %s datetime(%d, %d, %d, %d, %d, tzinfo=timezone.utc)" % (
                c("tz"), op, rng.choice([2024, 1969, 2023]), rng.choice([1, 3, 6, 12]), rng.choice([1, 15]),
                rng.randint(0, 23), rng.choice([0, 30, 59]))
        else:
            other = rng.choice([str(_rand_int_lit(rng, col)), "None", c(rng.choice(INTS))])
            text = "%s.%s(%s)" % (c(col), rng.choice(["eq_missing", "ne_missing"]), other)
        out.append(("random: " + kind, text))
    return out


def _value(rng, cast_only=False):
    """A numeric value expression: a column, a literal, a strict or lenient
    cast (some fail on rows of the table), wrapping arithmetic."""
    col = rng.choice(INTS)
    casts = ["%s.cast(%s)" % (c(rng.choice(["i64", "i32", "i16", "u64"])), rng.choice(["pl.Int8", "pl.UInt8", "pl.UInt32"])),
             "%s.cast(pl.Int64)" % c(rng.choice(["f", "g", "f32"])),
             "%s.cast(pl.Int32)" % c(rng.choice(["s", "t"])),
             "%s.cast(%s, strict=False)" % (c(rng.choice(INTS + FLOATS)), rng.choice(["pl.Int8", "pl.UInt16"])),
             "%s.list.get(0)" % c("l"),
             "%s.cast(pl.Float64)" % c(col)]
    if cast_only:
        return rng.choice(casts)
    return rng.choice(casts + [c(col), c(rng.choice(FLOATS)), str(rng.choice([0, 1, -1, 5, 127])),
                               "(%s * %d)" % (c(col), rng.choice([2, 3, 100])), "None"])


def _cond(rng):
    col = rng.choice(INTS)
    return rng.choice(["%s %s %d" % (c(col), rng.choice(CMP), rng.choice([0, 1, -1, 5, 100])),
                       "%s.is_null()" % c(col), c(rng.choice(["b", "c"])),
                       "%s.is_finite()" % c(rng.choice(FLOATS)), "%s.list.len() > 0" % c("l"),
                       '%s.str.contains("^[0-9]+$")' % c(rng.choice(["s", "t"]))])


def _when(rng, depth):
    """pl.when(...).then(...)[.when(...).then(...)].otherwise(...), values
    that can fail (strict casts, list.get) and nested whens included."""
    def value():
        return _when(rng, depth - 1) if depth > 0 and rng.random() < 0.25 else _value(rng)
    text = "pl.when(%s).then(%s)" % (_cond(rng), value())
    if rng.random() < 0.3:
        text += ".when(%s).then(%s)" % (_cond(rng), value())
    if rng.random() < 0.85:
        text += ".otherwise(%s)" % value()
    return text


# Atoms for compositions: boolean expressions of every kind, declining ones
# included (an AND may drop them; an OR or NOT must then decline).
def _atoms(cat):
    return [text for shape, texts in cat for text in texts if shape not in ("xor of integers (bitwise)",)]


def _compose(rng, atoms, depth, top=False):
    if depth == 0 or (not top and rng.random() < 0.3):
        return "(%s)" % rng.choice(atoms)
    k = rng.random()
    if k < 0.15:
        return "~%s" % _compose(rng, atoms, depth - 1)
    op = "&" if k < 0.6 else "|" if k < 0.9 else "^"
    return "(%s %s %s)" % (_compose(rng, atoms, depth - 1), op, _compose(rng, atoms, depth - 1))


def composed_shape(text):
    """The coverage-table shape of a composed expression: its top operator."""
    if text.startswith("~"):
        return "composed: NOT (...)"
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 1 and text[i:i + 3] in (" & ", " | ", " ^ "):
            return "composed: (...) %s (...)" % {"&": "AND", "|": "OR", "^": "XOR"}[text[i + 1]]
    return "composed: (...)"


def generate(n_composed=None, rng_seed=None):
    cat = catalogue()
    cases = [Case(shape, text) for shape, texts in cat for text in texts]
    rng = random.Random(seed() if rng_seed is None else rng_seed)
    seen = {case.text for case in cases}
    n_atoms = count() * N_RANDOM_ATOMS // DEFAULT_COUNT
    if n_composed is None:
        n_composed = count() - n_atoms
    for shape, text in random_atoms(rng, n_atoms):
        if text not in seen:
            seen.add(text)
            cases.append(Case(shape, text))
    atoms = _atoms(cat) + [case.text for case in cases if case.shape.startswith("random")]
    made = 0
    while made < n_composed:
        text = _compose(rng, atoms, 3, top=True)
        if text in seen:
            continue
        seen.add(text)
        cases.append(Case(composed_shape(text), text))
        made += 1
    return cases
