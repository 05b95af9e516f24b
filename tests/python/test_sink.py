"""Streaming writes from Python: quiver.sink(lazyframe, path) and
quiver.write_dataset(lazyframe) run the query on Polars' streaming engine and
write it a chunk at a time (collect_batches), never holding the result:
the rows come back equal, a failing query publishes nothing, files are cut
by max_bytes_per_file, and the peak memory of a process sinking 8M rows is
that of one sinking 1M rows (measured in subprocesses, VmHWM)."""

import os
import subprocess
import sys

import polars as pl
import pytest

import quiver


def _lf(n: int) -> pl.LazyFrame:
    return (
        pl.LazyFrame({"id": range(n)})
        .with_columns((pl.col("id") * 0.5).alias("x"), pl.format("row{}", pl.col("id")).alias("s"))
        .filter(pl.col("id") % 7 != 3)
    )


def test_sink_roundtrip(tmp_path):
    path = str(tmp_path / "ds")
    assert quiver.sink(_lf(250_000), path, chunk_size=30_000, max_rows_per_file=100_000) == 1
    got = quiver.scan(path).collect().sort("id")
    assert got.equals(_lf(250_000).collect())
    assert quiver.Dataset(path, 0).num_fragments >= 3
    # write_dataset streams a LazyFrame too, and appends
    assert quiver.write_dataset(_lf(1000).with_columns(pl.col("id") + 10**6), path, mode="append") == 2
    assert quiver.scan(path).collect().height == got.height + _lf(1000).collect().height


def test_sink_error_publishes_nothing(tmp_path):
    path = str(tmp_path / "ds")
    bad = pl.LazyFrame({"s": ["1", "2", "x"] * 50_000}).with_columns(pl.col("s").cast(pl.Int64).alias("n"))
    with pytest.raises(quiver.QuiverError, match="sink: the source raised"):
        quiver.sink(bad, path, chunk_size=10_000)
    assert not os.path.exists(path)
    with pytest.raises(TypeError):
        quiver.sink(pl.DataFrame({"a": [1]}), path)


def test_max_bytes_per_file(tmp_path):
    path = str(tmp_path / "ds")
    quiver.sink(_lf(200_000), path, max_bytes_per_file=300_000, page_rows=4096, compression="none")
    ds = quiver.Dataset(path, 0)
    sizes = [os.path.getsize(os.path.join(path, "data", p)) for p in os.listdir(os.path.join(path, "data"))]
    assert len(sizes) == ds.num_fragments and len(sizes) > 4
    assert max(sizes) < 300_000 + 4096 * 40 + 16_384
    assert sorted(sizes)[1] >= 300_000  # all but the last reach the limit
    assert quiver.scan(path).collect().height == _lf(200_000).collect().height
    # write_dataset with a DataFrame and a byte limit
    quiver.write_dataset(_lf(50_000).collect(), str(tmp_path / "b"), max_bytes_per_file=100_000)
    assert quiver.Dataset(str(tmp_path / "b"), 0).num_fragments > 1


_PEAK = r"""
import sys, polars as pl, quiver
n, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pl.LazyFrame().select(pl.int_range(0, n, dtype=pl.Int64).alias("id")).with_columns(
    (pl.col("id") * 0.5).alias("x"), pl.format("row{}", pl.col("id")).alias("s")
).sink_parquet(src, row_group_size=100_000)
if sys.argv[4] == "sink":
    import subprocess  # a fresh process for the measurement: the generation above is not part of it
    print(subprocess.run([sys.executable, "-c", sys.argv[5], src, dst], capture_output=True, text=True,
                         check=True).stdout.strip())
"""
_MEASURE = r"""
import sys, polars as pl, quiver
quiver.sink(pl.scan_parquet(sys.argv[1]), sys.argv[2])
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")))
"""


def _peak_kib(tmp_path, n: int) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, str(n), str(tmp_path / f"src{n}.parquet"), str(tmp_path / f"ds{n}"), "sink",
         _MEASURE],
        capture_output=True, text=True, check=True, env=os.environ,
    ).stdout.strip()
    assert quiver.Dataset(str(tmp_path / f"ds{n}"), 0).num_rows == n
    return int(out)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="VmHWM needs /proc")
def test_sink_memory_does_not_grow_with_rows(tmp_path):
    small = _peak_kib(tmp_path, 1_000_000)
    large = _peak_kib(tmp_path, 8_000_000)  # ~230 MB of rows
    print(f"sink peak RSS: {small} KiB for 1M rows, {large} KiB for 8M rows")
    assert large < small + 32 * 1024, (small, large)
