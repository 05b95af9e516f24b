"""quiver on Ray (docs/writes.md "Distributed writes"): read a dataset as a
``ray.data.Dataset`` with one read task per fragment (or group of fragments),
the filter and projection pushed into each task's quiver scan; write a Ray
dataset as fragments in its tasks and commit them once from the driver.

Every task reads and writes the dataset's directory, so it must be a path
every node sees (one machine, or a shared file system).  Ray is imported
here only: ``import quiver`` does not need it.
"""

from __future__ import annotations

import os
from typing import Any

import polars as pl
import pyarrow as pa
import ray
import ray.data
from ray.data.block import BlockMetadata
from ray.data.datasource import Datasource, ReadTask

import quiver
from quiver._quiver import Scanner
from quiver._quiver import commit_fragments as _commit_fragments
from quiver._quiver import fragments as _fragments
from quiver._quiver import write_fragments as _write_fragments


def _scan_kwargs(filter: Any, columns: list[str] | None, version: int) -> dict[str, Any]:
    kw: dict[str, Any] = {"version": version, "exact_batches": False}
    if columns is not None:
        kw["columns"] = list(columns)
    if isinstance(filter, pl.Expr):
        kw["polars_json"] = filter.meta.serialize(format="json")
    elif isinstance(filter, str):
        kw["filter"] = filter
    elif filter is not None:
        raise TypeError(f"filter must be a polars expression or Lance SQL text, not {type(filter).__name__}")
    return kw


def _read_fragments(path: str, ids: list[int], kw: dict[str, Any]) -> list[pa.Table]:
    scanner = Scanner(path, fragments=ids, **kw)
    return [pa.RecordBatchReader.from_stream(scanner).read_all()]


class QuiverDatasource(Datasource):
    """One ``ReadTask`` per group of ``fragments_per_task`` fragments of one
    version (the version is fixed when the datasource is made, so every task
    reads the same one)."""

    def __init__(self, path: str, *, filter: Any = None, columns: list[str] | None = None,
                 version: int | None = None, fragments_per_task: int = 1):
        self._path = os.fspath(path)
        self._version = version or quiver.Dataset(self._path, 0).version
        self._frags = _fragments(self._path, self._version)
        self._kw = _scan_kwargs(filter, columns, self._version)
        self._per_task = max(1, int(fragments_per_task))

    def estimate_inmemory_data_size(self) -> int | None:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None):
        tasks = []
        for start in range(0, len(self._frags), self._per_task):
            group = self._frags[start:start + self._per_task]
            ids = [f[0] for f in group]
            rows = sum(f[1] - f[2] for f in group)
            meta = BlockMetadata(num_rows=None if self._kw.get("filter") or self._kw.get("polars_json") else rows,
                                 size_bytes=None, exec_stats=None, input_files=tuple(f[3] for f in group))
            path, kw = self._path, self._kw
            tasks.append(ReadTask(lambda ids=ids, path=path, kw=kw: _read_fragments(path, ids, kw), meta))
        return tasks


def read_dataset(path: str | os.PathLike[str], *, filter: Any = None, columns: list[str] | None = None,
                 version: int | None = None, fragments_per_task: int = 1) -> "ray.data.Dataset":
    """The rows of the dataset at ``path`` (its latest version, or
    ``version``) as a Ray dataset with one read task per
    ``fragments_per_task`` fragments.  ``filter`` (a Polars expression or
    Lance SQL text) and ``columns`` are pushed into each task's scan (page
    pruning, indices), as ``quiver.scan`` does."""
    ds = QuiverDatasource(os.fspath(path), filter=filter, columns=columns, version=version,
                          fragments_per_task=fragments_per_task)
    return ray.data.read_datasource(ds)


def _write_block(batch: pa.Table, path: str, max_rows_per_file: int) -> dict[str, list[str]]:
    if batch.num_rows == 0:
        return {"set": []}
    return {"set": [_write_fragments(batch, path, max_rows_per_file=max_rows_per_file)]}


def write_dataset(ds: "ray.data.Dataset", path: str | os.PathLike[str], *, mode: str = "append",
                  max_rows_per_file: int | None = None) -> int:
    """Writes a Ray dataset: each block's rows become data files in the task
    that holds it (``write_fragments``), and the driver commits all of them
    as one version (``commit_fragments``, mode "append", "create" or
    "overwrite"); returns it.  Nothing is published unless every task
    succeeded; files of failed attempts are orphans ``cleanup`` removes."""
    p = os.fspath(path)
    sets = ds.map_batches(_write_block, batch_format="pyarrow", batch_size=None,
                          fn_kwargs={"path": p, "max_rows_per_file": max_rows_per_file or 0})
    collected = [s for row in sets.take_all() for s in (row["set"] if isinstance(row["set"], list) else [row["set"]])]
    return _commit_fragments(p, collected, mode)
