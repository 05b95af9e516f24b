"""Writing datasets, deleting rows and managing scalar indices from Python.

quiver.write_dataset writes any Arrow stream (a Polars DataFrame, a pyarrow
Table) as a new version, all or nothing; quiver.delete deletes the rows a
Polars expression (Polars semantics) or Lance SQL keeps; create_index,
list_indices, optimize_indices and drop_index manage scalar indices.  Every scan is
checked against Polars' own filter of the same rows, with the indices on
and off; list_indices is checked field by field; a damaged index file is
listed, warned about, filtered around and rebuilt.
"""

import os

import pytest

try:
    import polars as pl
    from polars.testing import assert_frame_equal
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the write and index tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the write and index tests are SKIPPED. "
        "Run make pypackage. !!!" % exc,
        allow_module_level=True,
    )

ROWS = 20000


def table(first: int, n: int) -> pl.DataFrame:
    ids = range(first, first + n)
    return pl.DataFrame(
        {
            "id": pl.Series(ids, dtype=pl.Int64),
            "cat": [f"c{i % 8}" for i in ids],
            "text": [f"row {i} {'needle' if i % 997 == 0 else 'hay'}" for i in ids],
            "tags": [[f"t{i % 5}", f"t{i % 7}"] for i in ids],
            "score": [None if i % 101 == 0 else (i * 7919 % 1000) / 10 for i in ids],
        }
    )


def scan_sorted(path, expr, use_index=True):
    got = quiver.scan(path, use_scalar_index=use_index).filter(expr).collect()
    return got.sort("id")


def test_write_modes_and_options(tmp_path):
    path = tmp_path / "ds"
    first, more = table(0, ROWS), table(ROWS, 500)
    assert quiver.write_dataset(first, path, max_rows_per_file=6000, page_rows=1024) == 1
    ds = quiver.Dataset(str(path))
    assert (ds.version, ds.num_rows, ds.num_fragments) == (1, ROWS, 4)
    assert_frame_equal(quiver.scan(path).collect(), first)
    assert quiver.write_dataset(more, path, mode="append", compression="zstd") == 2
    assert_frame_equal(quiver.scan(path).collect(), pl.concat([first, more]))
    assert quiver.write_dataset(more, path, mode="overwrite") == 3
    assert_frame_equal(quiver.scan(path).collect(), more)
    lazy = quiver.scan(path).filter(pl.col("id") % 2 == 0)  # a LazyFrame is collected, then written
    assert quiver.write_dataset(lazy, tmp_path / "evens") == 1
    assert_frame_equal(quiver.scan(tmp_path / "evens").collect(), more.filter(pl.col("id") % 2 == 0))
    assert_frame_equal(quiver.scan(path, version=1).collect(), first)  # older versions stay


def test_write_from_pyarrow(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="!!! pyarrow is not installed: its write test is SKIPPED !!!")
    df = table(0, 1000)
    quiver.write_dataset(df.to_arrow(), tmp_path / "ds")
    assert_frame_equal(quiver.scan(tmp_path / "ds").collect(), df)
    # a reader that pulls batches from a Python generator, one at a time,
    # while the write runs with the GIL released
    arrow = df.to_arrow()
    pulled = []

    def batches():
        for b in arrow.to_batches(max_chunksize=128):
            pulled.append(b.num_rows)
            yield b

    reader = pa.RecordBatchReader.from_batches(arrow.schema, batches())
    quiver.write_dataset(reader, tmp_path / "streamed", max_rows_per_file=300)
    assert len(pulled) == 8
    assert quiver.Dataset(str(tmp_path / "streamed")).num_fragments == 4
    assert_frame_equal(quiver.scan(tmp_path / "streamed").collect(), df)


def test_write_errors_publish_nothing(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(table(0, 100), path)
    with pytest.raises(quiver.QuiverError, match="a dataset already exists here") as e:
        quiver.write_dataset(table(0, 100), path)
    assert e.value.status == "already exists"
    # another schema cannot be appended; no version is published
    with pytest.raises(quiver.QuiverError) as e:
        quiver.write_dataset(pl.DataFrame({"x": [1.5]}), path, mode="append")
    assert e.value.status == "type error"
    assert quiver.Dataset(str(path)).version == 1
    with pytest.raises(ValueError, match="mode must be one of create, append, overwrite, not 'upsert'"):
        quiver.write_dataset(table(0, 1), path, mode="upsert")
    with pytest.raises(ValueError, match="compression must be one of auto, none, zstd, lz4, not 'gzip'"):
        quiver.write_dataset(table(0, 1), path, mode="append", compression="gzip")
    with pytest.raises(ValueError, match="must not be negative"):
        quiver.write_dataset(table(0, 1), path, mode="append", page_rows=-1)
    with pytest.raises(TypeError, match=r"data must export an Arrow stream .* not list"):
        quiver.write_dataset([1, 2], tmp_path / "other")
    assert not (tmp_path / "other").exists()
    assert quiver.Dataset(str(path)).version == 1


DELETES = [
    pl.col("score") > 50,  # null scores are kept, as df.filter drops them
    (pl.col("id") % 7 == 0) & pl.col("text").str.contains("needle"),
    pl.col("id").is_in([1, 2, 3]) | (pl.col("cat") == "c5"),
    pl.col("id") / 2 > 9998,  # Polars divides exactly: 19997 matches (integer division would not)
]


@pytest.mark.parametrize("expr", DELETES)
def test_delete_keeps_polars_rows(tmp_path, expr):
    path = tmp_path / "ds"
    df = table(0, ROWS)
    quiver.write_dataset(df, path, max_rows_per_file=6000)
    gone = df.filter(expr).height
    assert gone > 0
    assert quiver.delete(path, expr) == (gone, 2)
    assert_frame_equal(quiver.scan(path).collect(), df.filter(~expr.fill_null(False)))
    assert quiver.Dataset(str(path), 1).num_rows == ROWS  # the old version keeps every row
    assert quiver.delete(path, expr) == (0, 2)  # nothing left to delete: no new version


def test_delete_by_sql_and_errors(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(table(0, 100), path)
    assert quiver.delete(path, "id < 10 OR cat = 'c7'") == (10 + 11, 2)
    with pytest.raises(quiver.QuiverError) as e:
        quiver.delete(path, "nope = 1")
    assert e.value.status == "not found"
    with pytest.raises(quiver.QuiverError):
        quiver.delete(path, pl.col("id").rolling_mean(3) > 1)  # not something libquiver evaluates
    with pytest.raises(TypeError, match="expected a polars Expr, not int"):
        quiver.delete(path, 3)
    assert quiver.Dataset(str(path)).version == 2  # no failed delete committed
    assert quiver.scan(path).select(pl.len()).collect().item() == 100 - 21


@pytest.fixture()
def indexed(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(table(0, ROWS), path, max_rows_per_file=5000)
    assert quiver.create_index(path, "id", "btree") == 2
    assert quiver.create_index(path, "cat", "bitmap") == 3
    assert quiver.create_index(path, "text", "ngram", name="text_ngram") == 4
    assert quiver.create_index(path, "tags", "label_list") == 5
    return path


PREDICATES = [
    (pl.col("id") == 4321, "id_idx (btree)"),
    (pl.col("id").is_between(100, 130), "id_idx (btree)"),
    (pl.col("id").is_in([3, 5000, 19999]), "id_idx (btree)"),
    (pl.col("text").str.contains("needle"), "text_ngram (ngram)"),
    (pl.col("tags").list.contains("t3") & (pl.col("id") < 200), "id_idx (btree)"),
    ((pl.col("cat") == "c3") & (pl.col("id") < 100), "id_idx (btree)"),
]


@pytest.mark.parametrize("expr,index", PREDICATES)
def test_indexed_scans_keep_polars_rows(indexed, expr, index):
    want = table(0, ROWS).filter(expr)
    assert_frame_equal(scan_sorted(indexed, expr), want)
    assert f"index {index} answers" in quiver.last_scan.explain
    assert_frame_equal(scan_sorted(indexed, expr, use_index=False), want)
    assert "scalar indices: off" in quiver.last_scan.explain


def test_point_lookup_opens_one_fragment(indexed):
    got = quiver.scan(indexed).filter(pl.col("id") == 12345).collect()
    assert got["id"].to_list() == [12345]
    c = quiver.last_scan.counters
    assert (c["fragments"], c["fragments_index_skipped"]) == (1, 3)
    quiver.scan(indexed, use_scalar_index=False).filter(pl.col("id") == 12345).collect()
    c = quiver.last_scan.counters
    assert (c["fragments"], c["fragments_index_skipped"]) == (4, 0)


def test_list_append_optimize_drop(indexed):
    infos = quiver.list_indices(indexed)
    assert [(i.name, i.type, i.column) for i in infos] == [
        ("id_idx", "btree", "id"),
        ("cat_idx", "bitmap", "cat"),
        ("text_ngram", "ngram", "text"),
        ("tags_idx", "label_list", "tags"),
    ]
    first = infos[0]
    assert first == quiver.IndexInfo("id_idx", "btree", "id", 4, 4, ROWS, ROWS, 2, 2, 0, None)
    assert infos[1].distinct == 4 * 8  # 8 values in each of 4 files
    # appended rows: not covered until optimized, and still found
    assert quiver.write_dataset(table(ROWS, 100), indexed, mode="append") == 6
    assert [i.fragments for i in quiver.list_indices(indexed)] == [4, 4, 4, 4]
    expr = pl.col("id") == ROWS + 7
    assert scan_sorted(indexed, expr)["id"].to_list() == [ROWS + 7]
    assert quiver.optimize_indices(indexed, "id_idx") == 7
    infos = quiver.list_indices(indexed)
    assert [(i.fragments, i.dataset_fragments) for i in infos] == [(5, 5), (4, 5), (4, 5), (4, 5)]
    assert (infos[0].rows, infos[0].built_version, infos[0].updated_version) == (ROWS + 100, 2, 7)
    assert quiver.optimize_indices(indexed) == 8
    assert quiver.optimize_indices(indexed) == 0  # nothing left to do
    assert quiver.drop_index(indexed, "cat_idx") == 9
    assert [i.name for i in quiver.list_indices(indexed)] == ["id_idx", "text_ngram", "tags_idx"]
    assert "cat_idx" in [i.name for i in quiver.list_indices(indexed, version=8)]


def test_index_errors(indexed):
    with pytest.raises(ValueError, match="type must be one of btree, bitmap, ngram, label_list, ivf_flat, ivf_pq, not 'hash'"):
        quiver.create_index(indexed, "id", "hash")
    with pytest.raises(quiver.QuiverError, match="an index named `id_idx` exists") as e:
        quiver.create_index(indexed, "id", "btree")
    assert e.value.status == "already exists"
    with pytest.raises(quiver.QuiverError) as e:
        quiver.create_index(indexed, "nope", "btree")
    assert e.value.status == "not found"
    with pytest.raises(quiver.QuiverError) as e:
        quiver.create_index(indexed, "id", "ngram", name="id_ngram")
    assert e.value.status == "type error"
    with pytest.raises(quiver.QuiverError) as e:
        quiver.drop_index(indexed, "nope")
    assert e.value.status == "not found"
    with pytest.raises(quiver.QuiverError):
        quiver.list_indices(indexed.parent / "missing")
    assert quiver.Dataset(str(indexed)).version == 5  # nothing was committed


def test_damaged_index_is_listed_filtered_around_and_rebuilt(indexed):
    before = set((indexed / "_indices").iterdir())
    assert quiver.create_index(indexed, "score", "btree") == 6
    victim = sorted(set((indexed / "_indices").iterdir()) - before)[0]  # one fragment's file
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])  # cut short: nothing of it can be read
    info = quiver.list_indices(indexed)[-1]
    assert (info.name, info.fragments, info.damaged_files) == ("score_idx", 4, 1)
    assert victim.name in info.first_error
    assert quiver.list_indices(indexed)[0].damaged_files == 0
    expr = pl.col("score") == 12.3
    with pytest.warns(quiver.IndexFallbackWarning, match="index score_idx unusable for 1 fragment"):
        got = scan_sorted(indexed, expr)
    assert_frame_equal(got, table(0, ROWS).filter(expr))
    assert got.height > 0
    assert quiver.optimize_indices(indexed, "score_idx", rebuild=True) == 7
    assert quiver.list_indices(indexed)[-1].damaged_files == 0
    assert os.path.exists(victim)  # older versions still name it
