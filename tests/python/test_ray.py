"""quiver.ray on a local multi-node Ray cluster (ray.cluster_utils.Cluster,
three nodes on this machine): read_dataset has one read task per fragment
with the filter pushed into each, write_dataset writes fragments in the
tasks and commits once; both equal the single-process result.  Ray is not
in the shared test environment (requirements-ray.txt pins it): without it
this file is skipped, loudly."""

import os

import polars as pl
import pytest

import quiver

ray = pytest.importorskip("ray", reason="!!! ray is not installed (pip install -r requirements-ray.txt): "
                                        "the Ray tests are SKIPPED !!!")
from ray.cluster_utils import Cluster  # noqa: E402

import quiver.ray as qray  # noqa: E402

ROWS = int(os.environ.get("QV_RAY_ROWS", "200000"))


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(2):
        c.add_node(num_cpus=1)
    ray.init(address=c.address)
    yield c
    ray.shutdown()
    c.shutdown()


def test_read_and_write_on_three_nodes(cluster, tmp_path):
    assert len(ray.nodes()) == 3
    src = str(tmp_path / "src")
    df = pl.DataFrame({"id": range(ROWS), "g": [i % 7 for i in range(ROWS)]}).with_columns(
        pl.format("r{}", pl.col("id")).alias("s"))
    quiver.write_dataset(df, src, max_rows_per_file=max(1, ROWS // 9))
    rd = qray.read_dataset(src, filter=pl.col("g") == 3, columns=["id", "s"])
    got = pl.from_arrow(__import__("pyarrow").concat_tables(ray.get(rd.to_arrow_refs()))).sort("id")
    want = quiver.scan(src).filter(pl.col("g") == 3).select("id", "s").collect().sort("id")
    assert got.equals(want)
    assert rd.materialize().num_blocks() >= len(quiver.fragments(src))  # one read task per fragment
    dst = str(tmp_path / "dst")
    v = qray.write_dataset(qray.read_dataset(src).repartition(6), dst, mode="create")
    assert v == 1
    assert quiver.scan(dst).collect().sort("id").equals(df.sort("id"))
    assert len(quiver.versions(dst)) == 1  # one commit from the driver
