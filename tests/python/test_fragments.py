"""Fragment-level writes from Python: write_fragments in separate processes,
commit_fragments once (idempotent on replay), fragments(), and a Scanner
restricted to some fragments with the filter pushed in."""

import multiprocessing as mp

import polars as pl

import quiver


def _write(args):
    path, lo = args
    return quiver.write_fragments(pl.DataFrame({"id": range(lo, lo + 500), "g": [i % 5 for i in range(500)]}), path,
                                  max_rows_per_file=200)


def test_write_elsewhere_commit_once(tmp_path):
    path = str(tmp_path / "ds")
    with mp.get_context("spawn").Pool(2) as pool:
        sets = pool.map(_write, [(path, k * 500) for k in range(4)])
    assert all(s.startswith("quiver-fragments 1\n") for s in sets)
    assert quiver.commit_fragments(path, sets) == 1
    assert quiver.commit_fragments(path, sets) == 1  # a replay commits nothing
    got = quiver.scan(path).collect().sort("id")
    assert got["id"].to_list() == list(range(2000))
    frags = quiver.fragments(path)
    assert len(frags) == 12 and sum(f["num_rows"] for f in frags) == 2000
    # one task's share: two fragments, filtered in the scan
    ids = [frags[0]["id"], frags[5]["id"]]
    sc = quiver.Scanner(path, fragments=ids, filter="g = 3", columns=["id"])
    part = pl.from_arrow(__import__("pyarrow").RecordBatchReader.from_stream(sc).read_all())
    whole = quiver.scan(path).filter(pl.col("g") == 3).collect()
    assert 0 < part.height < whole.height
    assert set(part["id"]).issubset(set(whole["id"]))
    every = []
    for f in frags:
        every += pl.from_arrow(
            __import__("pyarrow").RecordBatchReader.from_stream(
                quiver.Scanner(path, fragments=[f["id"]], filter="g = 3", columns=["id"])).read_all())["id"].to_list()
    assert sorted(every) == sorted(whole["id"].to_list())
