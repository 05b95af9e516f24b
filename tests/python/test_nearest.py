"""Vector search through ``quiver.scan(path, nearest=..., prefilter=...)``:
the ranked rows and their distances equal a numpy brute force for l2,
cosine and dot, with prefilters admitting 100%, 10%, 0.1% and no rows; a
batch of queries carries ``_query``; a later ``.filter`` is a postfilter
(fewer than k rows may remain) and ``.head`` truncates the ranking; bad
input raises at the call, before anything is read."""

import pytest

try:
    import numpy as np
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! numpy/polars cannot be imported (%s): the vector search tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the vector search tests are SKIPPED. Run make pypackage. !!!"
        % exc,
        allow_module_level=True,
    )

ROWS, DIM = 20000, 32


def _vectors(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 4, (16, DIM))
    return (centres[rng.integers(0, 16, ROWS)] + rng.normal(0, 1, (ROWS, DIM))).astype(np.float32)


@pytest.fixture(scope="module")
def vecs(tmp_path_factory):
    v = _vectors()
    path = str(tmp_path_factory.mktemp("vec") / "ds")
    df = pl.DataFrame(
        {
            "id": np.arange(ROWS, dtype=np.int64),
            "bucket": (np.arange(ROWS) % 1000).astype(np.int64),
            "vec": pl.Series(v, dtype=pl.Array(pl.Float32, DIM)),
        }
    )
    quiver.write_dataset(df, path)
    return path, v


def _brute(v: np.ndarray, q: np.ndarray, k: int, metric: str, keep: np.ndarray | None = None):
    x = v.astype(np.float64)
    qd = q.astype(np.float64)
    if metric == "l2":
        d = ((x - qd) ** 2).sum(axis=1)
    elif metric == "dot":
        d = 1 - x @ qd
    else:
        d = 1 - (x @ qd) / (np.linalg.norm(x, axis=1) * np.linalg.norm(qd))
    ids = np.arange(len(v))
    if keep is not None:
        d, ids = d[keep], ids[keep]
    order = np.lexsort((ids, d))[:k]
    return ids[order], d[order]


def _check(got: pl.DataFrame, ids: np.ndarray, dist: np.ndarray) -> None:
    assert got.height == len(ids)
    np.testing.assert_allclose(got["_distance"].to_numpy(), dist, rtol=1e-4, atol=1e-4)
    assert got["id"].to_list() == ids.tolist()


@pytest.mark.parametrize("metric", ["l2", "cosine", "dot"])
def test_flat_equals_numpy(vecs, metric):
    path, v = vecs
    for qi in (5, 777, 19999):
        q = v[qi] + 0.1
        got = quiver.scan(path, nearest={"column": "vec", "q": q, "k": 10, "metric": metric}).collect()
        _check(got, *_brute(v, q, 10, metric))
        assert got.columns == ["id", "bucket", "vec", "_distance"]


@pytest.mark.parametrize(
    "prefilter,keep",
    [
        (pl.col("bucket") >= 0, lambda b: b >= 0),  # 100%
        (pl.col("bucket") < 100, lambda b: b < 100),  # 10%
        ("bucket = 7", lambda b: b == 7),  # 0.1%, Lance SQL as it is
        (pl.col("bucket") > 5000, lambda b: b > 5000),  # none
    ],
)
def test_prefilter_equals_numpy(vecs, prefilter, keep):
    path, v = vecs
    q = v[123] * 0.9
    mask = keep(np.arange(ROWS) % 1000)
    got = quiver.scan(path, nearest={"column": "vec", "q": q, "k": 10}, prefilter=prefilter).collect()
    _check(got, *_brute(v, q, 10, "l2", mask))
    if mask.sum() == 0:
        assert got.height == 0


def test_batch_of_queries_has_query_column(vecs):
    path, v = vecs
    qs = v[[1, 2, 3]] + 0.05
    got = quiver.scan(path, nearest={"column": "vec", "q": qs, "k": 4}).collect()
    assert got["_query"].to_list() == [0] * 4 + [1] * 4 + [2] * 4
    for i in range(3):
        _check(got.filter(pl.col("_query") == i), *_brute(v, qs[i], 4, "l2"))


def test_postfilter_and_head(vecs):
    path, v = vecs
    q = v[10]
    lf = quiver.scan(path, nearest={"column": "vec", "q": q, "k": 10})
    ranked = lf.collect()
    post = lf.filter(pl.col("id") % 2 == 0).collect()
    # the ranked rows that pass, in order: a postfilter never refills to k
    assert post["id"].to_list() == [i for i in ranked["id"].to_list() if i % 2 == 0]
    assert lf.head(3).collect()["id"].to_list() == ranked["id"].to_list()[:3]
    assert lf.select("id", "_distance").collect()["id"].to_list() == ranked["id"].to_list()


def test_results_identical_at_one_and_two_threads(vecs, monkeypatch):
    import subprocess
    import sys

    path, v = vecs
    code = (
        "import quiver, numpy as np, sys\n"
        "v = np.load(sys.argv[1])\n"
        "df = quiver.scan(sys.argv[2], nearest={'column': 'vec', 'q': v, 'k': 25}).collect()\n"
        "print(df['id'].to_list(), df['_distance'].to_list())\n"
    )
    qs = np.ascontiguousarray(v[[9, 99, 999]] * 1.01)
    qf = path + "-q.npy"
    np.save(qf, qs)
    out = []
    for t in ("1", "2"):
        env = dict(__import__("os").environ, QUIVER_THREADS=t)
        out.append(subprocess.run([sys.executable, "-c", code, qf, path], env=env, capture_output=True, text=True,
                                  check=True).stdout)
    assert out[0] == out[1] and len(out[0]) > 100


@pytest.mark.parametrize(
    "nearest,prefilter,exc,needle",
    [
        ({"column": "vec", "q": [0.0] * 31, "k": 5}, None, quiver.InvalidInput, "dimension 31"),
        ({"column": "vec", "q": [float("nan")] + [0.0] * 31, "k": 5}, None, quiver.InvalidInput, "NaN"),
        ({"column": "vec", "q": [0.0] * 32, "k": 0}, None, quiver.InvalidInput, "k = 0"),
        ({"column": "vec", "q": [0.0] * 32, "k": ROWS + 1}, None, quiver.InvalidInput, "k = 20001"),
        ({"column": "id", "q": [0.0] * 32, "k": 5}, None, quiver.QuiverError, "not a vector column"),
        ({"column": "vec", "q": [0.0] * 32, "k": 5, "bogus": 1}, None, ValueError, "unknown key"),
        # a prefilter that does not translate exactly fails at the call
        ({"column": "vec", "q": [0.0] * 32, "k": 5}, pl.col("bucket") > pl.col("bucket").mean(), quiver.QuiverError,
         "prefilter does not translate exactly"),
        ({"column": "vec", "q": [0.0] * 32, "k": 5}, "bucket = ", quiver.QuiverError, "prefilter"),
    ],
)
def test_bad_input_raises_at_the_call(vecs, nearest, prefilter, exc, needle):
    path, _ = vecs
    with pytest.raises(exc, match=needle):
        quiver.scan(path, nearest=nearest, prefilter=prefilter)


@pytest.mark.parametrize("kind", ["ivf_flat", "ivf_pq"])
def test_vector_index_through_python(vecs, tmp_path, kind):
    path, v = vecs
    import shutil

    copy = str(tmp_path / "ds")
    shutil.copytree(path, copy)
    extra = {"num_sub_vectors": 8} if kind == "ivf_pq" else {}
    quiver.create_index(copy, "vec", kind, num_partitions=16, max_iterations=5, **extra)
    q = v[42] + 0.05
    flat = quiver.scan(copy, nearest={"column": "vec", "q": q, "k": 10, "use_index": False}).collect()
    # every partition probed: IVF_FLAT is exact; IVF_PQ re-ranks 10 x k by exact distance
    got = quiver.scan(copy, nearest={"column": "vec", "q": q, "k": 10, "nprobes": 16}).collect()
    same = len(set(got["id"].to_list()) & set(flat["id"].to_list()))
    assert same == 10 if kind == "ivf_flat" else same >= 8
    assert [i.type for i in quiver.list_indices(copy)] == [kind]
