"""quiver's exception classes: every error libquiver reports is a
quiver.QuiverError (a ValueError) of the subclass its status code maps to,
with the C message as str(e), the code as e.code and its name as e.status.

Each class is raised here by a real call (a bad filter, a damaged data
file, a Polars construct libquiver does not know, a missing column, ...),
never by constructing it, and `except quiver.QuiverError` still catches
every one of them.
"""

import os

import pytest

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! polars cannot be imported (%s): the quiver error tests are SKIPPED. "
        "Run `make pyenv` and use .venv/bin/python -m pytest. !!!" % exc,
        allow_module_level=True,
    )
try:
    import quiver
except ImportError as exc:  # pragma: no cover - depends on the environment
    pytest.skip(
        "!!! the quiver package is not installed (%s): its tests are SKIPPED. "
        "`make test-python` installs it with `pip install .` into .venv. !!!" % exc,
        allow_module_level=True,
    )

# qv_status values (include/quiver/base.h) and their names (qv_status_string)
INVALID, IO, CORRUPT, PARSE, TYPE, NOT_FOUND, UNSUPPORTED, EXISTS = 1, 3, 4, 5, 6, 7, 8, 10

SUBCLASSES = [
    quiver.InvalidInput,
    quiver.UnsupportedExpression,
    quiver.CorruptData,
    quiver.NotFound,
    quiver.AlreadyExists,
    quiver.CommitConflict,
]


@pytest.fixture()
def dataset(tmp_path):
    path = tmp_path / "ds"
    df = pl.DataFrame({"id": list(range(1000)), "text": ["w%d" % i for i in range(1000)]})
    quiver.write_dataset(df, path)
    return path


def raised(call):
    """The QuiverError call raises (the test fails if it raises none)."""
    with pytest.raises(quiver.QuiverError) as info:
        call()
    return info.value


def check(err, cls, code, status, message=None):
    assert type(err) is cls, "%s raised %s" % (err, type(err).__name__)
    assert isinstance(err, quiver.QuiverError) and isinstance(err, ValueError)
    assert err.code == code
    assert err.status == status
    if message is not None:
        assert str(err) == message


def test_the_hierarchy():
    assert issubclass(quiver.QuiverError, ValueError)
    for cls in SUBCLASSES:
        assert cls.__bases__ == (quiver.QuiverError,)
        assert cls.__module__ == "quiver"
        assert cls.__name__ in quiver.__all__
        assert cls.__doc__
    # Distinct classes: none catches another's errors.
    for a in SUBCLASSES:
        for b in SUBCLASSES:
            assert issubclass(a, b) == (a is b)


def test_a_bad_filter_is_invalid_input(dataset):
    err = raised(lambda: quiver.Scanner(str(dataset), filter="id >"))
    check(err, quiver.InvalidInput, PARSE, "parse error", "filter: expected an expression at column 5, found end of input")
    err = raised(lambda: quiver.Scanner(str(dataset), filter="id = 'x'"))
    check(err, quiver.InvalidInput, TYPE, "type error")
    err = raised(lambda: quiver.Scanner(str(dataset), polars_json=(pl.col("id") ^ 3 == 1).meta.serialize(format="json")))
    check(err, quiver.InvalidInput, TYPE, "type error", "filter: XOR expects boolean operands, got int64")
    err = raised(lambda: quiver.to_bigquery_filter(pl.col("id") > 1, "[{"))
    check(err, quiver.InvalidInput, PARSE, "parse error")
    err = raised(lambda: quiver.to_bigquery_filter(pl.col("a.b") > 1))
    check(err, quiver.InvalidInput, INVALID, "invalid argument")


def test_a_write_of_another_schema_is_invalid_input(dataset):
    err = raised(lambda: quiver.write_dataset(pl.DataFrame({"x": [1.5]}), dataset, mode="append"))
    check(err, quiver.InvalidInput, TYPE, "type error")


def test_a_damaged_data_file_is_corrupt_data(dataset):
    (name,) = os.listdir(dataset / "data")
    data_file = dataset / "data" / name
    data = bytearray(data_file.read_bytes())
    data[40] ^= 0x55  # inside the first page of column `id`
    data_file.write_bytes(bytes(data))
    message = "scan of data/%s: column `id` page 0: checksum mismatch at byte offset 8" % name
    err = raised(lambda: list(quiver.Scanner(str(dataset))))
    check(err, quiver.CorruptData, CORRUPT, "corrupt data", message)
    # Through Polars' collect the class survives too.
    err = raised(lambda: quiver.scan(dataset).collect())
    check(err, quiver.CorruptData, CORRUPT, "corrupt data", message)


def test_a_polars_construct_quiver_does_not_know_is_unsupported(dataset):
    pred = pl.col("text").str.reverse() == "cba"
    err = raised(lambda: quiver.Scanner(str(dataset), polars_json=pred.meta.serialize(format="json")))
    check(
        err,
        quiver.UnsupportedExpression,
        UNSUPPORTED,
        "unsupported",
        "filter: the Polars construct StringExpr.Reverse is not supported by quiver",
    )
    err = raised(lambda: quiver.delete(dataset, pl.col("id").rolling_mean(3) > 1))
    check(
        err,
        quiver.UnsupportedExpression,
        UNSUPPORTED,
        "unsupported",
        "filter: the Polars construct RollingExpr is not supported by quiver",
    )
    assert quiver.Dataset(str(dataset)).version == 1  # nothing was deleted
    # quiver.scan does not raise it: the class is what sends the predicate
    # to Polars instead.
    got = quiver.scan(dataset).filter(pred).collect()
    assert got.height == 0
    assert quiver.last_scan.pushed is False
    assert quiver.last_scan.fallback == str(err).replace("RollingExpr", "StringExpr.Reverse")


def test_a_missing_column_dataset_or_index_is_not_found(dataset, tmp_path):
    err = raised(lambda: quiver.Scanner(str(dataset), polars_json=(pl.col("nope") > 1).meta.serialize(format="json")))
    check(err, quiver.NotFound, NOT_FOUND, "not found", "filter: no column `nope` (columns: id, text)")
    err = raised(lambda: quiver.Scanner(str(dataset), columns=["zz"]))
    check(err, quiver.NotFound, NOT_FOUND, "not found", "select: no column `zz` (columns: id, text)")
    err = raised(lambda: quiver.scan(tmp_path / "missing"))
    check(err, quiver.NotFound, NOT_FOUND, "not found")
    err = raised(lambda: quiver.scan(dataset, version=9))
    check(err, quiver.NotFound, NOT_FOUND, "not found", "%s: version 9 does not exist" % dataset)
    err = raised(lambda: quiver.drop_index(dataset, "nope"))
    check(err, quiver.NotFound, NOT_FOUND, "not found")


def test_creating_what_is_there_already_exists(dataset):
    err = raised(lambda: quiver.write_dataset(pl.DataFrame({"id": [1], "text": ["a"]}), dataset))
    check(err, quiver.AlreadyExists, EXISTS, "already exists")
    quiver.create_index(dataset, "id", "btree")
    err = raised(lambda: quiver.create_index(dataset, "id", "btree"))
    check(err, quiver.AlreadyExists, EXISTS, "already exists")


def test_other_errors_are_quiver_error_itself(tmp_path):
    (tmp_path / "file").write_text("x")
    target = tmp_path / "file" / "ds"
    err = raised(lambda: quiver.write_dataset(pl.DataFrame({"a": [1]}), target))
    check(err, quiver.QuiverError, IO, "I/O error", "%s: cannot create directory: Not a directory" % target)


def test_except_quiver_error_catches_them_all(dataset, tmp_path):
    (tmp_path / "file").write_text("x")
    calls = [
        lambda: quiver.Scanner(str(dataset), filter="id >"),
        lambda: quiver.Scanner(str(dataset), polars_json=(pl.col("text").str.reverse() == "x").meta.serialize(format="json")),
        lambda: quiver.Scanner(str(dataset), columns=["zz"]),
        lambda: quiver.write_dataset(pl.DataFrame({"id": [1], "text": ["a"]}), dataset),
        lambda: quiver.write_dataset(pl.DataFrame({"a": [1]}), tmp_path / "file" / "ds"),
    ]
    seen = []
    for call in calls:
        try:
            call()
        except quiver.QuiverError as err:
            seen.append(type(err))
        else:
            raise AssertionError("no error raised")
    assert seen == [
        quiver.InvalidInput,
        quiver.UnsupportedExpression,
        quiver.NotFound,
        quiver.AlreadyExists,
        quiver.QuiverError,
    ]
