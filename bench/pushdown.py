#!/usr/bin/env python3
"""bench/pushdown: what predicate pushdown and scalar indices are worth, for
quiver and for the reference Lance pushdown (polars-pylance over pylance),
side by side on the same rows in the same run (issue 6).

    .venv/bin/python bench/pushdown.py --out build/bench-pushdown [--rows 2000000]

The dataset (seeded, built once per --rows under --work): `id` int64,
`val` float64 uniform in [0, 1), `cat` one of 8 values, `text` with the
rare substring "needle" in about 0.1% of rows, `ts` timestamps over 30
days, `payload` 256 bytes.  The same Arrow table is written as a Lance
dataset twice (plain, and with the reference's published indices: BTREE on
id and val, BITMAP on cat, NGRAM on text) and imported into quiver (with
the same indices when this quiver has `quiver index`).

Every measurement runs in its own process (so its peak RSS is its own),
--repeat times; the median time and the largest peak are reported:
  reference   pll.scan_lance(uri, predicate_pushdown=...).filter(e).select(...)
              .collect(engine="streaming")
  quiver-py   quiver.scan(path, predicate_pushdown=..., use_scalar_index=...)
              (when the quiver Python package is installed)
  quiver-cli  quiver scan DS --where 'e' --select ... --format stats
              [--no-pushdown]
for each query x pushdown on/off x indices on/off (indices off reads the
plain copy of the dataset, on the indexed copy, as the reference does).  Prints a table and the
quiver/reference ratios, writes results.json and one PNG chart per index
setting (matplotlib) to --out.  Absolute times drift on a shared machine;
the ratios measured in one run are what to quote.

DuckDB (issue 22; PyPI `duckdb`, pinned in requirements.txt) reads the same
Arrow table twice: loaded into a native table (duck.duckdb) and as a zstd
Parquet file DuckDB writes (table.parquet), each query in its own SQL
(DUCK_SQL).  It is measured two ways, with `SET threads` equal to quiver's
QUIVER_THREADS (--threads):
  fresh       a Python process per query, as quiver-py (PyPI has no duckdb
              command): connect, run, fetch the rows as an Arrow table (the
              count: its one value); the import is outside the time
  warm        one process, each query run --warm-runs times after one
              unmeasured run, median, in --warm-rounds interleaved rounds
              (median of the rounds; ratios per round, then their median);
              DuckDB's own time (its profiler's
              query total_time) and the wall time of sql().to_arrow_table(),
              against quiver's in-process scans of the plain dataset:
              bench_scan_warm (the C API; `--count` for the count) and
              quiver.Scanner in one Python process (Scanner.count() for
              the count), plus a whole Polars collect through quiver.scan
Rows (counts) must agree with quiver's: the run fails otherwise.  It prints
quiver/DuckDB for each query and setting, keeps them in results.json
(`duckdb_fresh`, `warm`) and charts the warm times (duckdb-warm.png).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# name -> (Polars expression text, projected columns; None = select(pl.len()))
QUERIES = {
    "selective": ('pl.col("val") > 0.999', ["id", "payload"]),
    "membership": ('pl.col("id").is_in(list(range(0, ROWS, ROWS // 200)))', ["id", "payload"]),
    "category": ('pl.col("cat") == "c3"', ["id", "payload"]),
    "substring": ('pl.col("text").str.contains("needle")', ["id", "payload"]),
    "hour": ('pl.col("ts").dt.hour() < 1', ["id", "payload"]),
    "count": ('pl.col("val") > 0.5', None),
}

PAYLOAD_BYTES = 256

# The same queries in DuckDB's own SQL; {src} is the native table or the
# Parquet file, {ids} the membership list.
DUCK_SQL = {
    "selective": "SELECT id, payload FROM {src} WHERE val > 0.999",
    "membership": "SELECT id, payload FROM {src} WHERE id IN ({ids})",
    "category": "SELECT id, payload FROM {src} WHERE cat = 'c3'",
    "substring": "SELECT id, payload FROM {src} WHERE contains(text, 'needle')",
    "hour": "SELECT id, payload FROM {src} WHERE hour(ts) < 1",
    "count": "SELECT count(*) FROM {src} WHERE val > 0.5",
}
DUCK_SYSTEMS = ("duckdb-native", "duckdb-parquet")


def filter_column(name: str) -> str:
    return QUERIES[name][0].split('"')[1]


def query_text(name: str, rows: int) -> str:
    """The query's Polars text with ROWS spelled out (the CLI reads literals)."""
    text = QUERIES[name][0]
    if "ROWS" in text:
        step = max(rows // 200, 1)
        ids = list(range(0, rows, step))[:200]
        text = 'pl.col("id").is_in([%s])' % ", ".join(map(str, ids))
    return text


def membership_ids(rows: int) -> list[int]:
    step = max(rows // 200, 1)
    return list(range(0, rows, step))[:200]


def duck_sql(name: str, rows: int, system: str, path: str) -> str:
    src = "t" if system == "duckdb-native" else "read_parquet('%s')" % path.replace("'", "''")
    return DUCK_SQL[name].format(src=src, ids=", ".join(map(str, membership_ids(rows))))


def duck_connect(system: str, path: str, threads: int):
    import duckdb

    con = duckdb.connect(path, read_only=True) if system == "duckdb-native" else duckdb.connect()
    con.execute(f"SET threads = {int(threads)}")
    return con


def duck_run(con, sql: str, count: bool) -> int:
    """Runs the query to its end: the rows as an Arrow table, or the count."""
    rel = con.sql(sql)
    return int(rel.fetchall()[0][0]) if count else rel.to_arrow_table().num_rows


def threads() -> int:
    return int(os.environ.get("QUIVER_THREADS") or os.cpu_count() or 1)


# ---- the dataset --------------------------------------------------------------------


def build_table(rows: int):
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(0)
    text = np.array([f"row {i} filler" for i in range(rows)], dtype=object)
    text[rng.choice(rows, max(rows // 1000, 1), replace=False)] += " needle"
    start = np.datetime64("2024-01-01T00:00:00", "us").astype(np.int64)
    ts = start + rng.integers(0, 30 * 86400 * 1_000_000, rows)
    payload = np.array([b"%0256d" % i for i in range(rows)], dtype=object)
    return pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "val": pa.array(rng.random(rows)),
            "cat": pa.array(rng.choice([f"c{i}" for i in range(8)], rows)),
            "text": pa.array(text.tolist(), pa.string()),
            "ts": pa.array(ts, pa.timestamp("us")),
            "payload": pa.array([p.decode() for p in payload], pa.string()),
        }
    )


def quiver_has_indices(quiver: str) -> bool:
    return subprocess.run([quiver, "index", "--help"], capture_output=True).returncode == 0


def build(work: Path, rows: int, quiver: str, rebuild: str | None = None) -> dict:
    """Writes the datasets once per row count (the Lance pair and the quiver
    pair each have their own marker); --rebuild quiver rewrites only quiver's,
    as after a change to its writer.  Returns their paths."""
    import shutil

    import pyarrow as pa
    import pyarrow.ipc as ipc

    base = work / f"rows-{rows}"
    paths = {
        "lance-plain": base / "plain.lance",
        "lance-indexed": base / "indexed.lance",
        "quiver-plain": base / "quiver-plain",
        "quiver-indexed": base / "quiver-indexed",
        "duckdb-native": base / "duck.duckdb",
        "duckdb-parquet": base / "table.parquet",
    }
    if rebuild == "all" and base.exists():
        shutil.rmtree(base)
    if (base / "done").exists():  # the single marker of earlier versions of this program
        (base / "done").rename(base / "lance.done")
        (base / "quiver.done").write_text("ok\n")
    lance_done, quiver_done, duck_done = base / "lance.done", base / "quiver.done", base / "duckdb.done"
    if rebuild == "quiver" and quiver_done.exists():
        quiver_done.unlink()
    try:
        import duckdb
    except ImportError:
        duckdb = None
    if lance_done.exists() and quiver_done.exists() and (duck_done.exists() or duckdb is None):
        return paths
    base.mkdir(parents=True, exist_ok=True)
    print(f"building {rows:,} rows under {base} ...", flush=True)
    table = build_table(rows)
    if not lance_done.exists():
        import lance

        for key in ("lance-plain", "lance-indexed"):
            shutil.rmtree(paths[key], ignore_errors=True)
        lance.write_dataset(table, str(paths["lance-plain"]), mode="overwrite")
        ds = lance.write_dataset(table, str(paths["lance-indexed"]), mode="overwrite")
        ds.create_scalar_index("id", "BTREE")
        ds.create_scalar_index("val", "BTREE")
        ds.create_scalar_index("cat", "BITMAP")
        ds.create_scalar_index("text", "NGRAM")
        lance_done.write_text("ok\n")
    if not quiver_done.exists():
        arrow = base / "table.arrow"
        with pa.OSFile(str(arrow), "wb") as f, ipc.new_file(f, table.schema) as w:
            for batch in table.to_batches(max_chunksize=65536):
                w.write_batch(batch)
        for key in ("quiver-plain", "quiver-indexed"):
            shutil.rmtree(paths[key], ignore_errors=True)
            subprocess.run([quiver, "import", "-q", str(arrow), str(paths[key])], check=True)
        if quiver_has_indices(quiver):
            for col, kind in (("id", "btree"), ("val", "btree"), ("cat", "bitmap"), ("text", "ngram")):
                subprocess.run(
                    [quiver, "index", "create", str(paths["quiver-indexed"]), "--column", col, "--type", kind],
                    check=True,
                )
        arrow.unlink()
        quiver_done.write_text("ok\n")
    if duckdb is not None and not duck_done.exists():
        for key in DUCK_SYSTEMS:
            paths[key].unlink(missing_ok=True)
        con = duckdb.connect(str(paths["duckdb-native"]))
        con.register("arrow_table", table)
        con.execute("CREATE TABLE t AS SELECT * FROM arrow_table")
        con.unregister("arrow_table")
        parquet = str(paths["duckdb-parquet"]).replace("'", "''")
        con.execute(f"COPY t TO '{parquet}' (FORMAT parquet, COMPRESSION zstd)")
        con.close()
        duck_done.write_text("ok\n")
    return paths


# ---- one measurement (a child process) -----------------------------------------------


def peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def duck_child(system: str, path: str, query: str, rows: int) -> dict:
    # Imports stay outside the timed part, as the others' do: pyarrow too,
    # which DuckDB's first to_arrow_table() would import (about 70 ms).
    import duckdb  # noqa: F401
    import pyarrow  # noqa: F401

    sql = duck_sql(query, rows, system, path)
    started = time.perf_counter()
    con = duck_connect(system, path, threads())
    n = duck_run(con, sql, QUERIES[query][1] is None)
    seconds = time.perf_counter() - started
    con.close()
    return {"seconds": seconds, "peak_mib": peak_mib(), "rows": n}


def child(system: str, path: str, query: str, rows: int, pushdown: bool, index: bool) -> dict:
    if system in DUCK_SYSTEMS:
        return duck_child(system, path, query, rows)
    import polars as pl

    expr = eval(query_text(query, rows), {"pl": pl})  # noqa: S307 - our own query texts
    cols = QUERIES[query][1]
    # Imports stay outside the timed part, as in the reference's own benchmark.
    if system == "reference":
        import lance  # noqa: F401
        import polars_pylance as pll
    else:
        import quiver
    started = time.perf_counter()
    if system == "reference":
        lf = pll.scan_lance(path, predicate_pushdown=pushdown)
    else:
        lf = quiver.scan(path, predicate_pushdown=pushdown, use_scalar_index=index)
    lf = lf.filter(expr)
    lf = lf.select(pl.len()) if cols is None else lf.select(*cols)
    frame = lf.collect(engine="streaming")
    seconds = time.perf_counter() - started
    n = frame.item() if cols is None else frame.height
    return {"seconds": seconds, "peak_mib": peak_mib(), "rows": int(n)}


def quiver_has_count(quiver: str) -> bool:
    return "--count" in subprocess.run([quiver, "scan", "--help"], capture_output=True, text=True).stdout


def run_cli(quiver: str, path: str, query: str, rows: int, pushdown: bool) -> dict:
    cols = QUERIES[query][1]
    args = [quiver, "scan", path, "--where", query_text(query, rows), "--format", "stats"]
    # select(pl.len()) projects nothing: `--count` (issue 22); a command
    # without it needs one column, so the filter's own (already decoded)
    # column stands in.
    if cols is None and quiver_has_count(quiver):
        args.append("--count")
    else:
        args += ["--select", ",".join(cols) if cols else filter_column(query)]
    if not pushdown:
        args.append("--no-pushdown")
    started = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()}")
    # One line: rows=N pages=... peak_rss_kib=K (the command's own VmHWM:
    # ru_maxrss would also count this Python process, which forked it).
    fields = dict(kv.split("=", 1) for kv in proc.stdout.split() if "=" in kv)
    return {"seconds": seconds, "peak_mib": int(fields["peak_rss_kib"]) / 1024, "rows": int(fields["rows"])}


def measure(opts, system: str, path: str, query: str, pushdown: bool, index: bool) -> dict:
    runs = []
    for _ in range(opts.repeat):
        if system == "quiver-cli":
            runs.append(run_cli(opts.quiver, path, query, opts.rows, pushdown))
            continue
        args = [sys.executable, __file__, "--child", system, path, query, str(opts.rows),
                "on" if pushdown else "off", "on" if index else "off"]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{system} {query}: {proc.stderr.strip()[-800:]}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows_seen = {r["rows"] for r in runs}
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "peak_mib": max(r["peak_mib"] for r in runs),
        "rows": runs[0]["rows"],
        "consistent": len(rows_seen) == 1,
    }


# ---- warm, in one process (issue 22) -------------------------------------------------


def warm_child(spec: dict) -> list[dict]:
    """One process: each query once unmeasured, then spec["runs"] times;
    medians in milliseconds."""
    out = []
    rows, runs = spec["rows"], spec["runs"]
    if spec["kind"] == "duckdb":
        import json as _json

        for system in DUCK_SYSTEMS:
            con = duck_connect(system, spec["paths"][system], threads())
            con.execute("PRAGMA enable_profiling = 'no_output'")
            for query in spec["queries"]:
                sql, count = duck_sql(query, rows, system, spec["paths"][system]), QUERIES[query][1] is None
                own, wall, n = [], [], duck_run(con, sql, count)
                for _ in range(runs):
                    t = time.perf_counter()
                    n = duck_run(con, sql, count)
                    wall.append((time.perf_counter() - t) * 1e3)
                    info = _json.loads(con.get_profiling_information(format="json"))
                    own.append(info["query"]["total_time"] * 1e3)
                out.append({"system": system, "query": query, "ms": statistics.median(own),
                            "wall_ms": statistics.median(wall), "rows": n})
            con.close()
        return out
    import polars as pl

    import quiver

    path = spec["paths"]["quiver-plain"]
    for query in spec["queries"]:
        expr = eval(query_text(query, rows), {"pl": pl})  # noqa: S307 - our own query texts
        js, cols = expr.meta.serialize(format="json"), QUERIES[query][1]

        def scanner_run() -> int:
            if cols is None:
                return quiver.Scanner(path, columns=[], polars_json=js).count()
            return sum(b.num_rows for b in quiver.Scanner(path, columns=cols, polars_json=js, exact_batches=False))

        def polars_run() -> int:
            lf = quiver.scan(path).filter(expr)
            frame = (lf.select(pl.len()) if cols is None else lf.select(*cols)).collect(engine="streaming")
            return int(frame.item()) if cols is None else frame.height

        for system, fn in (("quiver-py", scanner_run), ("quiver-polars", polars_run)):
            times, n = [], fn()
            for _ in range(runs):
                t = time.perf_counter()
                n = fn()
                times.append((time.perf_counter() - t) * 1e3)
            out.append({"system": system, "query": query, "ms": statistics.median(times), "rows": n})
    return out


def warm_c(opts, path: str, query: str) -> dict:
    """bench_scan_warm over the plain dataset: the C API in one process."""
    cols = QUERIES[query][1]
    args = [opts.scan_warm, path, "--where", query_text(query, opts.rows), "--runs", str(opts.warm_runs)]
    args += ["--count"] if cols is None else ["--select", ",".join(cols)]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()}")
    # "scan           median    7.600 ms  p25 ...  min ...  rows 1918"
    words = proc.stdout.split()
    return {"system": "quiver-c", "query": query, "ms": float(words[words.index("median") + 1]),
            "rows": int(words[words.index("rows") + 1])}


def run_warm(opts, paths: dict, queries: list[str]) -> list[dict]:
    """--warm-rounds rounds, each a DuckDB process, a quiver.Scanner process
    and bench_scan_warm (--warm-runs runs of each query each), so that a
    noisy stretch of the shared machine falls on every system alike; the
    median of the rounds' medians is reported, the rounds kept."""
    spec = {"rows": opts.rows, "runs": opts.warm_runs, "queries": queries,
            "paths": {k: str(v) for k, v in paths.items()}}
    have_c = os.path.exists(opts.scan_warm)
    if not have_c:
        print(f"!!! {opts.scan_warm} not found: quiver-c (warm, C API) is SKIPPED !!!")
    rounds: dict = {}
    for _ in range(opts.warm_rounds):
        got = []
        for kind in ("duckdb", "quiver"):
            proc = subprocess.run([sys.executable, __file__, "--warm-child", json.dumps(spec | {"kind": kind})],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"warm {kind}: {proc.stderr.strip()[-800:]}")
            got += json.loads(proc.stdout.strip().splitlines()[-1])
        if have_c:
            got += [warm_c(opts, str(paths["quiver-plain"]), q) for q in queries]
        for w in got:
            rounds.setdefault((w["system"], w["query"]), []).append(w)
    out = []
    for (system, query), ws in rounds.items():
        w = {"system": system, "query": query, "ms": statistics.median(x["ms"] for x in ws),
             "rounds_ms": [round(x["ms"], 3) for x in ws], "rows": ws[0]["rows"],
             "consistent": len({x["rows"] for x in ws}) == 1}
        if "wall_ms" in ws[0]:
            w["wall_ms"] = statistics.median(x["wall_ms"] for x in ws)
        out.append(w)
    return out


QUIVER_WARM = ("quiver-c", "quiver-py", "quiver-polars")


def report_duckdb(results: list[dict], warm: list[dict]) -> tuple[dict, list[str]]:
    """Prints quiver/DuckDB per query and setting; returns the ratios (for
    results.json) and the row-count mismatches."""
    ratios: dict = {"fresh": {}, "warm": {}}
    problems = []
    print("\nquiver / DuckDB, a fresh process per query (lower is better for quiver; pushdown on):")
    for r in results:
        if r["system"] not in ("quiver-py", "quiver-cli") or r["pushdown"] != "on":
            continue
        for duck in DUCK_SYSTEMS:
            d = [x for x in results if x["system"] == duck and x["query"] == r["query"]]
            if not d:
                continue
            ratio = r["seconds"] / d[0]["seconds"]
            r[f"ratio_to_{duck}"] = ratio
            r[f"rss_ratio_to_{duck}"] = r["peak_mib"] / d[0]["peak_mib"]
            ratios["fresh"][f"{r['query']} {r['system']} indices {r['index']} / {duck}"] = round(ratio, 3)
            print(f"  {r['query']:11s} {r['system']:11s} index {r['index']:3s} / {duck:14s} time x{ratio:.2f}  "
                  f"peak RSS x{r[f'rss_ratio_to_{duck}']:.2f}")
    if warm:
        print(f"\nwarm, in one process, {threads()} thread(s), median of the rounds' medians (ms; DuckDB: its own "
              "timing, wall time of sql().to_arrow_table() in brackets):")
        queries = list(dict.fromkeys(w["query"] for w in warm))
        systems = [s for s in DUCK_SYSTEMS + QUIVER_WARM if any(w["system"] == s for w in warm)]
        print("  " + f"{'query':11s}" + "".join(f"{s:>22s}" for s in systems))
        for q in queries:
            cells = []
            for sname in systems:
                w = [x for x in warm if x["system"] == sname and x["query"] == q]
                if not w:
                    cells.append(f"{'-':>22s}")
                elif "wall_ms" in w[0]:
                    cells.append(f"{w[0]['ms']:9.2f} [{w[0]['wall_ms']:8.2f}]".rjust(22))
                else:
                    cells.append(f"{w[0]['ms']:22.2f}")
            print(f"  {q:11s}" + "".join(cells))
            counts = {x["rows"] for x in warm if x["query"] == q}
            if len(counts) > 1 or not all(x["consistent"] for x in warm if x["query"] == q):
                problems.append(f"warm {q}: row counts differ: {sorted(counts)}")
        # Within a round the systems ran minutes apart at most, so the
        # ratio is taken per round (the load moves both alike) and its
        # median over the rounds reported, with the range.
        print("\n  quiver / DuckDB, warm (DuckDB's own timing; median of the rounds' ratios [lowest, highest]; "
              "lower is better for quiver):")
        for q in queries:
            for qs in QUIVER_WARM:
                for duck in DUCK_SYSTEMS:
                    a = [x for x in warm if x["system"] == qs and x["query"] == q]
                    b = [x for x in warm if x["system"] == duck and x["query"] == q]
                    if a and b:
                        per_round = [x / y for x, y in zip(a[0]["rounds_ms"], b[0]["rounds_ms"])]
                        ratio = statistics.median(per_round)
                        a[0][f"ratio_to_{duck}"] = ratio
                        a[0][f"ratio_to_{duck}_range"] = [round(min(per_round), 3), round(max(per_round), 3)]
                        ratios["warm"][f"{q} {qs} / {duck}"] = round(ratio, 3)
                        print(f"    {q:11s} {qs:13s} / {duck:14s} x{ratio:.2f} [{min(per_round):.2f}, "
                              f"{max(per_round):.2f}]")
    return ratios, problems


def plot_warm(warm: list[dict], out: Path, rows: int) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    queries = list(dict.fromkeys(w["query"] for w in warm))
    systems = [s for s in DUCK_SYSTEMS + QUIVER_WARM if any(w["system"] == s for w in warm)]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.8 / max(len(systems), 1)
    for k, sname in enumerate(systems):
        ys = []
        for q in queries:
            hit = [w for w in warm if w["system"] == sname and w["query"] == q]
            ys.append(hit[0]["ms"] if hit else 0.0)
        ax.bar([i + k * width for i in range(len(queries))], ys, width, label=sname)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(queries))])
    ax.set_xticklabels(queries)
    ax.set_ylabel("milliseconds (median), lower is better")
    ax.set_yscale("log")
    ax.set_title(f"warm, in one process, {threads()} thread(s): DuckDB vs quiver ({rows:,} rows)")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    path = out / "duckdb-warm.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


# ---- the whole run -------------------------------------------------------------------


def systems_available(quiver_cmd: str) -> list[str]:
    out = []
    try:
        import lance  # noqa: F401
        import polars_pylance  # noqa: F401

        out.append("reference")
    except ImportError as exc:
        print(f"!!! reference (polars-pylance) not importable: {exc}; its column is SKIPPED !!!")
    try:
        import quiver  # noqa: F401

        out.append("quiver-py")
    except ImportError as exc:
        print(f"!!! the quiver Python package is not importable: {exc}; quiver-py is SKIPPED !!!")
    if os.path.exists(quiver_cmd):
        out.append("quiver-cli")
    try:
        import duckdb  # noqa: F401

        out += list(DUCK_SYSTEMS)
    except ImportError as exc:
        print(f"!!! duckdb not importable: {exc}; the DuckDB columns are SKIPPED !!!")
    return out


def plot(results: list[dict], out: Path) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        print(f"!!! matplotlib not importable ({exc}): no charts !!!")
        return []
    written = []
    for index in ("off", "on"):
        rows = [r for r in results if r["index"] == index]
        if not rows:
            continue
        series = sorted({(r["system"], r["pushdown"]) for r in rows})
        queries = list(QUERIES)
        fig, ax = plt.subplots(figsize=(11, 4.8))
        width = 0.8 / max(len(series), 1)
        for k, (system, pushdown) in enumerate(series):
            ys = []
            for q in queries:
                hit = [r for r in rows if r["system"] == system and r["pushdown"] == pushdown and r["query"] == q]
                ys.append(hit[0]["seconds"] if hit else 0.0)
            xs = [i + k * width for i in range(len(queries))]
            ax.bar(xs, ys, width, label=f"{system}, pushdown {pushdown}")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(queries))])
        ax.set_xticklabels(queries)
        ax.set_ylabel("seconds (median), lower is better")
        ax.set_yscale("log")
        ax.set_title(f"predicate pushdown, indices {index} ({results[0]['rows_total']:,} rows)")
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        path = out / f"pushdown-index-{index}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def summarize_targets(results: list[dict]) -> dict:
    """Prints, and returns, the issue's targets as this run measured them:
    quiver's worst time and peak RSS against the reference's per system,
    pushdown on vs off on `selective`, NGRAM (substring, indices on) vs the
    unindexed scan, and the query that lost most with indices."""
    def get(system, query, pushdown, index):
        hit = [r for r in results if (r["system"], r["query"], r["pushdown"], r["index"]) == (system, query, pushdown, index)]
        return hit[0] if hit else None

    out: dict = {}
    print("\ntargets, as this run measured them:")
    for system in sorted({r["system"] for r in results} - set(DUCK_SYSTEMS)):
        on = [r for r in results if r["system"] == system and r["pushdown"] == "on"]
        if system != "reference" and on:
            worst = max(on, key=lambda r: r.get("ratio_to_reference", 0.0))
            rss = max(r.get("rss_ratio_to_reference", 0.0) for r in on)
            out[f"{system}: worst time / reference, pushdown on"] = round(worst.get("ratio_to_reference", 0.0), 3)
            print(f"  {system:11s} worst time / reference (pushdown on): x{worst.get('ratio_to_reference', 0.0):.2f} "
                  f"({worst['query']}, indices {worst['index']}; target <= 0.5); worst peak RSS x{rss:.2f} (target < 1)")
        for index in ("off", "on"):
            a, b = get(system, "selective", "on", index), get(system, "selective", "off", index)
            if a and b:
                out[f"{system}: pushdown on vs off, selective, indices {index}"] = round(b["seconds"] / a["seconds"], 2)
                print(f"  {system:11s} pushdown on vs off (selective, indices {index}): "
                      f"{b['seconds'] / a['seconds']:.1f}x (target >= 10x)")
        a, b = get(system, "substring", "on", "on"), get(system, "substring", "on", "off")
        if a and b:
            out[f"{system}: NGRAM vs unindexed, substring"] = round(b["seconds"] / a["seconds"], 2)
            print(f"  {system:11s} NGRAM vs the unindexed scan (substring): {b['seconds'] / a['seconds']:.1f}x (target >= 10x)")
        if system != "reference":
            # medians of --repeat runs: at a few ms, 10-20% apart is within
            # this machine's noise; rerun a query that stands out
            pairs = [(get(system, q, "on", "on")["seconds"] / get(system, q, "on", "off")["seconds"], q)
                     for q in sorted({r["query"] for r in results})
                     if get(system, q, "on", "on") and get(system, q, "on", "off")]
            if pairs:
                worst, q = max(pairs)
                out[f"{system}: worst time with indices / without"] = [round(worst, 2), q]
                print(f"  {system:11s} worst time with indices / without: x{worst:.2f} ({q}; target <= 1, "
                      f"beyond noise)")
    return out


def _duckdb_version() -> str | None:
    try:
        import duckdb

        return duckdb.__version__
    except ImportError:
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="folder for results.json and the PNG charts (required)")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median time)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/quiver-bench-pushdown"), help="dataset cache")
    ap.add_argument("--quiver", default=str(ROOT / "build" / "quiver"), help="the quiver command")
    ap.add_argument("--queries", default=",".join(QUERIES), help="comma-separated subset")
    ap.add_argument("--rebuild", choices=("quiver", "all"),
                    help="rewrite the cached datasets: quiver's only (after a change to its writer) or all")
    ap.add_argument("--threads", type=int, help="QUIVER_THREADS and DuckDB's threads (default: QUIVER_THREADS "
                    "or the CPUs)")
    ap.add_argument("--warm-runs", type=int, default=15, help="runs per warm measurement (median)")
    ap.add_argument("--warm-rounds", type=int, default=5, help="interleaved rounds of the warm measurements")
    ap.add_argument("--no-warm", action="store_true", help="skip the warm, in-process measurements")
    ap.add_argument("--systems", help="comma-separated subset of the fresh-process systems (reference, quiver-py, "
                    "quiver-cli, duckdb-native, duckdb-parquet)")
    ap.add_argument("--scan-warm", help="bench_scan_warm (default: bench/bench_scan_warm beside --quiver)")
    ap.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    ap.add_argument("--warm-child", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.warm_child:
        print(json.dumps(warm_child(json.loads(opts.warm_child))))
        return 0
    if opts.child:
        system, path, query, rows, pushdown, index = opts.child
        print(json.dumps(child(system, path, query, int(rows), pushdown == "on", index == "on")))
        return 0
    if opts.out is None:
        ap.error("--out FOLDER is required")

    if opts.threads:
        os.environ["QUIVER_THREADS"] = str(opts.threads)  # the children inherit it
    if not opts.scan_warm:
        opts.scan_warm = str(Path(opts.quiver).resolve().parent / "bench" / "bench_scan_warm")
    systems = systems_available(opts.quiver)
    if opts.systems:
        systems = [s for s in systems if s in opts.systems.split(",")]
    paths = build(opts.work, opts.rows, opts.quiver, opts.rebuild)
    quiver_indexed = quiver_has_indices(opts.quiver)
    results = []
    header = f"{'query':11s} {'system':11s} {'pushdown':8s} {'index':5s} {'seconds':>8s} {'peak MiB':>9s} {'rows':>10s}"
    print(header)
    for query in opts.queries.split(","):
        for index in (False, True):
            for system in systems:
                if system != "reference" and index and not quiver_indexed:
                    continue
                if system in DUCK_SYSTEMS and index:
                    continue  # no index of DuckDB's is built: it scans (with its zone maps)
                key = ("lance-" if system == "reference" else "quiver-") + ("indexed" if index else "plain")
                if system in DUCK_SYSTEMS:
                    key = system
                for pushdown in (True, False) if system not in DUCK_SYSTEMS else (True,):
                    r = measure(opts, system, str(paths[key]), query, pushdown, index)
                    r |= {"query": query, "system": system, "pushdown": "on" if pushdown else "off",
                          "index": "on" if index else "off", "rows_total": opts.rows}
                    results.append(r)
                    print(f"{query:11s} {system:11s} {r['pushdown']:8s} {r['index']:5s} {r['seconds']:8.3f} "
                          f"{r['peak_mib']:9.1f} {r['rows']:>10,}", flush=True)
    # Same rows everywhere, or the comparison means nothing.
    problems = []
    for query in opts.queries.split(","):
        counts = {r["rows"] for r in results if r["query"] == query}
        if len(counts) > 1:
            problems.append(f"{query}: row counts differ across systems/settings: {sorted(counts)}")
    print("\nquiver / reference time ratios (lower is better for quiver):")
    for r in results:
        if r["system"] == "reference" or r["system"] in DUCK_SYSTEMS:
            continue
        ref = [x for x in results if x["system"] == "reference" and x["query"] == r["query"]
               and x["pushdown"] == r["pushdown"] and x["index"] == r["index"]]
        if ref:
            r["ratio_to_reference"] = r["seconds"] / ref[0]["seconds"]
            r["rss_ratio_to_reference"] = r["peak_mib"] / ref[0]["peak_mib"]
            print(f"  {r['query']:11s} {r['system']:11s} pushdown {r['pushdown']:3s} index {r['index']:3s} "
                  f"time x{r['ratio_to_reference']:.2f}  peak RSS x{r['rss_ratio_to_reference']:.2f}")
    targets = summarize_targets(results)
    warm = []
    if not opts.no_warm and "duckdb-native" in systems_available(opts.quiver):
        warm = run_warm(opts, paths, opts.queries.split(","))
    duck_ratios, duck_problems = report_duckdb(results, warm)
    problems += duck_problems
    if warm:
        for q in opts.queries.split(","):
            fresh = {r["rows"] for r in results if r["query"] == q}
            warm_rows = {w["rows"] for w in warm if w["query"] == q}
            if fresh and warm_rows and fresh != warm_rows:
                problems.append(f"{q}: warm rows {sorted(warm_rows)} differ from the fresh runs' {sorted(fresh)}")
    opts.out.mkdir(parents=True, exist_ok=True)
    meta = {
        "rows": opts.rows, "repeat": opts.repeat, "machine": platform.node(), "cpus": os.cpu_count(),
        "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "quiver_indices": quiver_indexed, "problems": problems,
        "quiver_threads": os.environ.get("QUIVER_THREADS") or f"default ({os.cpu_count()} CPUs)",
        "threads": threads(), "warm_runs": opts.warm_runs, "load_average": os.getloadavg(),
        "duckdb": _duckdb_version(),
    }
    (opts.out / "results.json").write_text(
        json.dumps({"meta": meta, "targets": targets, "results": results, "warm": warm,
                    "duckdb_ratios": duck_ratios}, indent=1) + "\n")
    for p in plot(results, opts.out) + (plot_warm(warm, opts.out, opts.rows) if warm else []):
        print("wrote", p)
    print("wrote", opts.out / "results.json")
    for p in problems:
        print("!!! " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
