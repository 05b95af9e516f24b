#!/usr/bin/env python3
"""Writes what the pinned Polars answers for the dt namespace over edge
values of every time unit (tests/data/polars_temporal/), for
tests/compute/test_polars_temporal.c, which holds quiver's block kernels
(src/compute/civil.c) to the same answers.

table.arrow   one column per unit (t_s, t_ms, t_us, t_ns), the same
              instants in UTC (u_s ... u_ns: tz-aware; Polars 2.1.0 takes no
              fixed-offset zone, so those are checked in C against an
              exact oracle), and a date column d.  Rows: every unit's
              boundaries around 0 (a unit, a second, a day either side),
              the first and last instant of each day around year and
              leap-day boundaries from year -9999 to 262,000 (1600, 1700,
              1900, 1969/1970, 2000, 2100, ...), the ends of the range
              Polars can print for the unit, nulls, then seeded random
              values over that range.  The block kernels work 512 rows at
              a time, so there are more than 512 rows (700).
expected.txt  one line per case: the Python text of the expression, TAB,
              then either quiver's spelling of the result type TAB the
              values (comma-separated; null; dates as days, datetimes as
              their integer value), or "error" TAB Polars' message.

Run with the project's venv after changing the cases or the pinned Polars:

    .venv/bin/python tests/expr/gen_polars_temporal.py
"""
import os
import random
import sys
from datetime import date

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "polars_temporal")

UNITS = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}
DAY = 86400
# Years whose edges are tested (Polars goes through chrono: years up to
# +-262,143; ns timestamps span 1677-2262 only).
YEARS = [-9999, -4713, -1, 0, 1, 4, 99, 100, 400, 1582, 1600, 1677, 1678, 1699, 1700, 1800, 1899, 1900, 1901,
         1968, 1969, 1970, 1971, 1999, 2000, 2001, 2004, 2023, 2024, 2100, 2261, 2262, 2400, 9999, 10000, 99999,
         262000]


def days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def instants(per):
    """Values of one unit: edges, then random ones within Polars' range."""
    lo, hi = (-(2 ** 63), 2 ** 63 - 1) if per == 10 ** 9 else (
        days_from_civil(-262000, 1, 1) * DAY * per, days_from_civil(262000, 1, 1) * DAY * per)
    vals = [0, -1, 1, per - 1, per, -per, -per - 1, DAY * per - 1, DAY * per, -DAY * per, -DAY * per - 1,
            -DAY * per + 1, 3600 * per - 1, -3600 * per]
    for y in YEARS:
        for m, d in ((1, 1), (2, 28), (2, 29), (3, 1), (12, 31), (6, 15)):
            if m == 2 and d == 29 and not (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)):
                continue
            day0 = days_from_civil(y, m, d) * DAY * per
            for v in (day0, day0 - 1, day0 + DAY * per - 1, day0 + 13 * 3600 * per + 61 * per + per // 3):
                if lo <= v <= hi:
                    vals.append(v)
    if per == 10 ** 9:
        vals += [lo, lo + 1, hi, hi - 1]
    vals.append(None)
    r = random.Random(2026 + per)
    while len(vals) < 700:
        vals.append(r.randint(lo, hi) if r.random() < 0.5 else r.randint(-(4 * 10 ** 9) * per, 4 * 10 ** 9 * per))
        if len(vals) % 97 == 0:
            vals.append(None)
    return vals[:700]


def table():
    cols = {}
    for u, per in UNITS.items():
        vals = instants(per)
        cols[f"t_{u}"] = pa.array(vals, pa.timestamp(u))
        cols[f"u_{u}"] = pa.array(vals, pa.timestamp(u, "UTC"))
    # Polars' ns truncation wraps around silently past the ends of int64
    # (quiver reports the overflow), so it is compared on values far enough
    # inside them for a 10-year step
    lo, hi = days_from_civil(1680, 6, 1) * DAY * 10 ** 9, days_from_civil(2261, 11, 1) * DAY * 10 ** 9
    inner = [None if v is None else min(max(v, lo), hi) for v in instants(10 ** 9)]
    cols["k_ns"] = pa.array(inner, pa.timestamp("ns"))
    cols["ku_ns"] = pa.array(inner, pa.timestamp("ns", "UTC"))
    r = random.Random(7)
    lo, hi = days_from_civil(-262000, 1, 1), days_from_civil(262000, 1, 1)
    dates = [0, -1, 1, -719468, -719469]
    for y in YEARS:
        for m, d in ((1, 1), (2, 28), (3, 1), (12, 31)):
            dates.append(days_from_civil(y, m, d))
    while len(dates) < 700:
        dates.append(r.randint(lo, hi) if r.random() < 0.5 else r.randint(-200000, 200000))
    dates[40] = None
    cols["d"] = pa.array(dates, pa.int32()).cast(pa.date32())
    return pa.table(cols)


PARTS = ["year", "quarter", "month", "day", "weekday", "ordinal_day", "week"]
TIME_PARTS = ["hour", "minute", "second", "millisecond", "microsecond", "nanosecond"]
EVERY = ["1d", "1h", "15m", "1s", "7d", "1w", "1mo", "3mo", "1y", "2y", "1q", "10y"]


def cases():
    out = []
    for c in [f"{k}_{u}" for k in ("t", "u") for u in UNITS] + ["d"]:
        parts = PARTS + ([] if c == "d" else TIME_PARTS)
        for p in parts:
            out.append(f'pl.col("{c}").dt.{p}()')
        out.append(f'pl.col("{c}").dt.date()')
        for e in EVERY:
            if c == "d" and e in ("1h", "15m", "1s"):
                continue
            k = {"t_ns": "k_ns", "u_ns": "ku_ns"}.get(c, c)
            out.append(f'pl.col("{k}").dt.truncate("{e}")')
    return out


def type_text(dt):
    simple = {pl.Int8: "int8", pl.Int16: "int16", pl.Int32: "int32", pl.Int64: "int64", pl.Date: "date32"}
    for k, v in simple.items():
        if dt == k:
            return v
    if isinstance(dt, pl.Datetime):
        return f"timestamp[{dt.time_unit}, {dt.time_zone}]" if dt.time_zone else f"timestamp[{dt.time_unit}]"
    raise TypeError(f"unexpected type {dt}")


def main():
    os.makedirs(OUT, exist_ok=True)
    t = table()
    with ipc.new_file(os.path.join(OUT, "table.arrow"), t.schema) as w:
        w.write_table(t)
    df = pl.from_arrow(t)
    lines = [f"# Polars {pl.__version__}, written by tests/expr/gen_polars_temporal.py"]
    for text in cases():
        try:
            r = df.select(eval(text).alias("r"))["r"]
        except BaseException as ex:  # Polars refuses (or panics: out of chrono's range)
            lines.append(f"{text}\terror\t{str(ex).splitlines()[0] if str(ex) else type(ex).__name__}")
            continue
        if r.dtype == pl.Date:
            vals = r.cast(pl.Int32).to_list()
        elif isinstance(r.dtype, pl.Datetime):
            vals = r.cast(pl.Int64).to_list()
        else:
            vals = r.to_list()
        tt = type_text(r.dtype)
        if '"t_s"' in text or '"u_s"' in text:
            # Polars has no seconds unit (from_arrow reads timestamp[s] as
            # ms); quiver keeps seconds, so truncations come back in seconds
            if isinstance(r.dtype, pl.Datetime):
                assert all(v is None or v % 1000 == 0 for v in vals), text
                vals = [None if v is None else v // 1000 for v in vals]
                tt = tt.replace("[ms", "[s")
        lines.append(f"{text}\t{tt}\t" + ",".join("null" if v is None else str(v) for v in vals))
    with open(os.path.join(OUT, "expected.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} cases, Polars {pl.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
