"""quiver.restore: the way back from a damaged latest manifest.

While the latest version's manifest is damaged, scans of the latest,
writes, deletes and index changes raise, naming the damaged version and
the restore that leads back; quiver.restore of the version before commits
a copy of it above the damaged one, after which everything works again and
the damaged file is as it was.  Each kind of damage the C corruption tests
make is tried: a bit flip (checksum mismatch), bad magic, a truncation,
trailing garbage.
"""

import os

import pytest

try:
    import polars as pl
    from polars.testing import assert_frame_equal
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the restore tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the restore tests are SKIPPED. "
        "Run make pypackage. !!!" % exc,
        allow_module_level=True,
    )


def table(first: int, n: int) -> pl.DataFrame:
    ids = range(first, first + n)
    return pl.DataFrame({"id": pl.Series(ids, dtype=pl.Int64), "cat": [f"c{i % 4}" for i in ids]})


def flip(data: bytes) -> bytes:
    return data[:40] + bytes([data[40] ^ 0x10]) + data[41:]


DAMAGE = {
    "checksum mismatch": flip,
    "bad magic": lambda data: b"QVMX" + data[4:],
    "does not match the file size": lambda data: data[:100],
    "garbage": lambda data: data + b"garbage",
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_restore_after_damage(tmp_path, kind):
    path = tmp_path / "ds"
    assert quiver.write_dataset(table(0, 100), path) == 1
    quiver.create_index(path, "id", "btree")  # version 2
    assert quiver.delete(path, pl.col("id") < 10) == (10, 3)
    assert quiver.write_dataset(table(100, 50), path, mode="append") == 4
    expected = quiver.scan(path, version=3).collect()

    manifest = path / "_versions" / "4.manifest"
    damaged = DAMAGE[kind](manifest.read_bytes())
    manifest.write_bytes(damaged)
    hint = f"restore an earlier one with 'quiver restore {os.fspath(path)} --version 3'"

    for attempt in (
        lambda: quiver.scan(path).collect(),
        lambda: quiver.write_dataset(table(500, 5), path, mode="append"),
        lambda: quiver.write_dataset(table(500, 5), path, mode="overwrite"),
        lambda: quiver.delete(path, pl.col("id") == 20),
        lambda: quiver.create_index(path, "cat", "bitmap"),
    ):
        with pytest.raises(quiver.QuiverError) as info:
            attempt()
        message = str(info.value)
        assert "the latest version 4 is damaged (_versions/4.manifest: " in message
        assert hint in message
    if kind != "garbage":
        assert kind in message

    assert_frame_equal(quiver.scan(path, version=3).collect(), expected)  # the version before reads
    with pytest.raises(quiver.QuiverError, match="cannot restore version 4: it is damaged"):
        quiver.restore(path, 4)
    with pytest.raises(quiver.NotFound, match="cannot restore version 9: it does not exist"):
        quiver.restore(path, 9)
    assert sorted(os.listdir(path / "_versions")) == [f"{v}.manifest" for v in (1, 2, 3, 4)]

    assert quiver.restore(path, 3) == 5
    assert_frame_equal(quiver.scan(path).collect(), expected)
    assert [ix.name for ix in quiver.list_indices(path)] == ["id_idx"]
    assert quiver.write_dataset(table(200, 20), path, mode="append") == 6
    assert quiver.delete(path, pl.col("id") == 20) == (1, 7)
    got = quiver.scan(path).filter(pl.col("id") >= 15).collect().sort("id")
    want = pl.concat([expected, table(200, 20)]).filter((pl.col("id") >= 15) & (pl.col("id") != 20)).sort("id")
    assert_frame_equal(got, want)
    assert manifest.read_bytes() == damaged  # history is never rewritten


def test_restore_an_older_version(tmp_path):
    path = tmp_path / "ds"
    quiver.write_dataset(table(0, 30), path)
    quiver.write_dataset(table(30, 30), path, mode="overwrite")
    assert quiver.restore(path, 1) == 3
    assert_frame_equal(quiver.scan(path).collect(), table(0, 30))
    assert_frame_equal(quiver.scan(path, version=2).collect(), table(30, 30))
    with pytest.raises(quiver.QuiverError, match="versions start at 1"):
        quiver.restore(path, 0)
    with pytest.raises(quiver.NotFound):
        quiver.restore(tmp_path / "nowhere", 1)
    assert "restore" in quiver.__all__
