"""Duplicate column names: pyarrow allows a table with two columns named
``a`` (Polars does not), but a dataset cannot hold one, since a filter or a
projection names a column.  write_dataset refuses it, names both positions,
and writes nothing: no directory for a new dataset, no version for an
append or an overwrite.  Two fields of one struct with one name likewise.
"""

import os

import pytest

try:
    import pyarrow as pa
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! pyarrow cannot be imported (%s): the duplicate-name tests are SKIPPED. "
        "Run scripts/pyenv.sh and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package cannot be imported (%s): the duplicate-name tests are SKIPPED. "
        "Run make pypackage. !!!" % exc,
        allow_module_level=True,
    )


def dup_table() -> pa.Table:
    return pa.table([pa.array([1, 2]), pa.array(["x", "y"]), pa.array([3, 4])], names=["a", "b", "a"])


def test_create_refused_and_nothing_written(tmp_path):
    path = tmp_path / "ds"
    with pytest.raises(quiver.InvalidInput) as info:
        quiver.write_dataset(dup_table(), path)
    assert str(info.value) == "write: column 3 `a` has the same name as column 1"
    assert not path.exists()


def test_append_and_overwrite_publish_nothing(tmp_path):
    path = tmp_path / "ds"
    good = pa.table([pa.array([1, 2]), pa.array(["x", "y"])], names=["a", "b"])
    assert quiver.write_dataset(good, path) == 1
    before = sorted(os.listdir(path / "_versions"))
    for mode in ("append", "overwrite"):
        with pytest.raises(quiver.InvalidInput, match="column 3 `a` has the same name as column 1"):
            quiver.write_dataset(dup_table(), path, mode=mode)
    assert sorted(os.listdir(path / "_versions")) == before
    assert quiver.scan(path).collect().to_dict(as_series=False) == {"a": [1, 2], "b": ["x", "y"]}


def test_struct_fields_refused(tmp_path):
    path = tmp_path / "ds"
    s = pa.StructArray.from_arrays(
        [pa.array([1]), pa.array([2]), pa.array(["z"])],
        fields=[pa.field("x", pa.int64()), pa.field("y", pa.int64()), pa.field("x", pa.string())],
    )
    t = pa.table([pa.array([1]), s], names=["id", "s"])
    with pytest.raises(quiver.InvalidInput) as info:
        quiver.write_dataset(t, path)
    assert str(info.value) == "write: field 3 `s.x` has the same name as field 1 of struct `s`"
    assert not path.exists()


def test_names_differing_in_case_are_kept(tmp_path):
    # Polars keeps both; a filter names one exactly.
    path = tmp_path / "ds"
    t = pa.table([pa.array([1, 2]), pa.array([20, 10])], names=["a", "A"])
    assert quiver.write_dataset(t, path) == 1
    import polars as pl

    got = quiver.scan(path).filter(pl.col("A") > 15).collect()
    assert got.to_dict(as_series=False) == {"a": [1], "A": [20]}
