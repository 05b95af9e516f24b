#!/usr/bin/env python3
"""Writes the Polars fixtures the C tests read (tests/data/polars/).

For every case below, the real Polars evaluates the text as Python and
serializes the expression with Expr.meta.serialize(format="json"); the JSON
goes to <name>.json, and cases.txt lists name, mode and text, one a line:

    both   the C test parses the text (qv_polars_parse) and the JSON
           (qv_polars_from_json) and requires the same tree;
    json   only the JSON is read (constructs the text front end refuses or
           that print as unknown<...>: aliases, aggregations, NaN literals).

POLARS_VERSION records the Polars that wrote them.  Run with the project's
venv after changing the cases or the pinned Polars:

    .venv/bin/python tests/expr/gen_polars_fixtures.py

The C tests never need Python: the output is committed.
"""
import math  # noqa: F401  (used by the evaluated texts)
import os
import sys
from datetime import date, datetime, time, timedelta  # noqa: F401
from decimal import Decimal  # noqa: F401

import polars as pl

CASES = [
    # comparisons, logic, arithmetic
    ("gt_float", "both", 'pl.col("val") > 0.999'),
    ("issue_example", "both", 'pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2])'),
    ("slice_eq", "both", 'pl.col("text").str.slice(0, 2) == "xy"'),
    ("partial", "both", '(pl.col("id") > 5) & (pl.col("text").str.slice(0, 2) == "xy")'),
    ("cmp_all", "both", '(pl.col("a") == 1) | (pl.col("a") != 2) | (pl.col("a") < 3) | (pl.col("a") <= 4) | (pl.col("a") >= 5)'),
    ("xor_not", "both", '~(pl.col("b") ^ pl.col("c"))'),
    ("arith", "both", '(pl.col("a") + 1 - 2) * 3 / 4 // 5 % 6'),
    ("pow", "both", 'pl.col("a") ** 2 > 10'),
    ("pow_method", "both", 'pl.col("a").pow(0.5)'),
    ("when_predicates", "both", 'pl.when(pl.col("a") > 1, pl.col("b")).then(1).when(pl.col("c"), pl.col("d") < 2, pl.col("e")).then(2).otherwise(0) == 1'),
    ("cast_wrap_cmp", "both", 'pl.col("a").cast(pl.Int8, wrap_numerical=True) > 0'),
    ("is_between", "both", 'pl.col("a").is_between(1, 5)'),
    ("is_between_closed", "both", 'pl.col("a").is_between(pl.col("b"), 5.5, closed="left") | pl.col("a").is_between(0, 1, closed="right") | pl.col("a").is_between(0, 1, closed="none")'),
    ("logic_methods", "both", '(pl.col("a") > 0).xor(pl.col("b")).and_(pl.col("c")).or_(pl.col("d"))'),
    ("arith_methods", "both", 'pl.col("a").add(1).sub(2).mul(3).truediv(4).floordiv(5).mod(6) > 0'),
    ("neg_col", "both", '-pl.col("a") < -1'),
    ("neg_float", "both", 'pl.col("a") > -2.5e-3'),
    ("reflected_cmp", "both", '1 < pl.col("a")'),
    ("reflected_sub", "both", '10 - pl.col("a")'),
    ("reflected_eq", "both", '"x" == pl.col("s")'),
    ("precedence", "both", 'pl.col("a") > 1 & pl.col("b")'),
    ("str_cmp", "both", 'pl.col("s") >= "abc"'),
    ("bool_cmp", "both", 'pl.col("flag") == True'),
    ("none_cmp", "both", 'pl.col("a") == None'),
    ("big_int", "both", 'pl.col("u") == 18446744073709551615'),
    ("huge_int", "both", 'pl.col("a") == 1180591620717411303424'),
    ("min_int", "both", 'pl.col("a") > -9223372036854775808'),
    ("underscore_int", "both", 'pl.col("a") < 1_000_000'),
    ("neg_zero", "both", 'pl.col("f") == -0.0'),
    ("method_cmp", "both", 'pl.col("a").eq(1) & pl.col("a").ne(2) & pl.col("a").lt(3) & pl.col("a").le(4) & pl.col("a").gt(0) & pl.col("a").ge(0)'),
    # literals
    ("lit_date", "both", 'pl.col("d") >= pl.lit(date(2024, 1, 2))'),
    ("date_bare", "both", 'pl.col("d") < date(1969, 12, 31)'),
    ("lit_datetime", "both", 'pl.col("ts") < pl.lit(datetime(2024, 1, 2, 3, 4, 5, 6))'),
    ("lit_datetime_ms_utc", "both", 'pl.col("tz") < pl.lit(datetime(2024, 1, 2, 3, 4, 5), dtype=pl.Datetime("ms", "UTC"))'),
    ("lit_datetime_kw", "both", 'pl.col("tn") < pl.lit(datetime(2024, 1, 2), dtype=pl.Datetime(time_unit="ns"))'),
    # pl.date / pl.datetime of integers: literal expressions (aliased in the JSON)
    ("pl_date", "both", 'pl.col("d") > pl.date(2022, 1, 1)'),
    ("pl_date_left", "both", 'pl.date(1969, 12, 31) <= pl.col("d")'),
    ("pl_date_kw", "both", 'pl.col("d").is_between(pl.date(year=1, month=1, day=1), pl.date(9999, 12, 31))'),
    ("pl_datetime", "both", 'pl.col("ts") >= pl.datetime(2022, 1, 1, 12)'),
    ("pl_datetime_full", "both", 'pl.col("ts") < pl.datetime(1969, 12, 31, 23, 59, 59, 999999)'),
    ("pl_datetime_units", "both", '(pl.col("tn") < pl.datetime(2024, 1, 2, 3, minute=4, time_unit="ns")) | (pl.col("tm") > pl.datetime(2024, 1, 2, 3, 4, 5, 6000, time_unit="ms"))'),
    ("lit_timedelta", "both", 'pl.col("du") > pl.lit(timedelta(days=1, seconds=2, microseconds=3))'),
    ("lit_timedelta_ms", "both", 'pl.col("du") > pl.lit(timedelta(hours=1), dtype=pl.Duration("ms"))'),
    ("lit_time", "both", 'pl.col("tm") > pl.lit(time(1, 2, 3))'),
    ("lit_decimal", "both", 'pl.col("dec") > pl.lit(Decimal("1.25"))'),
    ("lit_decimal_neg", "both", 'pl.col("dec") > Decimal("-0.50")'),
    ("lit_decimal_dtype", "both", 'pl.col("dec") > pl.lit(3, dtype=pl.Decimal(10, 2))'),
    ("lit_int32", "both", 'pl.col("a") == pl.lit(5, dtype=pl.Int32)'),
    ("lit_int8_neg", "both", 'pl.col("a") == pl.lit(-128, dtype=pl.Int8)'),
    ("lit_uint64", "both", 'pl.col("u") == pl.lit(7, dtype=pl.UInt64)'),
    ("lit_float32", "both", 'pl.col("g") == pl.lit(1.1, dtype=pl.Float32)'),
    ("lit_float64_int", "both", 'pl.col("f") == pl.lit(1, dtype=pl.Float64)'),
    ("lit_null_typed", "both", 'pl.col("a") == pl.lit(None, dtype=pl.Int32)'),
    ("lit_plain", "both", 'pl.lit(5) + pl.lit(1.5) + pl.lit("x")'),
    ("lit_bool", "both", 'pl.lit(True) & pl.col("flag")'),
    ("lit_bytes", "both", 'pl.col("x") == b"ab\\x00"'),
    ("lit_list", "both", 'pl.lit([1, 2, None])'),
    ("lit_str_escape", "both", 'pl.col("s") == "it\'s \\u00e9\\n"'),
    ("lit_unicode", "both", 'pl.col("s").str.starts_with("日本")'),
    # is_in
    ("is_in_str", "both", 'pl.col("s").is_in(["a", "b", None])'),
    ("is_in_nulls_equal", "both", 'pl.col("a").is_in([1, None], nulls_equal=True)'),
    ("is_in_float_mix", "both", 'pl.col("f").is_in([1.0, 2.5, None])'),
    ("is_in_dates", "both", 'pl.col("d").is_in([date(2024, 1, 1), date(2024, 2, 29)])'),
    ("is_in_empty", "both", 'pl.col("a").is_in([])'),
    ("is_in_tuple", "both", 'pl.col("a").is_in((1, 2,))'),
    ("is_in_bool", "both", 'pl.col("flag").is_in([True])'),
    ("is_in_column", "both", 'pl.col("a").is_in(pl.col("l"))'),
    # casts
    ("cast_int32", "both", 'pl.col("a").cast(pl.Int32) > 1'),
    ("cast_nonstrict", "both", 'pl.col("s").cast(pl.Int64, strict=False).is_null()'),
    ("cast_datetime", "both", 'pl.col("a").cast(pl.Datetime("ms", "UTC"))'),
    ("cast_decimal", "both", 'pl.col("a").cast(pl.Decimal(10, 2))'),
    ("cast_list", "both", 'pl.col("l").cast(pl.List(pl.Int64))'),
    ("cast_misc", "both", 'pl.col("a").cast(pl.Utf8).cast(pl.Float32).cast(pl.Boolean).cast(pl.Date).cast(pl.UInt8)'),
    ("cast_categorical", "both", 'pl.col("s").cast(pl.Categorical)'),
    ("cast_wrap", "both", 'pl.col("a").cast(pl.Int8, wrap_numerical=True)'),
    # null / nan family
    ("nan_family", "both", 'pl.col("f").is_nan() | pl.col("f").is_not_nan() | pl.col("f").is_finite() | pl.col("f").is_infinite()'),
    ("null_family", "both", 'pl.col("a").is_null() & pl.col("b").is_not_null()'),
    ("eq_missing", "both", 'pl.col("a").eq_missing(1) | pl.col("a").ne_missing(pl.col("b"))'),
    ("fill_null_value", "both", 'pl.col("a").fill_null(0) > 1'),
    ("fill_null_str", "both", 'pl.col("s").fill_null("x") == "x"'),
    ("fill_null_col", "both", 'pl.col("a").fill_null(pl.col("b"))'),
    ("fill_null_forward", "both", 'pl.col("a").fill_null(strategy="forward")'),
    ("fill_null_backward_limit", "both", 'pl.col("a").fill_null(strategy="backward", limit=2)'),
    ("fill_null_zero", "both", 'pl.col("a").fill_null(strategy="zero") + pl.col("a").fill_null(strategy="mean")'),
    ("drop_nulls", "both", 'pl.col("a").drop_nulls()'),
    # math
    ("round", "both", 'pl.col("f").round(2) == 1.23'),
    ("round_default", "both", 'pl.col("f").round()'),
    ("round_mode", "both", 'pl.col("f").round(1, mode="half_away_from_zero")'),
    ("abs", "both", 'pl.col("a").abs() < 3'),
    ("sqrt_family", "both", 'pl.col("f").sqrt() + pl.col("f").log10() + pl.col("f").log() + pl.col("f").cbrt()'),
    ("log_base", "both", 'pl.col("f").log(2) + pl.col("f").log(10)'),
    ("log_math_e", "both", 'pl.col("f").log(math.e)'),
    # strings
    ("str_family", "both", 'pl.col("s").str.ends_with("x") & pl.col("s").str.contains("a.", literal=True) & pl.col("s").str.contains("^a+$")'),
    ("str_contains_lenient", "both", 'pl.col("s").str.contains("(", strict=False)'),
    ("str_case", "both", '(pl.col("s").str.to_lowercase() == "a") | (pl.col("s").str.to_uppercase() == "B") | (pl.col("s").str.to_titlecase() == "C")'),
    ("str_len", "both", '(pl.col("s").str.len_chars() > 2) & (pl.col("s").str.len_bytes() < 9)'),
    ("str_slice_open", "both", 'pl.col("s").str.slice(1)'),
    ("str_slice_neg", "both", 'pl.col("s").str.slice(-3, length=2)'),
    ("str_strip", "both", 'pl.col("s").str.strip_chars() == pl.col("s").str.strip_chars("x ")'),
    ("str_replace", "both", 'pl.col("s").str.replace("a", "b", literal=True) + pl.col("s").str.replace("a+", "b", n=2)'),
    ("str_replace_all", "both", 'pl.col("s").str.replace_all("a", "b")'),
    ("str_contains_any", "both", 'pl.col("s").str.contains_any(["ab", "cd"], ascii_case_insensitive=True)'),
    ("str_starts_col", "both", 'pl.col("s").str.starts_with(pl.col("t"))'),
    ("concat_str", "both", 'pl.concat_str([pl.col("a"), pl.col("b")], separator="-") == "1-2"'),
    ("concat_str_args", "both", 'pl.concat_str("a", pl.lit("x"), ignore_nulls=True)'),
    # temporal
    ("dt_parts", "both", 'pl.col("ts").dt.year() + pl.col("ts").dt.month() + pl.col("ts").dt.day() + pl.col("ts").dt.hour() + pl.col("ts").dt.minute() + pl.col("ts").dt.second()'),
    ("dt_weekday", "both", '(pl.col("d").dt.weekday() == 7) | (pl.col("d").dt.ordinal_day() > 100)'),
    ("dt_epoch", "both", 'pl.col("ts").dt.epoch() > 0'),
    ("dt_epoch_units", "both", 'pl.col("ts").dt.epoch("ms") + pl.col("ts").dt.epoch("ns") + pl.col("ts").dt.epoch("s") + pl.col("ts").dt.epoch(time_unit="d")'),
    ("dt_truncate", "both", 'pl.col("ts").dt.truncate("1d") == pl.col("ts").dt.truncate("2h")'),
    ("dt_date", "both", 'pl.col("ts").dt.date() == date(2024, 1, 1)'),
    # lists and structs
    ("list_family", "both", 'pl.col("l").list.contains(1) & (pl.col("l").list.len() > 1) & (pl.col("l").list.get(0, null_on_oob=True) > 1)'),
    ("list_get_strict", "both", 'pl.col("l").list.get(-1) == 3'),
    ("list_contains_ne", "both", 'pl.col("l").list.contains(None, nulls_equal=False)'),
    ("struct_field", "both", 'pl.col("st").struct.field("x") > 1'),
    # when/then, horizontal
    ("when_chain", "both", 'pl.when(pl.col("a") > 1).then(1).when(pl.col("a") > 0).then(2).otherwise(3) == 2'),
    ("when_no_otherwise", "both", 'pl.when(pl.col("a") > 1).then(pl.lit("big")).is_null()'),
    ("when_str_cols", "both", 'pl.when("flag").then("a").otherwise("b")'),
    ("when_nested", "both", 'pl.when(pl.col("a") > 1).then(1).otherwise(pl.when(pl.col("b") > 1).then(2).otherwise(3))'),
    ("all_horizontal", "both", 'pl.all_horizontal(pl.col("a") > 1, pl.col("flag"), "c")'),
    ("any_horizontal_list", "both", 'pl.any_horizontal([pl.col("a") > 1, pl.col("flag")])'),
    ("all_horizontal_one", "both", 'pl.all_horizontal(pl.col("flag"))'),
    ("min_max_horizontal", "both", 'pl.min_horizontal("a", "b") < pl.max_horizontal(pl.col("a"), 1)'),
    ("coalesce", "both", 'pl.coalesce("a", pl.col("b"), 0) > 0'),
    # unknown to quiver: kept, untranslatable
    ("alias", "both", 'pl.col("a").alias("b")'),
    ("json_sum", "json", 'pl.col("a").sum()'),
    ("json_nan", "json", 'pl.col("f") == float("nan")'),
    ("json_over", "json", '(pl.col("a") > pl.col("a").mean().over("g"))'),
    ("json_str_to_date", "json", 'pl.col("s").str.to_date("%Y-%m-%d") > date(2024, 1, 1)'),
    ("json_select_fields", "json", 'pl.col("st").struct.field("x", "y")'),
    ("json_list_lit_nested", "json", 'pl.col("a").is_in([[1], [2]])'),
    ("json_int128", "json", 'pl.col("a") == 2**100'),
    ("json_pl_date_col", "json", 'pl.date(pl.col("y"), 1, 1) < pl.col("d")'),
    ("json_pl_datetime_tz", "json", 'pl.col("t") < pl.datetime(2024, 1, 1, time_zone="UTC")'),
    ("json_pl_date_alias", "json", 'pl.date(2022, 1, 1).alias("x") == pl.col("d")'),
]


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "polars")
    out_dir = os.path.normpath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    names = set()
    lines = [
        "# Generated by tests/expr/gen_polars_fixtures.py with Polars %s: name<TAB>mode<TAB>text" % pl.__version__,
    ]
    for name, mode, text in CASES:
        assert name not in names, name
        assert "\t" not in text and "\n" not in text, name
        names.add(name)
        expr = eval(text)  # the texts above are this file's own
        js = expr.meta.serialize(format="json")
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
            f.write(js)
        lines.append("%s\t%s\t%s" % (name, mode, text))
    with open(os.path.join(out_dir, "cases.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out_dir, "POLARS_VERSION"), "w", encoding="utf-8") as f:
        f.write(pl.__version__ + "\n")
    print("wrote %d fixtures for Polars %s to %s" % (len(CASES), pl.__version__, out_dir), file=sys.stderr)


if __name__ == "__main__":
    main()
