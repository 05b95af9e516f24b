"""quiver.merge against pylance's merge_insert (pinned in requirements.txt)
and against a Polars join written out as the oracle, on the same generated
data: the same target, the same source, each when-matched / not-matched
variant; the resulting rows are compared as sorted frames.

Data: an int64 key with nulls, a second (string) key for the two-column
variant, and value columns of every common type (int32, float64 with NaN,
string, bool, date, timestamp[us]).  Null keys match nothing in all three.
"""

import datetime as dt
import random

import polars as pl
import pyarrow as pa
import pytest

import quiver

lance = pytest.importorskip("lance")


def _frame(rng: random.Random, ids: list, tag: str) -> pl.DataFrame:
    n = len(ids)
    base = dt.datetime(2024, 1, 1)
    return pl.DataFrame(
        {
            "id": pl.Series(ids, dtype=pl.Int64),
            "k": pl.Series([f"k{(i or 0) % 4}" for i in ids], dtype=pl.String),
            "a": pl.Series([rng.randint(-1000, 1000) if rng.random() > 0.1 else None for _ in range(n)],
                           dtype=pl.Int32),
            "f": pl.Series([float("nan") if rng.random() < 0.05 else rng.random() for _ in range(n)],
                           dtype=pl.Float64),
            "s": pl.Series([f"{tag}{rng.randint(0, 50)}" if rng.random() > 0.1 else None for _ in range(n)],
                           dtype=pl.String),
            "b": pl.Series([rng.random() < 0.5 for _ in range(n)], dtype=pl.Boolean),
            "d": pl.Series([dt.date(2020, 1, 1) + dt.timedelta(days=rng.randint(0, 2000)) for _ in range(n)],
                           dtype=pl.Date),
            "t": pl.Series([base + dt.timedelta(seconds=rng.randint(0, 10**7)) for _ in range(n)],
                           dtype=pl.Datetime("us")),
        }
    )


def _data(seed: int):
    rng = random.Random(seed)
    target_ids = list(range(0, 3000, 2)) + [None] * 20
    rng.shuffle(target_ids)
    # half the source matches (even ids), half is new (odd ids, > 3000), some null keys
    src_ids = rng.sample(range(0, 3000, 2), 400) + rng.sample(range(1, 6000, 2), 300) + [None] * 7
    rng.shuffle(src_ids)
    return _frame(rng, target_ids, "t"), _frame(rng, src_ids, "s")


def _sorted(df: pl.DataFrame) -> pl.DataFrame:
    cols = df.columns
    # NaN compares unequal to itself: compare its bits as text
    return df.with_columns(pl.col("f").cast(pl.String)).sort(cols, nulls_last=True)


def _lance_result(tmp_path, target, source, on, matched, insert, delete_nm) -> pl.DataFrame:
    path = str(tmp_path / "lance")
    ds = lance.write_dataset(target.to_arrow(), path)
    b = ds.merge_insert(on)
    if matched == "update":
        b = b.when_matched_update_all()
    elif matched == "delete":
        b = b.when_matched_delete()
    if insert:
        b = b.when_not_matched_insert_all()
    if delete_nm:
        b = b.when_not_matched_by_source_delete()
    b.execute(source.to_arrow())
    return pl.from_arrow(lance.dataset(path).to_table())


def _polars_oracle(target, source, on, matched, insert, delete_nm) -> pl.DataFrame:
    keys = [on] if isinstance(on, str) else on
    valid_t = target.filter(pl.all_horizontal([pl.col(k).is_not_null() for k in keys]))
    valid_s = source.filter(pl.all_horizontal([pl.col(k).is_not_null() for k in keys]))
    matched_t = target.join(valid_s.select(keys), on=keys, how="semi")
    unmatched_t = target.join(valid_s.select(keys), on=keys, how="anti")
    unmatched_s = source.join(valid_t.select(keys), on=keys, how="anti")
    matched_s = source.join(valid_t.select(keys), on=keys, how="semi")
    parts = []
    if not delete_nm:
        parts.append(unmatched_t)
    if matched == "nothing":
        parts.append(matched_t)
    elif matched == "update":
        parts.append(matched_s)
    if insert:
        parts.append(unmatched_s)
    return pl.concat(parts)


def _quiver_result(tmp_path, target, source, on, matched, insert, delete_nm) -> pl.DataFrame:
    path = str(tmp_path / "quiver")
    quiver.write_dataset(target, path, max_rows_per_file=500, page_rows=128)
    res = quiver.merge(
        path,
        source,
        on=on,
        when_matched=matched,
        when_not_matched="insert" if insert else "nothing",
        when_not_matched_by_source="delete" if delete_nm else "keep",
    )
    got = quiver.scan(path).collect()
    assert res.version == (2 if (res.inserted + res.updated + res.deleted) else 1)
    return got


VARIANTS = [
    ("id", "update", True, False),
    ("id", "update", False, False),
    ("id", "nothing", True, False),
    ("id", "delete", False, False),
    ("id", "update", True, True),
    (["id", "k"], "update", True, False),
]


@pytest.mark.parametrize("on,matched,insert,delete_nm", VARIANTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_merge_matches_lance_and_polars(tmp_path, seed, on, matched, insert, delete_nm):
    target, source = _data(seed)
    got = _sorted(_quiver_result(tmp_path, target, source, on, matched, insert, delete_nm))
    want = _sorted(_polars_oracle(target, source, on, matched, insert, delete_nm))
    assert got.equals(want, null_equal=True), "quiver differs from the Polars oracle"
    ref = _sorted(_lance_result(tmp_path, target, source, on, matched, insert, delete_nm))
    assert got.equals(ref, null_equal=True), "quiver differs from pylance's merge_insert"


def test_merge_counts_and_duplicates(tmp_path):
    path = str(tmp_path / "ds")
    quiver.write_dataset(pl.DataFrame({"id": [1, 2, 3], "v": ["a", "b", "c"]}), path)
    res = quiver.merge(path, pl.DataFrame({"id": [2, 4], "v": ["B", "D"]}), on="id")
    assert res == quiver.MergeResult(version=2, inserted=1, updated=1, deleted=0)
    assert quiver.scan(path).collect().sort("id").to_dict(as_series=False) == {
        "id": [1, 2, 3, 4],
        "v": ["a", "B", "c", "D"],
    }
    with pytest.raises(quiver.InvalidInput, match=r"merge: source rows 1 and 3 have the same key \(id=5\)"):
        quiver.merge(path, pl.DataFrame({"id": [5, 6, 5], "v": ["x", "y", "z"]}), on="id")
    with pytest.raises(quiver.NotFound, match="no key column `nope`"):
        quiver.merge(path, pl.DataFrame({"id": [5], "v": ["x"]}), on=["nope"])
    # only some columns updated
    quiver.write_dataset(pl.DataFrame({"id": [1, 2], "v": ["a", "b"], "w": [10, 20]}), path, mode="overwrite")
    res = quiver.merge(path, pl.DataFrame({"id": [2], "v": ["new"], "w": [99]}), on="id", update_columns=["w"])
    assert res.updated == 1
    assert quiver.scan(path).collect().sort("id").to_dict(as_series=False) == {
        "id": [1, 2],
        "v": ["a", "b"],
        "w": [10, 99],
    }
    # a pyarrow table works as a source too
    res = quiver.merge(path, pa.table({"id": pa.array([3], pa.int64()), "v": ["c"], "w": pa.array([30], pa.int64())}),
                       on="id")
    assert res.inserted == 1
