"""shortestPath / allShortestPaths (ShortestPathExec) against a one-sided BFS oracle.

Random graphs with parallel edges, self-loops and disconnected parts, in a
memory store and over datasets, directed and undirected, bound and open
ends, both plans (the CSR's spans, and use_csr=False's adjacency built from
the relationships).  The oracle (below) runs a plain breadth-first search
from the start keeping every predecessor edge, and enumerates every
shortest path as its list of edge ids: allShortestPaths must give exactly
that multiset, shortestPath exactly one of them per pair.
"""

import collections
import json
import os
import random
import subprocess

import pytest

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip("!!! polars cannot be imported (%s): shortest-path tests SKIPPED !!!" % exc, allow_module_level=True)
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip("!!! the quiver package is not installed (%s): tests SKIPPED !!!" % exc, allow_module_level=True)

BUILD = os.environ.get("QV_BUILD_DIR", "/work/main/build")


def random_edges(seed, n_nodes, n_edges):
    rnd = random.Random(seed)
    edges = []
    for e in range(n_edges):
        a, b = rnd.randrange(n_nodes), rnd.randrange(n_nodes)
        if e % 17 == 0:
            b = a  # self-loop
        edges.append((a, b, e))
        if e % 11 == 0:
            edges.append((a, b, n_edges + e))  # a parallel edge
    # nodes n_nodes .. n_nodes+4 stay disconnected
    return edges


def oracle(edges, n_nodes, start, direction):
    """{end: [tuple of edge ids, ...]} of every shortest path from start (length >= 1)."""
    adj = collections.defaultdict(list)
    for a, b, e in edges:
        if direction in ("->", "-"):
            adj[a].append((b, e))
        if direction in ("<-", "-") and not (direction == "-" and a == b):
            adj[b].append((a, e))
    dist, preds = {start: 0}, collections.defaultdict(list)
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            for v, e in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
                if dist[v] == dist[u] + 1:
                    preds[v].append((u, e))
        frontier = nxt

    def paths(v):
        if v == start:
            return [()]
        return [p + (e,) for u, e in preds[v] for p in paths(u)]

    return {v: sorted(paths(v)) for v in dist if v != start}


def memory_graph(edges, n_nodes):
    g = quiver.Graph.memory()
    g.cypher("UNWIND range(0, $n - 1) AS i CREATE (:N {id: i})", {"n": n_nodes + 5})
    g.cypher("UNWIND $edges AS e MATCH (a:N {id: e[0]}), (b:N {id: e[1]}) CREATE (a)-[:R {eid: e[2]}]->(b)",
             {"edges": [list(e) for e in edges]})
    return g


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """(edges, n_nodes, [memory graph, dataset graph or None])."""
    n_nodes, edges = 40, random_edges(5, 40, 70)
    gs = [memory_graph(edges, n_nodes)]
    exe = os.path.join(BUILD, "quiver")
    if os.path.exists(exe):
        d = tmp_path_factory.mktemp("shortest")
        quiver.write_dataset(pl.DataFrame({"id": list(range(n_nodes + 5))}), d / "nodes")
        quiver.write_dataset(
            pl.DataFrame({"src": [a for a, _, _ in edges], "dst": [b for _, b, _ in edges],
                          "eid": [e for _, _, e in edges]}),
            d / "rels",
        )
        subprocess.run([exe, "graph", "create", str(d / "g"), "--node", "N=%s:id" % (d / "nodes"),
                        "--rel", "R=%s:src->dst:N->N" % (d / "rels")], check=True, capture_output=True)
        gs.append(quiver.Graph(d / "g"))
    return edges, n_nodes, gs


def _int(v):
    """A memory graph's properties have no declared type: they come back as Cypher text."""
    return int(v) if isinstance(v, str) else v


def _path(v):
    return tuple(json.loads(v)) if isinstance(v, str) else tuple(v)


def _arrow(direction):
    return {"->": ("-", "->"), "<-": ("<-", "-"), "-": ("-", "-")}[direction]


@pytest.mark.parametrize("direction", ["->", "<-", "-"])
@pytest.mark.parametrize("csr", [True, False])
def test_all_shortest_to_every_node(graphs, direction, csr):
    edges, n_nodes, gs = graphs
    left, right = _arrow(direction)
    for start in (0, 3, 17, n_nodes + 1):
        want = oracle(edges, n_nodes, start, direction)
        q = ("MATCH (a:N {id: $s}) MATCH p = allShortestPaths((a)%s[:R*]%s(b:N)) "
             "RETURN b.id AS b, [r IN relationships(p) | r.eid] AS path" % (left, right))
        for g in gs:
            got = collections.defaultdict(list)
            for b, path in g.cypher(q, {"s": start}, use_csr=csr).rows():
                got[_int(b)].append(_path(path))
            assert {b: sorted(p) for b, p in got.items()} == want, (start, direction, g)


@pytest.mark.parametrize("direction", ["->", "<-", "-"])
@pytest.mark.parametrize("csr", [True, False])
def test_shortest_between_bound_ends(graphs, direction, csr):
    """One start, many ends: the bidirectional search per pair (the rows'
    starts differ) and the shared forward search (they repeat)."""
    edges, n_nodes, gs = graphs
    left, right = _arrow(direction)
    rnd = random.Random(11)
    pairs = [(rnd.randrange(n_nodes + 5), rnd.randrange(n_nodes + 5)) for _ in range(40)]
    pairs += [(4, t) for t in range(0, n_nodes + 5, 3)]  # a repeated start
    for g in gs:
        for kind in ("shortestPath", "allShortestPaths"):
            q = ("UNWIND $pairs AS pr MATCH (a:N {id: pr[0]}), (b:N {id: pr[1]}) "
                 "MATCH p = %s((a)%s[:R*]%s(b)) RETURN a.id AS a, b.id AS b, "
                 "[r IN relationships(p) | r.eid] AS path" % (kind, left, right))
            got = collections.defaultdict(list)
            for a, b, path in g.cypher(q, {"pairs": [list(x) for x in pairs]}, use_csr=csr).rows():
                got[(_int(a), _int(b))].append(_path(path))
            for a, b in set(pairs):
                want = oracle(edges, n_nodes, a, direction).get(b, [])
                have = sorted(got.get((a, b), []))
                mult = pairs.count((a, b))
                if kind == "allShortestPaths":
                    assert have == sorted(want * mult), (kind, a, b, direction)
                else:
                    assert len(have) == (mult if want else 0), (kind, a, b, direction, have)
                    assert all(p in want for p in have), (kind, a, b, direction, have)


def test_zero_length_and_bounds(graphs):
    edges, n_nodes, gs = graphs
    g = gs[0]
    rows = g.cypher("MATCH (a:N {id: 3}) MATCH p = shortestPath((a)-[:R*0..]->(b:N {id: 3})) "
                    "RETURN length(p) AS n").rows()
    assert [tuple(_int(x) for x in r) for r in rows] == [(0,)]
    assert g.cypher("MATCH (a:N {id: 3}), (b:N {id: 3}) MATCH p = shortestPath((a)-[:R*]->(b)) "
                    "RETURN length(p) AS n").rows() == []
    # an upper bound cuts longer paths off
    want = {b: p for b, p in oracle(edges, n_nodes, 0, "->").items() if len(p[0]) <= 2}
    got = {_int(b): _int(n) for b, n in g.cypher("MATCH (a:N {id: 0}) MATCH p = shortestPath((a)-[:R*..2]->(b:N)) "
                                                 "RETURN b.id AS b, length(p) AS n").rows()}
    assert got == {b: len(p[0]) for b, p in want.items()}
    with pytest.raises(quiver.InvalidInput, match="lower bound must be 0 or 1"):
        g.cypher("MATCH (a:N {id: 0}) MATCH p = shortestPath((a)-[:R*2..]->(b)) RETURN p")
    with pytest.raises(quiver.UnsupportedExpression, match="conditions on its relationships"):
        g.cypher("MATCH (a:N {id: 0}) MATCH p = shortestPath((a)-[:R* {eid: 1}]->(b)) RETURN p")


def test_explain_shows_the_search(graphs):
    _, _, gs = graphs
    for g in gs:
        q = "MATCH (a:N {id: 0}), (b:N {id: 9}) MATCH p = allShortestPaths((a)-[:R*..6]-(b)) RETURN p"
        assert "ShortestPathExec: a -> b, types=[R], dir=-, hops 1..6, all, adjacency=csr" in g.explain(q)
        assert "adjacency=built" in g.explain(q, use_csr=False)


def test_memory_limit_names_the_limit(tmp_path):
    """Every start's search over a large graph, all paths kept: the query's
    memory limit stops it with an error that names the limit."""
    exe = os.path.join(BUILD, "quiver")
    if not os.path.exists(exe):
        pytest.skip("!!! %s not found (build it, or set QV_BUILD_DIR) !!!" % exe)
    rnd = random.Random(3)
    n = 20000
    quiver.write_dataset(pl.DataFrame({"id": list(range(n))}), tmp_path / "nodes")
    quiver.write_dataset(pl.DataFrame({"src": [rnd.randrange(n) for _ in range(60000)],
                                       "dst": [rnd.randrange(n) for _ in range(60000)]}), tmp_path / "rels")
    subprocess.run([exe, "graph", "create", str(tmp_path / "g"), "--node", "N=%s:id" % (tmp_path / "nodes"),
                    "--rel", "R=%s:src->dst:N->N" % (tmp_path / "rels")], check=True, capture_output=True)
    g = quiver.Graph(tmp_path / "g")
    with pytest.raises(quiver.QuiverError, match="memory limit"):
        g._g.rows("MATCH (a:N) MATCH p = allShortestPaths((a)-[:R*]-(b:N)) RETURN count(*) AS n",
                  memory_limit=1 << 20)
