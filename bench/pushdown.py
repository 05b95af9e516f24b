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
    }
    if rebuild == "all" and base.exists():
        shutil.rmtree(base)
    if (base / "done").exists():  # the single marker of earlier versions of this program
        (base / "done").rename(base / "lance.done")
        (base / "quiver.done").write_text("ok\n")
    lance_done, quiver_done = base / "lance.done", base / "quiver.done"
    if rebuild == "quiver" and quiver_done.exists():
        quiver_done.unlink()
    if lance_done.exists() and quiver_done.exists():
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
    return paths


# ---- one measurement (a child process) -----------------------------------------------


def peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(system: str, path: str, query: str, rows: int, pushdown: bool, index: bool) -> dict:
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


def run_cli(quiver: str, path: str, query: str, rows: int, pushdown: bool) -> dict:
    cols = QUERIES[query][1]
    args = [quiver, "scan", path, "--where", query_text(query, rows), "--format", "stats"]
    # select(pl.len()) projects nothing; the command needs one column, so the
    # filter's own (already decoded) column stands in.
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
    for system in sorted({r["system"] for r in results}):
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
    ap.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        system, path, query, rows, pushdown, index = opts.child
        print(json.dumps(child(system, path, query, int(rows), pushdown == "on", index == "on")))
        return 0
    if opts.out is None:
        ap.error("--out FOLDER is required")

    systems = systems_available(opts.quiver)
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
                key = ("lance-" if system == "reference" else "quiver-") + ("indexed" if index else "plain")
                for pushdown in (True, False):
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
        if r["system"] == "reference":
            continue
        ref = [x for x in results if x["system"] == "reference" and x["query"] == r["query"]
               and x["pushdown"] == r["pushdown"] and x["index"] == r["index"]]
        if ref:
            r["ratio_to_reference"] = r["seconds"] / ref[0]["seconds"]
            r["rss_ratio_to_reference"] = r["peak_mib"] / ref[0]["peak_mib"]
            print(f"  {r['query']:11s} {r['system']:11s} pushdown {r['pushdown']:3s} index {r['index']:3s} "
                  f"time x{r['ratio_to_reference']:.2f}  peak RSS x{r['rss_ratio_to_reference']:.2f}")
    targets = summarize_targets(results)
    opts.out.mkdir(parents=True, exist_ok=True)
    meta = {
        "rows": opts.rows, "repeat": opts.repeat, "machine": platform.node(), "cpus": os.cpu_count(),
        "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "quiver_indices": quiver_indexed, "problems": problems,
        "quiver_threads": os.environ.get("QUIVER_THREADS") or f"default ({os.cpu_count()} CPUs)",
    }
    (opts.out / "results.json").write_text(
        json.dumps({"meta": meta, "targets": targets, "results": results}, indent=1) + "\n")
    for p in plot(results, opts.out):
        print("wrote", p)
    print("wrote", opts.out / "results.json")
    for p in problems:
        print("!!! " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
