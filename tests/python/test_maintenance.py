"""quiver.optimize / cleanup / tag / untag / tags / versions: compaction
keeps every row (with and without indices), cleanup removes old versions
but keeps the latest and tagged ones, and the results say what happened."""

import datetime as dt
import os

import polars as pl
import pytest

import quiver


def _fragmented(path):
    quiver.write_dataset(pl.DataFrame({"id": range(1000), "s": [f"s{i}" for i in range(1000)]}), path,
                         max_rows_per_file=400)
    for k in range(5):
        ids = range(1000 + 20 * k, 1020 + 20 * k)
        quiver.write_dataset(pl.DataFrame({"id": ids, "s": [f"s{i}" for i in ids]}), path, mode="append")
    quiver.create_index(path, "id", "btree")
    quiver.delete(path, pl.col("id") % 3 == 0)


def _rows(path, **kw):
    return quiver.scan(path, **kw).collect().sort("id")


def test_optimize_keeps_rows_and_indices(tmp_path):
    path = str(tmp_path / "ds")
    _fragmented(path)
    before = _rows(path)
    filtered = quiver.scan(path).filter(pl.col("id").is_between(100, 130)).collect().sort("id")
    res = quiver.optimize(path, target_rows_per_file=2000)
    assert res.fragments_removed == 8 and res.fragments_added == 1
    assert res.rows_rewritten == before.height
    assert res.rows_dropped == 1100 - before.height
    assert res.index_version == res.version + 1
    assert _rows(path).equals(before)
    assert quiver.scan(path).filter(pl.col("id").is_between(100, 130)).collect().sort("id").equals(filtered)
    again = quiver.optimize(path, target_rows_per_file=2000)
    assert again.fragments_removed == 0 and again.index_version == 0
    assert [v.operation for v in quiver.versions(path)][-3:] == ["delete", "compact", "index-opt"]


def test_cleanup_and_tags(tmp_path):
    path = str(tmp_path / "ds")
    _fragmented(path)
    quiver.optimize(path, target_rows_per_file=2000)
    n = len(quiver.versions(path))
    assert quiver.tag(path, "first", 1) == 1
    assert quiver.tags(path) == {"first": 1}
    with pytest.raises(quiver.AlreadyExists):
        quiver.tag(path, "first", 2)
    dry = quiver.cleanup(path, older_than=0, dry_run=True)
    assert dry.versions_removed == n - 2
    assert len(quiver.versions(path)) == n
    res = quiver.cleanup(path, older_than=dt.timedelta(0), orphan_grace=0)
    assert res == dry
    assert [v.version for v in quiver.versions(path)] == [1, n]
    assert _rows(path, version=1).height == 1000
    quiver.untag(path, "first")
    assert quiver.tags(path) == {}
    res = quiver.cleanup(path, older_than=0)
    assert res.versions_removed == 1 and res.files_removed > 0
    assert [v.version for v in quiver.versions(path)] == [n]
    assert len(os.listdir(os.path.join(path, "data"))) == 1
    # nothing by age (None), the default grace keeps a fresh orphan
    open(os.path.join(path, "data", "00" * 16 + ".qvf"), "w").close()
    assert quiver.cleanup(path, older_than=None).files_removed == 0
    assert quiver.cleanup(path, older_than=None, orphan_grace=0).orphans_removed == 1
