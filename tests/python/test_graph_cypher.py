"""quiver.Graph: Cypher from Python (docs/cypher.md).

The parameter conversion (Python values -> exact Cypher literal text) and
the argument and error handling run on their own.  The tests that need the
engine to answer a query skip, loudly, only while qv_cypher_query answers
"unsupported" to `RETURN 1` (the stub on main before the planner landed);
once the engine runs queries they all run.

The graph over datasets is the command's four-person graph (tests/cli/run.sh),
built with the `quiver` binary of $QV_BUILD_DIR (`quiver graph create`).
"""

import math
import os
import subprocess

import pytest

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the quiver.Graph tests are SKIPPED. "
        "Run `make pyenv` and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package is not installed (%s): its tests are SKIPPED. !!!" % exc,
        allow_module_level=True,
    )

BUILD = os.environ.get("QV_BUILD_DIR", "/work/main/build")
INVALID, PARSE, TYPE, NOT_FOUND, UNSUPPORTED = 1, 5, 6, 7, 8


def _engine_missing():
    try:
        quiver.Graph.memory().cypher_rows("RETURN 1 AS x")
    except quiver.UnsupportedExpression as e:
        return str(e)
    return None


ENGINE_MISSING = _engine_missing()
needs_engine = pytest.mark.skipif(
    ENGINE_MISSING is not None,
    reason="!!! engine not built yet: qv_cypher_query answers unsupported (%s) !!!" % ENGINE_MISSING,
)


# ---- parameters as Cypher literals (no engine needed) ----------------------


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-42, "-42"),
        (2**63 - 1, "9223372036854775807"),
        (-(2**63), "-9223372036854775808"),
        (1.5, "1.5"),
        (1.0, "1.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (1e16, "1e16"),
        (1e-5, "1e-05"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (5e-324, "5e-324"),
        ("", "''"),
        ("Alice", "'Alice'"),
        ("it's", "'it\\'s'"),
        ("back\\slash", "'back\\\\slash'"),
        ("tab\tnew\nline\r", "'tab\\tnew\\nline\\r'"),
        ("\x00\x1f\x7f", "'\\u0000\\u001f\\u007f'"),
        ("zoë 日本", "'zoë 日本'"),
        ([], "[]"),
        ((1, "a"), "[1, 'a']"),
        ([1, [2.5, None], {"k": True}], "[1, [2.5, null], {k: true}]"),
        ({}, "{}"),
        ({"a": 1, "b c": "x", "x`y": None, "9": 1, "_k9": []}, "{a: 1, `b c`: 'x', `x``y`: null, `9`: 1, _k9: []}"),
    ],
)
def test_literal_text(value, text):
    assert quiver.cypher_literal(value) == text


def test_int_likes():
    np = pytest.importorskip("numpy")
    assert quiver.cypher_literal([np.int64(5), np.int32(-3), np.float64(0.25)]) == "[5, -3, 0.25]"
    with pytest.raises(OverflowError):
        quiver.cypher_literal(np.uint64(2**64 - 1))


def test_float_literals_round_trip():
    for f in [0.1 + 0.2, 1 / 3, 2.5e-310, 123456789.123456789, -1e300, 6.02214076e23]:
        text = quiver.cypher_literal(f)
        assert "+" not in text
        assert float(text) == f


@pytest.mark.parametrize(
    "value, exc, words",
    [
        (math.nan, ValueError, "NaN"),
        (math.inf, ValueError, "infinity"),
        (2**63, OverflowError, "64-bit"),
        (-(2**63) - 1, OverflowError, "64-bit"),
        (object(), TypeError, "object"),
        (b"bytes", TypeError, "bytes"),
        ({1: 2}, TypeError, "map key"),
        ({"a": {1, 2}}, TypeError, "set"),
    ],
)
def test_literal_refused(value, exc, words):
    with pytest.raises(exc, match=words):
        quiver.cypher_literal(value)


def test_literal_nesting_limit():
    deep = []
    for _ in range(500):
        deep = [deep]
    with pytest.raises(ValueError, match="nested deeper"):
        quiver.cypher_literal(deep)


def test_params_checked_before_the_query():
    g = quiver.Graph.memory()
    with pytest.raises(TypeError, match="dict"):
        g.cypher("RETURN $x", [1])
    with pytest.raises(TypeError, match="name must be str"):
        g.cypher("RETURN $x", {1: 1})
    with pytest.raises(ValueError, match="NaN"):
        g.cypher("RETURN $x", {"x": [math.nan]})
    with pytest.raises(TypeError, match="literal=True"):
        g._g.rows("RETURN $x", {"x": 1}, literal=True)


def test_graph_objects():
    g = quiver.Graph.memory()
    assert g.path is None
    assert repr(g) == "Graph.memory()"
    with pytest.raises(quiver.NotFound) as info:
        quiver.Graph("/nonexistent/graph")
    assert info.value.code == NOT_FOUND
    with pytest.raises(TypeError):
        g.explain("RETURN 1", render=True)
    with pytest.raises(TypeError):
        g._g.query("RETURN 1", analyze=True)
    with pytest.raises(ValueError, match="negative"):
        g._g.rows("RETURN 1", memory_limit=-1)


def test_unsupported_is_unsupported():
    """Whatever the engine's state, an error carries its class, code and phase."""
    if ENGINE_MISSING is None:
        pytest.skip("the engine runs queries: covered by the tests below")
    with pytest.raises(quiver.UnsupportedExpression) as info:
        quiver.Graph.memory().cypher("RETURN 1")
    assert info.value.code == UNSUPPORTED
    assert info.value.phase == "compile"


# ---- queries (the engine) ---------------------------------------------------


@pytest.fixture(scope="module")
def people_graph(tmp_path_factory):
    """The command's four-person graph: Person(id, name, age), KNOWS(src, dst, since)."""
    exe = os.path.join(BUILD, "quiver")
    if not os.path.exists(exe):
        pytest.skip("!!! %s not found (build it, or set QV_BUILD_DIR) !!!" % exe)
    d = tmp_path_factory.mktemp("graph")
    quiver.write_dataset(
        pl.DataFrame({"id": [1, 2, 3, 4], "name": ["Ann", "Bob", "Cid", "Dee"], "age": [31, 42, 27, 38]}),
        d / "persons",
    )
    quiver.write_dataset(
        pl.DataFrame({"src": [1, 1, 2, 3], "dst": [2, 3, 3, 4], "since": [2019, 2021, 2022, 2018]}), d / "knows"
    )
    subprocess.run(
        [exe, "graph", "create", str(d / "g"), "--node", "Person=%s:id" % (d / "persons"),
         "--rel", "KNOWS=%s:src->dst:Person->Person" % (d / "knows")],
        check=True, capture_output=True,
    )
    return quiver.Graph(d / "g")


@needs_engine
def test_memory_graph_create_and_match():
    g = quiver.Graph.memory()
    g.cypher("CREATE (:P {name: 'a', n: 1}), (:P {name: 'b', n: 2}), (:Q {name: 'c'})")
    df = g.cypher("MATCH (p:P) RETURN p.name AS name, p.n AS n ORDER BY n")
    assert isinstance(df, pl.DataFrame)
    assert df.columns == ["name", "n"]
    assert df.rows() == [("a", 1), ("b", 2)] or df.rows() == [("'a'", "1"), ("'b'", "2")]
    cols, rows = g.cypher_rows("MATCH (p:P) RETURN p.name AS name, p.n AS n ORDER BY n")
    assert cols == ["name", "n"]
    assert rows == [("'a'", "1"), ("'b'", "2")]


@needs_engine
def test_render_gives_cypher_text():
    g = quiver.Graph.memory()
    df = g.cypher("RETURN 1 AS i, 'x' AS s, null AS z, [1, 2.5] AS l, {b: 1, a: true} AS m", render=True)
    assert df.rows() == [("1", "'x'", "null", "[1, 2.5]", "{a: true, b: 1}")]
    assert all(t == pl.String for t in df.dtypes)


@needs_engine
@pytest.mark.parametrize(
    "value, text",
    [
        (None, "null"),
        (True, "true"),
        (-9223372036854775808, "-9223372036854775808"),
        (0.1, "0.1"),
        (1.0, "1.0"),
        ("it's \\ \n", "'it\\'s \\\\ \n'"),
        ([1, [None, "a"]], "[1, [null, 'a']]"),
        ({"k": [1], "b": {"c": 2.5}}, "{b: {c: 2.5}, k: [1]}"),
    ],
)
def test_params_arrive_exactly(value, text):
    _, rows = quiver.Graph.memory().cypher_rows("RETURN $v AS v", {"v": value})
    assert rows == [(text,)]


@needs_engine
def test_param_map_keys_that_need_quotes():
    value = {"a b": 1, "x`y": 2, "9": 3, "": 4}
    _, rows = quiver.Graph.memory().cypher_rows(
        "RETURN $v.`a b` AS a, $v.`x``y` AS b, $v.`9` AS c, $v.`` AS d", {"v": value}
    )
    assert rows == [("1", "2", "3", "4")]


@needs_engine
def test_float_param_round_trips_through_the_engine():
    g = quiver.Graph.memory()
    for f in [0.1 + 0.2, 1 / 3, 6.02214076e23]:
        _, rows = g.cypher_rows("RETURN $f = %s AS same" % repr(f).replace("e+", "e"), {"f": f})
        assert rows == [("true",)]


@needs_engine
def test_dataset_graph(people_graph):
    g = people_graph
    q = "MATCH (a:Person)-[:KNOWS]->(b:Person) WHERE a.age > $age RETURN a.name AS a, b.name AS b ORDER BY a, b"
    want = [("'Ann'", "'Bob'"), ("'Ann'", "'Cid'"), ("'Bob'", "'Cid'")]
    assert g.cypher_rows(q, {"age": 30})[1] == want
    assert g.cypher_rows(q, {"age": 30}, use_csr=False)[1] == want
    df = g.cypher("MATCH (a:Person)-[:KNOWS]->(b) RETURN count(*) AS n")
    assert df.columns == ["n"] and df.rows()[0][0] in (4, "4")
    t = g.cypher_arrow("MATCH (a:Person) RETURN a.name AS name ORDER BY name", render=True)
    pa = pytest.importorskip("pyarrow")
    assert isinstance(t, pa.Table)
    assert t.column("name").to_pylist() == ["'Ann'", "'Bob'", "'Cid'", "'Dee'"]


@needs_engine
def test_case_of_one_type_is_a_typed_column(people_graph):
    """CASE whose every branch is one type (or null) comes out as that type, not as Cypher text."""
    g = people_graph
    for use_csr in (True, False):
        df = g.cypher("MATCH (a:Person) OPTIONAL MATCH p = shortestPath((a)-[:KNOWS*]->(b:Person {id: 4})) "
                      "RETURN a.id AS id, CASE WHEN p IS NULL THEN -1 ELSE length(p) END AS d ORDER BY id",
                      use_csr=use_csr)
        assert df.schema["d"] == pl.Int64 and df.rows() == [(1, 2), (2, 2), (3, 1), (4, -1)]
    df = g.cypher("MATCH (a:Person) RETURN CASE a.name WHEN 'Ann' THEN a.age WHEN 'Bob' THEN null END AS x, "
                  "CASE WHEN a.age > 35 THEN 'old' ELSE 'young' END AS y, "
                  "CASE WHEN a.age > 35 THEN 1 ELSE 'young' END AS z, CASE WHEN a.age > 35 THEN 1.5 END AS w "
                  "ORDER BY a.id")
    assert [df.schema[c] for c in "xyzw"] == [pl.Int64, pl.String, pl.String, pl.Float64]
    assert df.rows() == [(31, "young", "'young'", None), (None, "old", "1", 1.5), (None, "young", "'young'", None),
                         (None, "old", "1", 1.5)]


@needs_engine
def test_explain(people_graph):
    q = "MATCH (a:Person)-[:KNOWS]->(b) RETURN b.name"
    plan = people_graph.explain(q)
    assert isinstance(plan, str) and plan.strip()
    assert people_graph.explain(q, use_csr=False) != plan
    analyzed = people_graph.explain(q, analyze=True)
    assert "rows" in analyzed


@needs_engine
def test_errors_map_to_classes(people_graph):
    g = quiver.Graph.memory()
    with pytest.raises(quiver.InvalidInput) as info:
        g.cypher("MATCH (n RETURN n")
    assert info.value.code == PARSE and info.value.phase == "compile"
    with pytest.raises(quiver.InvalidInput) as info:
        g.cypher("RETURN nope")
    assert info.value.code == INVALID and info.value.phase == "compile"
    with pytest.raises(quiver.InvalidInput) as info:
        people_graph.cypher("CREATE (:Person {id: 9})")
    assert info.value.code == INVALID
    assert "read-only" in str(info.value)
    g.cypher("CREATE ({v: 'a'})")
    with pytest.raises(quiver.QuiverError) as info:
        g.cypher("MATCH (n) RETURN n.v - 1 AS x")
    assert info.value.code in (TYPE, INVALID) and info.value.phase == "runtime"


@needs_engine
def test_create_happens_without_reading(people_graph):
    g = quiver.Graph.memory()
    g.cypher("CREATE ()")
    g.cypher_arrow("CREATE ()")
    assert g.cypher_rows("MATCH (n) RETURN count(n) AS c")[1] == [("2",)]
