# Generates the Polars JSON fixtures of the BigQuery golden tests with the pinned Polars:
#   .venv/bin/python tests/data/pushdown/bigquery_json/generate.py tests/data/pushdown/bigquery_json
import datetime as dt, io, pathlib, sys
import polars as pl
out = pathlib.Path(sys.argv[1])
cases = {
    "when_multi_predicate": pl.when(pl.col("a") > 1, pl.col("b") < 5).then(pl.col("flag")).otherwise(pl.col("ok")),
    # A Series argument arrives as {"Literal": {"Series": ...}}, which quiver's JSON reader does not read yet.
    "is_in_series_int": pl.col("a").is_in(pl.Series([3, 1, 2], dtype=pl.Int32)),
    # Typed lists arrive as {"Literal": {"Scalar": {"List": <Arrow IPC bytes>}}}.
    "is_in_list_int32": pl.col("a").is_in(pl.lit([3, 1, 2], dtype=pl.List(pl.Int32))),
    "is_in_list_tz_ns": pl.col("tz").is_in(pl.lit([dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc), dt.datetime(2024, 1, 3, 4, 5, 6, 7000, tzinfo=dt.timezone.utc)], dtype=pl.List(pl.Datetime("ns", "UTC")))),
    "is_in_list_naive_ms": pl.col("ts").is_in(pl.lit([dt.datetime(2024, 1, 2), dt.datetime(1969, 12, 31, 23, 59, 59, 999000)], dtype=pl.List(pl.Datetime("ms")))),
    "is_in_list_null": pl.col("a").is_in(pl.lit([1, None], dtype=pl.List(pl.Int64))),
    "is_in_list_dates": pl.col("d").is_in(pl.lit([dt.date(1, 1, 1), dt.date(9999, 12, 31)], dtype=pl.List(pl.Date))),
    "is_in_list_uint64_big": pl.col("a").is_in(pl.lit([1, 2**63], dtype=pl.List(pl.UInt64))),
    "lit_datetime_berlin": pl.col("tz") > pl.lit(dt.datetime(2024, 6, 1, 12), dtype=pl.Datetime("us", "Europe/Berlin")),
}
for name, e in cases.items():
    (out / f"{name}.json").write_text(e.meta.serialize(format="json"))
print(pl.__version__)
