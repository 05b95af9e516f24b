"""LDBC SNB Interactive queries on SF0.1: quiver against Kuzu 0.11.3, both of quiver's plans.

The queries are bench/graph/ldbc/*.cypher (IS1, IS3, IS5, IS6, IC1, IC13:
the ones ../shared/ldbc-sf01 can answer, see its SOURCE.md), each with its
parameter sets in its header and, where Kuzu's dialect differs, a
NAME.kuzu.cypher (bench/graph/ldbc_queries.py reads them).  The data is
gen_social.LDBC_NODES / LDBC_RELS, loaded into both engines from the same
files; Comment and Post are id-only labels (their node files are absent).

Every query and parameter set runs on Kuzu (the oracle), then on quiver
with use_csr=True (CSR hops, ShortestPathExec, PathExistsExec) and
use_csr=False (hash joins, the adjacency built per query).  Rows are
compared as in test_kuzu_cypher.py: in order where the last RETURN orders
(every such ORDER BY here is total), else as multisets; the lists of a
query's `unordered-lists` columns (collect() output) are compared sorted.

Skips loudly when kuzu cannot be imported (test_kuzu_cypher's import does)
or the LDBC folder is missing.
"""

from __future__ import annotations

import os
import sys

import pytest

from test_kuzu_cypher import _rows, _Worker, gen_social  # noqa: E402  (skips without kuzu)

import quiver_driver

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "graph"))
import cypher_compare  # noqa: E402
import ldbc_queries  # noqa: E402

QUERIES = ldbc_queries.load_all()
CASES = [pytest.param(q, i, id="%s-%d" % (q.name, i)) for q in QUERIES for i in range(len(q.params))]
MODES = [pytest.param(True, id="csr"), pytest.param(False, id="hash")]

_WORKER = _Worker()


class _World:
    def __init__(self, tmp):
        ldbc = gen_social.default_ldbc_dir()
        if not os.path.isfile(os.path.join(ldbc, "Person.csv")):
            pytest.skip("!!! LDBC SF0.1 not found at %s (set QV_LDBC_DIR): the LDBC SNB comparisons are SKIPPED !!!"
                        % ldbc)
        self.graph = gen_social.load_ldbc_quiver(ldbc, os.path.join(tmp, "quiver"), quiver_driver.quiver_path())
        self.db, self.conn = gen_social.load_ldbc_kuzu(ldbc, os.path.join(tmp, "kuzu.db"))
        self.cache = {}

    def kuzu(self, text, params):
        key = (text, repr(sorted(params.items())))
        if key not in self.cache:
            self.cache[key] = self.conn.execute(text, params).get_as_pl()
        return self.cache[key]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = _World(str(tmp_path_factory.mktemp("kuzu-ldbc-snb")))
    yield w
    _WORKER.close()
    w.conn.close()
    w.db.close()


def _quiver(world, text, params, use_csr):
    out = _WORKER.ask({"graph": world.graph, "text": text, "params": params, "use_csr": use_csr})
    if "fatal" in out:
        pytest.skip("!!! %s: set PYTHONPATH to BUILD/python !!!" % out["fatal"])
    if "crash" in out:
        pytest.fail("use_csr=%s: %s\n  quiver: %s" % (use_csr, out["crash"], text))
    if "error" in out:
        pytest.fail("use_csr=%s: quiver raised (%s) %s\n  quiver: %s" % (use_csr, out["status"], out["error"], text))
    return out["columns"]


@pytest.mark.parametrize("use_csr", MODES)
@pytest.mark.parametrize("q,i", CASES)
def test_ldbc_snb(q, i, use_csr, world):
    params = q.params[i]
    kdf = world.kuzu(q.kuzu_text, params)
    assert kdf.height > 0, "kuzu returned no rows for %s %r: pick parameters that find some" % (q.name, params)
    missing = [c for c in q.unordered_lists if c not in kdf.columns]
    assert not missing, "%s: unordered-lists names no result column %r (columns %r)" % (q.name, missing, kdf.columns)
    cols = {kdf.columns.index(c) for c in q.unordered_lists}
    krows, qrows = _rows(kdf, _quiver(world, q.text, params, use_csr))
    why = cypher_compare.diff(cypher_compare.sort_lists(krows, cols), cypher_compare.sort_lists(qrows, cols),
                              q.ordered())
    assert why is None, "%s %r (use_csr=%s) disagrees with Kuzu: %s\n  quiver: %s\n  kuzu:   %s" % (
        q.name, params, use_csr, why, q.text, q.kuzu_text)


# What the loader made of SOURCE.md's traps: split files, headerless second parts, an unterminated
# last line; every count below is SOURCE.md's.
COUNTS = [
    ("MATCH (c:Comment) RETURN count(*) AS n", 151043),
    ("MATCH (p:Post) RETURN count(*) AS n", 135701),
    ("MATCH (f:Forum) RETURN count(*) AS n", 13750),
    ("MATCH (:Comment)-[r:Comment_hasCreator]->(:Person) RETURN count(*) AS n", 43243 + 107800),
    ("MATCH (:Post)-[r:Post_hasCreator]->(:Person) RETURN count(*) AS n", 135701),
    ("MATCH (:Comment)-[r:replyOf_Comment]->(:Comment) RETURN count(*) AS n", 76787),
    ("MATCH (:Comment)-[r:replyOf_Post]->(:Post) RETURN count(*) AS n", 74256),
    ("MATCH (:Forum)-[r:containerOf]->(:Post) RETURN count(*) AS n", 135701),
    ("MATCH (:Forum)-[r:hasModerator]->(:Person) RETURN count(*) AS n", 13750),
    ("MATCH (:Organisation)-[r:Organisation_isLocatedIn]->(:Place) RETURN count(*) AS n", 7955),
    ("MATCH (:Person)-[r:knows]->(:Person) RETURN count(*) AS n", 14073),
    # the last line of Comment_hasCreator_Person.csv has no newline; the first of its _1 part is data
    ("MATCH (c:Comment {id: 962072782451})-[:Comment_hasCreator]->(p) RETURN p.id AS n", 21990232555650),
    ("MATCH (c:Comment {id: 962072782452})-[:Comment_hasCreator]->(p) RETURN p.id AS n", 870),
]


@pytest.mark.parametrize("text,n", COUNTS, ids=[str(k) for k in range(len(COUNTS))])
def test_ldbc_loaded(text, n, world):
    assert world.kuzu(text, {}).rows() == [(n,)], "kuzu: %s" % text
    (col,) = _quiver(world, text, {}, True)
    assert col[2] == [n], "quiver: %s gives %r" % (text, col[2])
