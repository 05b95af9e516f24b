"""Flat vector search, quiver against pylance (pinned 14.0.2): the same
vectors written by both, the same queries through
``to_table(nearest=..., prefilter=True, filter=...)`` and
``quiver.scan(path, nearest=..., prefilter=...)``, for l2, cosine and dot,
with prefilters admitting every row, 10%, 0.1% and none.  The rows must be
the same, in the same order, and the distances equal to float rounding.
(The directory's conftest skips every peer test, loudly, when pylance or
quiver cannot be imported.)"""

import numpy as np
import pytest

ROWS, DIM = 5000, 24


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    import lance
    import polars as pl
    import pyarrow as pa

    import quiver

    rng = np.random.default_rng(17)
    v = (rng.normal(0, 3, (8, DIM))[rng.integers(0, 8, ROWS)] + rng.normal(0, 1, (ROWS, DIM))).astype(np.float32)
    base = tmp_path_factory.mktemp("vec-peer")
    t = pa.table({"id": np.arange(ROWS, dtype=np.int64), "bucket": np.arange(ROWS, dtype=np.int64) % 1000,
                  "vec": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), DIM)})
    ld = lance.write_dataset(t, str(base / "lance"))
    qpath = str(base / "qv")
    quiver.write_dataset(pl.DataFrame(t), qpath, page_rows=256)
    return ld, qpath, v


@pytest.mark.parametrize("metric", ["l2", "cosine", "dot"])
@pytest.mark.parametrize("where", [None, "bucket < 100", "bucket = 7", "bucket > 5000"])
def test_flat_rows_equal_lance(both, metric, where):
    import quiver

    ld, qpath, v = both
    for qi in (3, 1234):
        q = v[qi] * 0.8 + 0.1
        nn = {"column": "vec", "q": q, "k": 10, "metric": metric, "use_index": False}
        lt = ld.to_table(columns=["id"], nearest=nn, filter=where, prefilter=where is not None)
        got = quiver.scan(qpath, nearest=nn, prefilter=where).select("id", "_distance").collect()
        assert got["id"].to_list() == lt["id"].to_pylist(), (metric, where, qi)
        np.testing.assert_allclose(got["_distance"].to_numpy(), lt["_distance"].to_numpy(), rtol=1e-4, atol=1e-4)
