"""Path operators side by side: PathExistsExec and ShortestPathExec against the relational plan and Kuzu.

    bench/graph/bench_paths.py [--persons 100000] [--runs 3] [--pairs 20] [--work DIR] [--json OUT.json]

On the generated social graph (bench_cypher.py's, loaded once under --work),
each measurement in its own process (bench_cypher.measure: open, run --runs
times, median, peak RSS):

- pattern predicate: friends-of-friends of 1,000 persons who are not their
  friends (`NOT (a)-[:KNOWS]->(c)`): the CSR plan answers it with
  PathExistsExec, use_csr=False with ApplyExec's subquery per batch; Kuzu.
- shortest paths between --pairs random pairs of persons, undirected:
  quiver with both ends bound (the bidirectional search), quiver with an
  open end filtered to the target afterwards (a one-sided search from the
  start over the whole graph: the oracle's way), quiver use_csr=False (the
  adjacency built from the relationships), Kuzu `* SHORTEST`.  The
  lengths must agree.

Prints time, peak RSS and the ratios the issue's targets name: PathExists
against the relational plan (at least 5x), shortest paths against Kuzu (no
slower), bidirectional against one-sided.
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_cypher  # noqa: E402


def queries(persons, n_pairs):
    rnd = random.Random(20261202)
    pairs = [[rnd.randrange(persons), rnd.randrange(persons)] for _ in range(n_pairs)]
    fof = ("MATCH (a:Person)-[:KNOWS]->(:Person)-[:KNOWS]->(c:Person) WHERE a.id < 1000 AND a <> c "
           "AND NOT (a)-[:KNOWS]->(c) RETURN count(*) AS n")
    bound = ("UNWIND %s AS pr MATCH (a:Person {id: pr[0]}), (b:Person {id: pr[1]}) "
             "MATCH p = shortestPath((a)-[:KNOWS*]-(b)) RETURN a.id AS a, b.id AS b, length(p) AS len" % pairs)
    one_sided = ("UNWIND %s AS pr MATCH (a:Person {id: pr[0]}) MATCH p = shortestPath((a)-[:KNOWS*]-(b:Person)) "
                 "WHERE b.id = pr[1] RETURN a.id AS a, b.id AS b, length(p) AS len" % pairs)
    kuzu_sp = ("UNWIND %s AS pr MATCH p = (a:Person)-[e:KNOWS* SHORTEST 1..30]-(b:Person) "
               "WHERE a.id = pr[1] AND b.id = pr[2] RETURN a.id AS a, b.id AS b, length(e) AS len" % pairs)
    return [
        ("pattern_predicate", [("quiver-csr", fof, "PathExistsExec"), ("quiver-hash", fof, "ApplyExec"),
                               ("kuzu", fof, "Kuzu")]),
        ("shortest_pairs", [("quiver-csr", bound, "bidirectional"), ("quiver-csr", one_sided, "one-sided"),
                            ("quiver-hash", bound, "built adjacency"), ("kuzu", kuzu_sp, "Kuzu SHORTEST")]),
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--persons", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "quiver-bench-cypher"))
    ap.add_argument("--quiver", default=os.environ.get("QUIVER", "build/quiver"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json", default="bench-paths.json")
    a = ap.parse_args(argv)
    paths, _ = bench_cypher.prepare_in_child("social", a.work, a.persons, a.quiver, True, True)
    out = {"persons": a.persons, "runs": a.runs, "pairs": a.pairs, "results": {}}
    for name, variants in queries(a.persons, a.pairs):
        rows = out["results"][name] = []
        for engine, text, label in variants:
            rep = bench_cypher.measure(engine, text, paths["kuzu" if engine == "kuzu" else "quiver"], a.runs,
                                       a.timeout)
            rep["median_s"] = statistics.median(rep["times"]) if rep["times"] else None
            rep.update(engine=engine, label=label)
            rows.append(rep)
            print("  %-18s %-12s %-16s %s  rss %.0f MiB" % (
                name, engine, label, "%.4f s" % rep["median_s"] if rep["median_s"] is not None else rep["error"],
                rep.get("peak_rss_mib", 0)), flush=True)
        answers = {json.dumps(sorted(r["rows"])) for r in rows if r.get("rows") is not None}
        out["results"][name + "_agree"] = len(answers) == 1
        if len(answers) != 1:
            print("  !!! %s: the variants disagree" % name, flush=True)

    def t(name, label):
        return next((r["median_s"] for r in out["results"][name] if r["label"] == label), None)

    ratios = {
        "relational / PathExists": (t("pattern_predicate", "ApplyExec"), t("pattern_predicate", "PathExistsExec")),
        "PathExists / Kuzu": (t("pattern_predicate", "PathExistsExec"), t("pattern_predicate", "Kuzu")),
        "one-sided / bidirectional": (t("shortest_pairs", "one-sided"), t("shortest_pairs", "bidirectional")),
        "bidirectional / Kuzu": (t("shortest_pairs", "bidirectional"), t("shortest_pairs", "Kuzu SHORTEST")),
    }
    out["ratios"] = {}
    for k, (x, y) in ratios.items():
        if x and y:
            out["ratios"][k] = x / y
            print("%-28s %.2fx" % (k, x / y))
    out["load_average_at_end"] = os.getloadavg()
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1, default=str)
    print("wrote %s" % a.json)


if __name__ == "__main__":
    main()
