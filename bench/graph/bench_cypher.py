#!/usr/bin/env python3
"""Cypher query times: quiver (CSR hops, and use_csr=False's hash joins) against Kuzu (and lance-graph).

    bench/graph/bench_cypher.py [--persons 100000] [--runs 3] [--engines quiver-csr,quiver-hash,kuzu,lance-graph]
                                [--datasets social,ldbc,snb] [--snb-queries IS1,...] [--work DIR]
                                [--json OUT.json] [--png OUT-PREFIX]

Two graphs: bench/graph/gen_social.py's generated social graph (--persons,
about 24 KNOWS per person) and LDBC SNB SF0.1's Person/knows (plus the rest
of gen_social.LDBC_*, read in place from ../shared/ldbc-sf01 or $QV_LDBC_DIR).
Both are loaded once into --work (reused when there; default a folder under
$TMPDIR) for every engine from the same CSV files.

Five queries (QUERIES below) on "social" and "ldbc", each written once in
openCypher; Kuzu gets the same text except where its dialect differs (said
per query).  "snb" is the LDBC graph again with the LDBC SNB Interactive
queries of bench/graph/ldbc/ (IS1, IS3, IS5, IS6, IC1, IC13; Kuzu's text
from NAME.kuzu.cypher where it has one): one run executes the query once
per parameter set of its file, and its time is the run's time divided by
the number of sets (the mean time of one execution); the rows of every
set are compared with Kuzu's by cypher_compare (as the peer test does).  Every
measurement (engine x dataset x query) runs in its own process: it opens
the graph, runs the query --runs times and reports each time and its rows;
the parent takes the median, the child's peak RSS (ru_maxrss from wait4:
opening the graph included) and checks that every engine returned the same
rows.  Prints a table with quiver/Kuzu per query; writes --json and, with
--png, one chart per dataset (time and peak RSS per query and engine).

quiver is reached through its Python package (quiver.Graph(path).cypher
(query, use_csr=...)): run with PYTHONPATH=BUILD/python and QUIVER=BUILD/quiver
(a Release build for numbers worth quoting).  While the package has no
Cypher engine the quiver measurements record its error and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cypher_compare  # noqa: E402
import gen_social  # noqa: E402
import ldbc_queries  # noqa: E402

ENGINES = ["quiver-csr", "quiver-hash", "kuzu", "lance-graph"]
DATASETS = ["social", "ldbc", "snb"]

# name -> {dataset: (openCypher text, Kuzu text or None for the same)}.  Kuzu's
# variable-length hops are walks unless TRAIL is said, openCypher's trails; the
# DISTINCT endpoints within 1..3 hops other than the start are the same either
# way (a shortest walk to another node is a path), so Kuzu keeps its default
# there.  The start itself differs (an undirected walk goes out and back over
# one edge, a trail cannot), hence `b <> a`.
QUERIES = {
    "two_hop_paths": {
        "social": ("MATCH (a:Person)-[:KNOWS]->(:Person)-[:KNOWS]->(c:Person) RETURN count(*) AS paths", None),
        "ldbc": ("MATCH (a:Person)-[:knows]-(:Person)-[:knows]-(c:Person) WHERE a <> c RETURN count(*) AS paths",
                 None),
    },
    "filtered_two_hop": {
        "social": ("MATCH (a:Person)-[k1:KNOWS]->(:Person)-[k2:KNOWS]->(c:Person) "
                   "WHERE a.age > 50 AND k1.since > 2015 AND k2.since > 2015 RETURN count(*) AS paths", None),
        "ldbc": ("MATCH (a:Person)-[k1:knows]-(:Person)-[k2:knows]-(c:Person) WHERE a <> c "
                 "AND a.birthday < 19850101 AND k1.creationDate > 20110101000000000 "
                 "AND k2.creationDate > 20110101000000000 RETURN count(*) AS paths", None),
    },
    "reach_1_3_distinct": {
        "social": ("MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(b:Person) WHERE b <> a "
                   "RETURN count(DISTINCT b) AS reach", None),
        "ldbc": ("MATCH (a:Person {id: 933})-[:knows*1..3]-(b:Person) WHERE b <> a "
                 "RETURN count(DISTINCT b) AS reach", None),
    },
    "fof_not_friends": {
        "social": ("MATCH (a:Person)-[:KNOWS]->(:Person)-[:KNOWS]->(c:Person) "
                   "WHERE a.id < 1000 AND a <> c AND NOT (a)-[:KNOWS]->(c) WITH DISTINCT a, c RETURN count(*) AS pairs",
                   None),
        "ldbc": ("MATCH (a:Person)-[:knows]-(:Person)-[:knows]-(c:Person) "
                 "WHERE a <> c AND NOT (a)-[:knows]-(c) WITH DISTINCT a, c RETURN count(*) AS pairs", None),
    },
    "top10_two_hop_reach": {
        "social": ("MATCH (a:Person)-[:KNOWS]->(:Person)-[:KNOWS]->(c:Person) "
                   "RETURN a.id AS id, count(DISTINCT c) AS reach ORDER BY reach DESC, id LIMIT 10", None),
        "ldbc": ("MATCH (a:Person)-[:knows]-(:Person)-[:knows]-(c:Person) WHERE a <> c "
                 "RETURN a.id AS id, count(DISTINCT c) AS reach ORDER BY reach DESC, id LIMIT 10", None),
    },
}


# ---- the child: one engine, one query ---------------------------------------------------------------------

def _rows_of(df):
    return [list(r) for r in df.rows()]


def _columns_of(df):
    """[name, is_string, values] per column: cypher_compare.rows()'s form, plain JSON."""
    import polars as pl

    return [[c, df.schema[c] == pl.String, df.get_column(c).to_list()] for c in df.columns]


def child(args):
    spec = json.loads(args.child)
    engine, text, path, runs = spec["engine"], spec["text"], spec["path"], spec["runs"]
    # snb: one run executes the query once per parameter set; the others run it once without.
    param_sets = spec.get("params") or [None]
    out = {"times": [], "rows": None, "error": None}
    try:
        t = time.perf_counter()
        if engine == "kuzu":
            import kuzu

            db = kuzu.Database(path, read_only=True)
            conn = kuzu.Connection(db)
            run = lambda ps: conn.execute(text, ps or {}).get_as_pl()  # noqa: E731
        elif engine.startswith("quiver"):
            import quiver

            if not hasattr(quiver, "Graph"):
                raise RuntimeError("quiver cypher engine not landed: quiver.Graph is not in the package")
            g = quiver.Graph(path)
            csr = engine == "quiver-csr"
            run = lambda ps: g.cypher(text, params=ps, use_csr=csr)  # noqa: E731
        elif engine == "lance-graph":
            import lance_graph  # noqa: F401  (not pinned: see requirements.txt)

            raise RuntimeError("lance-graph: no driver for its API in this benchmark yet")
        else:
            raise RuntimeError("unknown engine %s" % engine)
        out["open_s"] = time.perf_counter() - t
        for _ in range(runs):
            t = time.perf_counter()
            dfs = [run(ps) for ps in param_sets]
            out["times"].append((time.perf_counter() - t) / len(param_sets))
        if spec.get("params"):
            out["columns"] = [_columns_of(df) for df in dfs]
            out["rows"] = [df.height for df in dfs]
        else:
            out["rows"] = _rows_of(dfs[0])
    except Exception as exc:  # the parent records any failure as this measurement's result
        out["error"] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
    out["vm_hwm_mib"] = _vm_hwm_mib()
    sys.stdout.write(json.dumps(out, default=str))


def _vm_hwm_mib():
    """This process's own peak RSS (VmHWM), a cross-check of the parent's ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def measure(engine, text, path, runs, timeout, params=None):
    """Runs one measurement in a fresh process; returns its report plus peak_rss_mib."""
    spec = json.dumps({"engine": engine, "text": text, "path": path, "runs": runs, "params": params})
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", spec], stdout=so, stderr=se)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, ru = os.wait4(proc.pid, 0)
                return {"error": "timeout after %d s" % timeout, "times": [], "rows": None,
                        "peak_rss_mib": ru.ru_maxrss / 1024.0}
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        text_out = so.read().decode("utf-8", "replace")
        try:
            rep = json.loads(text_out)
        except ValueError:
            rep = {"error": "child exited %d: %s" % (proc.returncode, se.read().decode("utf-8", "replace")[-400:]),
                   "times": [], "rows": None}
    rep["peak_rss_mib"] = ru.ru_maxrss / 1024.0  # Linux: KiB
    return rep


# ---- loading ----------------------------------------------------------------------------------------------

def prepare_in_child(dataset, work, persons, quiver_exe, need_quiver, need_kuzu):
    """prepare() in its own process: Linux counts a parent's resident pages at fork in a child's
    ru_maxrss, so the parent keeps numpy, Polars and Kuzu out of itself to leave the children's
    numbers their own."""
    spec = json.dumps([dataset, work, persons, quiver_exe, need_quiver, need_kuzu])
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--prepare", spec], stdout=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit("bench_cypher: loading %s failed" % dataset)
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def prepare(dataset, work, persons, quiver_exe, need_quiver, need_kuzu):
    """Loads the dataset for both engines under work (once); returns ({engine: path}, notes)."""
    # "ldbc-snb": the LDBC layout with Forum, Comment, Post and their relationships (an older "ldbc"
    # folder of a work dir has only the Person subset).
    base = os.path.join(work, "social-%d" % persons if dataset == "social" else "ldbc-snb")
    paths = {"quiver": os.path.join(base, "quiver", "graph"), "kuzu": os.path.join(base, "kuzu.db")}
    notes = {}
    os.makedirs(base, exist_ok=True)
    if dataset == "social" and not os.path.exists(os.path.join(base, "knows.csv")):
        t = time.perf_counter()
        n, e = gen_social.write_csv(persons, base)
        notes["generate_s"] = time.perf_counter() - t
        print("social: %d persons, %d KNOWS edges, generated in %.1f s" % (n, e, notes["generate_s"]), flush=True)
    ldbc = gen_social.default_ldbc_dir()
    if need_quiver and not os.path.exists(os.path.join(paths["quiver"], "catalog.qvg")):
        t = time.perf_counter()
        if dataset == "social":
            gen_social.load_quiver(base, os.path.join(base, "quiver"), quiver_exe)
        else:
            gen_social.load_ldbc_quiver(ldbc, os.path.join(base, "quiver"), quiver_exe)
        notes["quiver_load_s"] = time.perf_counter() - t
        print("%s: quiver import + graph create in %.1f s" % (dataset, notes["quiver_load_s"]), flush=True)
    if need_kuzu and not os.path.exists(paths["kuzu"]):
        t = time.perf_counter()
        if dataset == "social":
            db, conn = gen_social.load_kuzu(base, paths["kuzu"])
        else:
            db, conn = gen_social.load_ldbc_kuzu(ldbc, paths["kuzu"])
        conn.close()
        db.close()
        notes["kuzu_load_s"] = time.perf_counter() - t
        print("%s: Kuzu CREATE + COPY in %.1f s" % (dataset, notes["kuzu_load_s"]), flush=True)
    return paths, notes


# ---- report -----------------------------------------------------------------------------------------------

def _canon_rows(rows, ordered):
    rows = [[round(v, 9) if isinstance(v, float) else v for v in r] for r in rows]
    return rows if ordered else sorted(rows, key=repr)


def _snb_disagreement(row, unordered, ordered):
    """Every quiver engine's rows against Kuzu's, parameter set by parameter set (cypher_compare);
    a list of what differs, empty when all agree.  Drops the columns from the report after."""
    k = row.get("kuzu", {}).get("columns")
    why = []
    for eng, r in row.items():
        if eng == "kuzu" or not r.get("columns") or not k:
            continue
        for i, (kc, qc) in enumerate(zip(k, r["columns"])):
            cols = {j for j, c in enumerate(kc) if c[0] in unordered}
            krows, qrows = cypher_compare.rows(kc, qc)
            d = cypher_compare.diff(cypher_compare.sort_lists(krows, cols), cypher_compare.sort_lists(qrows, cols),
                                    ordered)
            if d:
                why.append("%s, parameter set %d: %s" % (eng, i, d))
    for r in row.values():
        r.pop("columns", None)
    return why


def chart(results, png_prefix, engines):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for dataset, per_query in results.items():
        names = list(per_query)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
        width = 0.8 / max(1, len(engines))
        for i, eng in enumerate(engines):
            xs = [j + (i - (len(engines) - 1) / 2) * width for j in range(len(names))]
            ts = [per_query[q][eng].get("median_s") or 0 for q in names]
            rss = [per_query[q][eng].get("peak_rss_mib") or 0 if per_query[q][eng].get("median_s") else 0
                   for q in names]
            ax1.bar(xs, ts, width, label=eng)
            ax2.bar(xs, rss, width, label=eng)
        for ax, title in ((ax1, "median time (s, log)"), (ax2, "peak RSS of the process (MiB)")):
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
            ax.set_title(title)
        ax1.set_yscale("log")
        ax1.legend(fontsize=8)
        fig.suptitle("Cypher on %s (missing bars: engine not run or failed)" % dataset)
        fig.tight_layout()
        out = "%s-%s.png" % (png_prefix, dataset)
        fig.savefig(out, dpi=110)
        plt.close(fig)
        written.append(out)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--prepare", help=argparse.SUPPRESS)
    ap.add_argument("--persons", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--queries", default=",".join(QUERIES), help="the social / ldbc queries")
    ap.add_argument("--snb-queries", default=",".join(ldbc_queries.NAMES),
                    help="the snb queries (bench/graph/ldbc/NAME.cypher)")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "quiver-bench-cypher"))
    ap.add_argument("--quiver", default=os.environ.get("QUIVER", "build/quiver"))
    ap.add_argument("--timeout", type=int, default=900, help="seconds per measurement")
    ap.add_argument("--json", default="bench-cypher.json")
    ap.add_argument("--png", default="", help="chart prefix: writes PREFIX-DATASET.png per dataset")
    a = ap.parse_args(argv)
    if a.child:
        return child(a)
    if a.prepare:
        sys.stdout = sys.stderr  # progress lines; the answer goes to the real stdout
        paths, notes = prepare(*json.loads(a.prepare))
        sys.__stdout__.write("\n" + json.dumps([paths, notes]) + "\n")
        return None
    engines = [e for e in a.engines.split(",") if e]
    for e in engines:
        if e not in ENGINES:
            sys.exit("bench_cypher: unknown engine %r (%s)" % (e, ", ".join(ENGINES)))
    os.makedirs(a.work, exist_ok=True)
    results, loads = {}, {}
    snb_names = [q for q in a.snb_queries.split(",") if q]
    for dataset in [d for d in a.datasets.split(",") if d]:
        if dataset not in DATASETS:
            sys.exit("bench_cypher: unknown dataset %r (%s)" % (dataset, ", ".join(DATASETS)))
        paths, loads[dataset] = prepare_in_child("ldbc" if dataset == "snb" else dataset, a.work, a.persons, a.quiver,
                                                 any(e.startswith("quiver") for e in engines), "kuzu" in engines)
        results[dataset] = {}
        if dataset == "snb":
            specs = [(q.name, q.text, q.kuzu_text, q.params, q.ordered(), q.unordered_lists)
                     for q in map(ldbc_queries.load, snb_names)]
        else:
            specs = [(qn,) + QUERIES[qn][dataset] + (None, "ORDER BY" in QUERIES[qn][dataset][0], [])
                     for qn in [q for q in a.queries.split(",") if q]]
        for qname, text, ktext, params, ordered, unordered in specs:
            row = results[dataset][qname] = {}
            for eng in engines:
                path = paths["kuzu"] if eng == "kuzu" else paths["quiver"]
                rep = measure(eng, ktext or text if eng == "kuzu" else text, path, a.runs, a.timeout, params)
                if rep["times"]:
                    rep["median_s"] = statistics.median(rep["times"])
                row[eng] = rep
                status = "%.4f s" % rep["median_s"] if rep.get("median_s") is not None else rep["error"]
                print("  %-6s %-22s %-12s %s  rss %.0f MiB (VmHWM %s)  rows %s" % (
                    dataset, qname, eng, status, rep.get("peak_rss_mib", 0),
                    "%.0f" % rep["vm_hwm_mib"] if rep.get("vm_hwm_mib") else "-", json.dumps(rep.get("rows"))[:60]),
                    flush=True)
            if params:
                why = _snb_disagreement(row, unordered, ordered)
                row["agree"] = not why
                if why:
                    row["disagree"] = why
                    print("  !!! %s %s: the engines disagree: %s" % (dataset, qname, why), flush=True)
                continue
            answers = {e: json.dumps(_canon_rows(r["rows"], ordered)) for e, r in row.items() if r.get("rows")}
            row["agree"] = len(set(answers.values())) <= 1
            if not row["agree"]:
                print("  !!! %s %s: the engines disagree: %s" % (dataset, qname, answers), flush=True)
    print("\n%-6s %-22s" % ("data", "query") + "".join("%14s" % e for e in engines) + "  quiver-csr/kuzu  "
          "quiver-hash/kuzu")
    for dataset, per_query in results.items():
        for qname, row in per_query.items():
            cells = []
            for e in engines:
                r = row[e]
                cells.append("%9.4f s %3.0fM" % (r["median_s"], r["peak_rss_mib"]) if r.get("median_s") is not None
                             else "%14s" % "-")
            k = row.get("kuzu", {}).get("median_s")
            ratios = ["%10.2fx" % (row[e]["median_s"] / k) if k and row.get(e, {}).get("median_s") else "%11s" % "-"
                      for e in ("quiver-csr", "quiver-hash")]
            print("%-6s %-22s" % (dataset, qname) + "".join("%14s" % c for c in cells) + "  " + "      ".join(ratios))
    import platform

    doc = {"persons": a.persons, "load_average_at_end": os.getloadavg(), "runs": a.runs, "engines": engines, "loads": loads, "results": results,
           "queries": {q: {d: {"text": t, "kuzu_text": k or t} for d, (t, k) in v.items()} for q, v in QUERIES.items()},
           "snb_queries": {q.name: {"text": q.text, "kuzu_text": q.kuzu_text, "params": q.params}
                           for q in map(ldbc_queries.load, [n for n in a.snb_queries.split(",") if n])},
           "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
           "versions": _versions()}
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1, default=str)
    print("wrote %s" % a.json)
    if a.png:
        for p in chart(results, a.png, engines):
            print("wrote %s" % p)


def _versions():
    out = {}
    for mod in ("kuzu", "polars", "quiver", "lance_graph"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except ImportError:
            out[mod] = None
    return out


if __name__ == "__main__":
    main()
