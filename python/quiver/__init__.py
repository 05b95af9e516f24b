"""quiver: scan quiver datasets from Polars, with the work pushed into C.

    >>> import polars as pl, quiver
    >>> lf = quiver.scan("my-ds")                      # a real pl.LazyFrame
    >>> lf.filter(pl.col("val") > 0.999).select("id").head(10).collect()
    >>> quiver.to_lance_filter(pl.col("cat").str.starts_with("b") & pl.col("id").is_in([1, 2]))
    LanceFilter(sql="(starts_with(`cat`, 'b') AND (`id` IN (1, 2)))", exact=True)
    >>> quiver.to_bigquery_filter(pl.col("score") > 0.5, [{"name": "score", "type": "FLOAT64"}])
    BigQueryFilter(sql='((`score` > 0.5) OR IS_NAN(`score`))', exact=True)
    >>> quiver.write_dataset(df, "my-ds", mode="append")   # a new version from any Arrow stream
    >>> quiver.create_index("my-ds", "id", "btree")          # scans use it when it pays
    >>> g = quiver.Graph("my-graph")                         # made by `quiver graph create`
    >>> g.cypher("MATCH (a:Person)-[:KNOWS]->(b) WHERE a.age > $age RETURN b.name", {"age": 30})

The C extension ``quiver._quiver`` runs libquiver: the projection, the
predicate and the row limit that Polars' optimizer hands to the scan go into
libquiver's scanner (page pruning, filter-first evaluation with Polars
semantics, late materialization), and its batches cross into Polars through
the Arrow C stream interface (PyCapsule ``__arrow_c_stream__``), sharing the
buffers instead of copying them.  This module is only the glue Polars needs
(``polars.io.plugins.register_io_source``) and the conversion of Polars
objects (expressions serialized to JSON, schemas as empty DataFrames).

Fallback: a predicate libquiver cannot take (a Polars construct it does not
know, such as a newer Polars' function; an operator or type rule its binder
does not have, such as ``(pl.col("id") ^ 1) > 2``) is not pushed: the scan
then runs without a filter in C and Polars applies the predicate to every
batch, so the answer is plain Polars'.  ``quiver.last_scan`` (a
``ScanReport``) records for the most recent scan whether the predicate was
pushed and, if not, why (``fallback``, ``fallback_status``).
``quiver.scan(path, strict=True)`` raises instead.  Whether to fall back is
decided by the error's class and by when it happens (binding the predicate
to the schema, reading no data), never by its text: a damaged file, an I/O
error or a strict cast failing on a row is raised, as Polars would raise it.
Predicates that are not row by row (aggregations, windows, shift, cum_sum,
fill_null strategies) never reach the scan: Polars keeps such a filter, all
of it, above the scan and hands it no predicate (``last_scan.predicate`` is
None).

Damaged indices: an index file that cannot be read (damaged, cut short,
missing) does not fail the scan.  libquiver filters that fragment in full
from the data files, ``quiver.last_scan.index_fallbacks`` lists (index,
fragments, first error), and an ``IndexFallbackWarning`` is issued.  Repair
with ``quiver.optimize_indices(path, NAME, rebuild=True)`` (or ``quiver index
optimize DATASET NAME --rebuild``); ``quiver.list_indices`` names the damaged
files.

Errors reported by libquiver raise ``quiver.QuiverError`` (a ValueError)
or one of its subclasses, chosen by the error's status code, with the C
message as ``str(e)``, the code as ``e.code`` and its name as ``e.status``
("not found", "parse error", ...):

- ``InvalidInput``: a bad argument, filter or expression text, types that
  do not fit (status "invalid argument", "parse error", "type error");
- ``UnsupportedExpression``: valid, but libquiver cannot bind or evaluate
  it yet, such as a Polars construct it does not know ("unsupported");
- ``CorruptData``: a file's bytes are not what the format allows ("corrupt
  data");
- ``NotFound``: no such dataset, version, column, field or index ("not
  found");
- ``AlreadyExists``: the dataset or index to create is there already
  ("already exists");
- ``CommitConflict``: another writer committed the version first; retry
  ("conflict");
- ``Cancelled``: the work stopped because its cancel flag was raised
  ("cancelled"); Ctrl-C during a Cypher query in the main thread raises
  ``KeyboardInterrupt`` instead (the query stops at its next batch);
- ``QuiverError`` itself: everything else ("I/O error", "overflow", "out of
  memory").

Tell errors apart by class (or ``e.code``), not by message text:
``except quiver.QuiverError`` catches them all.

Memory: libquiver keeps some freed blocks of 256 KiB and more (at most 16
MiB) for its next scans; ``quiver.memory_trim()`` gives them back.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl
from polars.io.plugins import register_io_source

from quiver._quiver import LIBQUIVER_VERSION, Batch, BigQueryFilter, Dataset, LanceFilter, QuiverError, Scanner
from quiver._quiver import Graph as _Graph
from quiver._quiver import cypher_literal
from quiver._quiver import AlreadyExists, Cancelled, CommitConflict, CorruptData, InvalidInput, NotFound
from quiver._quiver import UnsupportedExpression
from quiver._quiver import batches_stream as _batches_stream
from quiver._quiver import create_index as _create_index
from quiver._quiver import delete as _delete
from quiver._quiver import drop_index as _drop_index
from quiver._quiver import list_indices as _list_indices
from quiver._quiver import memory_trim
from quiver._quiver import optimize_indices as _optimize_indices
from quiver._quiver import cleanup as _cleanup
from quiver._quiver import compact as _compact
from quiver._quiver import commit_fragments as _commit_fragments
from quiver._quiver import fragments as _fragments
from quiver._quiver import merge as _merge
from quiver._quiver import write_fragments as _write_fragments
from quiver._quiver import tag as _tag
from quiver._quiver import tags as _tags
from quiver._quiver import untag as _untag
from quiver._quiver import versions as _versions
from quiver._quiver import restore as _restore
from quiver._quiver import write_batches as _write_batches
from quiver._quiver import write_dataset as _write_dataset
from quiver._quiver import explain_bigquery_filter as _explain_bigquery_filter
from quiver._quiver import explain_lance_filter as _explain_lance_filter
from quiver._quiver import to_bigquery_filter as _to_bigquery_filter
from quiver._quiver import to_lance_filter as _to_lance_filter

__all__ = [
    "AlreadyExists",
    "Batch",
    "BigQueryFilter",
    "Cancelled",
    "CommitConflict",
    "CorruptData",
    "Dataset",
    "Graph",
    "IndexFallbackWarning",
    "IndexInfo",
    "InvalidInput",
    "LanceFilter",
    "NotFound",
    "QuiverError",
    "ScanReport",
    "Scanner",
    "UnsupportedExpression",
    "count",
    "create_index",
    "cypher_literal",
    "delete",
    "drop_index",
    "explain_bigquery_filter",
    "explain_lance_filter",
    "last_scan",
    "list_indices",
    "memory_trim",
    "optimize_indices",
    "restore",
    "scan",
    "to_bigquery_filter",
    "to_lance_filter",
    "write_dataset",
    "sink",
    "write_fragments",
    "commit_fragments",
    "fragments",
    "merge",
    "MergeResult",
    "optimize",
    "OptimizeResult",
    "cleanup",
    "CleanupResult",
    "tag",
    "untag",
    "tags",
    "versions",
    "VersionInfo",
]
__version__ = LIBQUIVER_VERSION


@dataclasses.dataclass
class ScanReport:
    """What one scan of a ``quiver.scan`` LazyFrame did (see ``quiver.last_scan``)."""

    path: str
    version: int
    columns: list[str] | None  # the projection Polars pushed (None: every column)
    predicate: str | None  # the predicate Polars pushed, as Polars prints it
    limit: int | None  # the row limit Polars pushed
    pushed: bool  # the predicate ran in libquiver
    fallback: str | None  # why Polars evaluated the predicate instead: libquiver's message
    batches: int = 0
    rows: int = 0
    explain: str | None = None  # libquiver's plan of the scan
    counters: dict[str, int] | None = None  # libquiver's counters at the end
    # indices whose files could not be read: (name, fragments, first error);
    # libquiver filtered those fragments in full, so the rows are still right
    index_fallbacks: list[tuple[str, int, str]] = dataclasses.field(default_factory=list)
    # the kind of reason for the fallback: the status of libquiver's error
    # ("unsupported", "type error", "parse error", "not found", "invalid
    # argument") or "no JSON form" (the predicate could not be serialized)
    fallback_status: str | None = None


last_scan: ScanReport | None = None

SCAN_BATCH_ROWS = 8192  # most rows in a scanner batch (the chunks of the frames a scan hands Polars)
# ... when every projected column is fixed-width.  Those scans join the
# scanner's page pieces into batches of exactly this many rows: copying
# fixed-width values is cheap, and fewer chunks cost Polars less (a count
# over 1M of 2M rows: 31 -> 29 ms).  Scans with strings take the pieces as
# they come (exact_batches=False): joining them copied every selected value
# (`cat == 'c3'`, 64 MB of 256-byte strings: 123 -> 99 ms).
FIXED_WIDTH_BATCH_ROWS = 65536


def _chunking(schema: pl.Schema, columns: list[str] | None) -> tuple[int, bool]:
    """Rows per scanner batch, and whether the scanner joins pieces into
    batches of exactly that many rows."""
    names = schema.names() if columns is None else columns
    fixed = all(
        schema[n].is_numeric() or schema[n].is_temporal() or schema[n] == pl.Boolean for n in names if n in schema
    )
    return (FIXED_WIDTH_BATCH_ROWS, True) if fixed else (SCAN_BATCH_ROWS, False)


class IndexFallbackWarning(UserWarning):
    """A scalar index file could not be read; its fragments were filtered in full."""


def _finish(scanner: Scanner, report: ScanReport) -> None:
    """Records the scanner's counters (and any index it could not read) in report."""
    report.counters = scanner.counters()
    report.index_fallbacks = scanner.index_fallbacks()
    for name, fragments, error in report.index_fallbacks:
        warnings.warn(
            f"index {name} unusable for {fragments} fragment(s): {error}; those fragments were filtered in full",
            IndexFallbackWarning,
            stacklevel=2,
        )


def _schema_source(schema: Any) -> pl.DataFrame | None:
    """An empty DataFrame whose Arrow stream carries the column types."""
    if schema is None:
        return None
    if isinstance(schema, pl.DataFrame):
        return schema.clear()
    if isinstance(schema, (pl.Schema, Mapping)):
        return pl.DataFrame(schema=pl.Schema(schema))
    msg = f"schema must be a dict of column name -> Polars dtype, a pl.Schema or None, not {type(schema).__name__}"
    raise TypeError(msg)


def _expr_json(expr: pl.Expr) -> str:
    if not isinstance(expr, pl.Expr):
        msg = f"expected a polars Expr, not {type(expr).__name__}"
        raise TypeError(msg)
    return expr.meta.serialize(format="json")


def to_lance_filter(expr: pl.Expr, schema: Any = None) -> LanceFilter | None:
    """Translates a Polars expression into a Lance SQL filter.

    Returns ``LanceFilter(sql, exact)`` (exact=False: the filter keeps a
    superset of the rows, the caller must re-apply the expression) or None
    when nothing translates.  ``schema`` (a dict name -> dtype or a
    pl.Schema) gives the column types; without it only what is safe for
    every column type translates.
    """
    return _to_lance_filter(_expr_json(expr), _schema_source(schema))


def explain_lance_filter(expr: pl.Expr, schema: Any = None) -> str:
    """Why parts of ``expr`` do not translate: one line per node that declined
    (or conjunct that was dropped) with the reason, or "nothing declined"."""
    return _explain_lance_filter(_expr_json(expr), _schema_source(schema))


def _bigquery_schema_source(schema: Any) -> str | pl.DataFrame | None:
    """A BigQuery table schema (JSON text, or the list of field dicts that
    `bq show --schema` prints, or {"fields": [...]}) as JSON text; anything
    else as for the Lance translator."""
    if isinstance(schema, str):
        return schema
    if isinstance(schema, list) or (isinstance(schema, Mapping) and "fields" in schema):
        return json.dumps(schema)
    return _schema_source(schema)


def to_bigquery_filter(expr: pl.Expr, schema: Any = None) -> BigQueryFilter | None:
    """Translates a Polars expression into a BigQuery Storage Read API
    ``row_restriction``.

    Returns ``BigQueryFilter(sql, exact)`` (exact=False: a superset; re-apply
    ``expr`` to the streamed batches, which is always safe) or None when
    nothing translates.  ``schema``: a BigQuery table schema (JSON text, a
    list of {"name", "type", "mode"} dicts, or {"fields": [...]}), a dict
    name -> Polars dtype, a pl.Schema, or None (schema-less).
    """
    return _to_bigquery_filter(_expr_json(expr), _bigquery_schema_source(schema))


def explain_bigquery_filter(expr: pl.Expr, schema: Any = None) -> str:
    """Why parts of ``expr`` do not reach BigQuery: one line per node that
    declined (or conjunct that was dropped), or "nothing declined"."""
    return _explain_bigquery_filter(_expr_json(expr), _bigquery_schema_source(schema))


# What a predicate's binding can fail with when the predicate is the
# problem: text or types that do not fit (InvalidInput), a construct
# libquiver cannot run (UnsupportedExpression), a column or struct field it
# does not find (NotFound; Polars then raises its own error).  Anything else
# (out of memory) is not about the predicate and is raised.
_PREDICATE_ERRORS = (InvalidInput, UnsupportedExpression, NotFound)


def _predicate_refusal(path: str, version: int, predicate_json: str) -> QuiverError | None:
    """Why libquiver cannot take the predicate, or None when it can.

    Binds the predicate to the version's schema as the scanner would,
    reading no data.  Opening the version is kept out of the decision: a
    damaged manifest or a dataset gone since ``scan`` raises here, whatever
    its class, as it would without a predicate."""
    ds = Dataset(path, version)
    try:
        ds.bind_filter(predicate_json)
    except _PREDICATE_ERRORS as err:
        return err
    return None


def _fall_back(report: ScanReport, reason: str, status: str, strict: bool, err: Exception | None) -> None:
    """Records in report that Polars applies the predicate, or raises under
    strict=True (err itself when libquiver raised it)."""
    if strict:
        if isinstance(err, QuiverError):
            raise err
        exc = UnsupportedExpression(f"{reason} (quiver.scan(strict=True) does not hand predicates to Polars)")
        exc.code, exc.status = 8, "unsupported"  # QV_ERR_UNSUPPORTED, as libquiver would set them
        raise exc from err
    report.pushed = False
    report.fallback = reason
    report.fallback_status = status


class _Chunks:
    """Scanner batches as one Arrow stream (strings as string views), so
    that Polars takes a frame's batches in one call, each batch a chunk."""

    __slots__ = ("batches",)

    def __init__(self, batches: list[Batch]) -> None:
        self.batches = batches

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return _batches_stream(self.batches, string_views=True)


def _frames(scanner: Scanner, report: ScanReport, rows_per_frame: int) -> Iterator[pl.DataFrame]:
    """The scanner's batches as frames of about rows_per_frame rows: each
    frame holds several batches as chunks (nothing is copied), so Polars
    pays its per-frame cost once per rows_per_frame rows.  The batches of a
    frame reach Polars as one stream: a DataFrame per batch cost about 30 us
    each (`cat == 'c3'`: 245 pieces of 1,020 rows)."""
    chunks: list[Batch] = []
    rows = 0
    for batch in scanner:
        report.batches += 1
        report.rows += batch.num_rows
        chunks.append(batch)
        rows += batch.num_rows
        if rows >= rows_per_frame:
            yield pl.DataFrame(_Chunks(chunks))
            chunks, rows = [], 0
    if chunks:
        yield pl.DataFrame(_Chunks(chunks))


def scan(
    path: str | os.PathLike[str],
    *,
    predicate_pushdown: bool = True,
    use_scalar_index: bool = True,
    version: int | None = None,
    strict: bool = False,
    nearest: Mapping[str, Any] | None = None,
    prefilter: pl.Expr | str | None = None,
) -> pl.LazyFrame:
    """A lazy scan of the quiver dataset at ``path`` as a ``pl.LazyFrame``.

    With ``nearest={"column": "vec", "q": [...], "k": 10, "metric": "l2",
    "use_index": True, "nprobes": 20, "refine_factor": 1}`` it is a vector
    search (docs/vector.md): the k rows nearest to q (a matrix: one search
    per row, with a ``_query`` column) among the rows ``prefilter`` keeps (a
    Polars expression, which must translate exactly or this call raises,
    or Lance SQL text), with ``_distance``, nearest first.  A later
    ``.filter`` is a postfilter over the ranked rows (fewer than k may
    remain); ``.head(n)`` truncates them.

    The version is fixed when ``scan`` is called: ``version`` (None = the
    latest at that moment).  Projection, predicate and row limit chosen by
    Polars' optimizer run in libquiver's scanner; ``predicate_pushdown=False``
    makes it decode every needed column in full and filter afterwards (for
    measurement), ``use_scalar_index`` is passed to the scanner.  A missing
    dataset or version raises QuiverError here.

    A predicate libquiver cannot take (a construct it does not know, a type
    rule it does not have, a predicate without a JSON form) is applied by
    Polars to the unfiltered batches instead, and ``quiver.last_scan`` says
    why (``fallback``, ``fallback_status``).  ``strict=True`` raises that
    error instead (UnsupportedExpression, InvalidInput or NotFound).
    Errors that are not about the predicate (a damaged file, an I/O error,
    a strict cast failing on a row) are always raised.
    """
    ds = Dataset(os.fspath(path), 0 if version is None else version)
    ds_path, ds_version = ds.path, ds.version
    schema = pl.Schema(ds)  # through ds.__arrow_c_schema__
    del ds
    if nearest is not None:
        from quiver._nearest import scan_nearest

        opts = {"predicate_pushdown": predicate_pushdown, "use_scalar_index": use_scalar_index}
        return scan_nearest(ds_path, ds_version, nearest, prefilter, opts, _expr_json, _predicate_refusal)
    if prefilter is not None:
        raise ValueError("prefilter belongs to a vector search: give nearest={...} too (or use .filter)")

    def source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        global last_scan
        chunk_rows, exact = _chunking(schema, with_columns)
        options = {
            "predicate_pushdown": predicate_pushdown,
            "use_scalar_index": use_scalar_index,
            "version": ds_version,
            "exact_batches": exact,
        }
        # Polars' batch size hint (100,000 rows in 2.1.0) sizes the frames;
        # the scanner's batches (see _chunking) become the frames' chunks
        rows_per_frame = batch_size or chunk_rows
        if batch_size:
            options["batch_size"] = min(batch_size, chunk_rows)
        report = ScanReport(
            path=ds_path,
            version=ds_version,
            columns=with_columns,
            predicate=None if predicate is None else str(predicate),
            limit=n_rows,
            pushed=predicate is not None,
            fallback=None,
        )
        last_scan = report
        # Polars' contract (polars/io/plugins.py, checked with 2.1.0): once the
        # predicate deserialized, the source must apply it and n_rows itself;
        # Polars re-applies neither (it does re-select the projection).
        if predicate is None:
            scanner = Scanner(ds_path, columns=with_columns, limit=n_rows, **options)
            report.explain = scanner.explain()
            yield from _frames(scanner, report, rows_per_frame)
            _finish(scanner, report)
            return
        yielded = 0
        try:
            predicate_json = _expr_json(predicate)
        except Exception as err:  # e.g. a Python UDF, which has no JSON form
            _fall_back(report, f"the predicate has no JSON form: {err}", "no JSON form", strict, err)
        else:
            refusal = _predicate_refusal(ds_path, ds_version, predicate_json)
            if refusal is not None:
                _fall_back(report, str(refusal), refusal.status, strict, refusal)
            else:
                try:
                    scanner = Scanner(
                        ds_path, columns=with_columns, polars_json=predicate_json, limit=n_rows, **options
                    )
                    report.explain = scanner.explain()
                    for df in _frames(scanner, report, rows_per_frame):
                        yielded += df.height
                        yield df
                    _finish(scanner, report)
                    return
                except UnsupportedExpression as err:
                    # an operator the evaluator cannot run on these values;
                    # any other error while scanning (a damaged file, a
                    # strict cast failing on a row) is raised, as Polars
                    # would raise it
                    _fall_back(report, str(err), err.status, strict, err)
        yield from _fallback(ds_path, with_columns, predicate, n_rows, yielded, options, report)

    return register_io_source(
        source,
        schema=schema,
        explain_name="quiver",
        explain_detail=f"{ds_path} version {ds_version}",
    )


def count(
    path: str | os.PathLike[str],
    predicate: pl.Expr | str | None = None,
    *,
    version: int | None = None,
    predicate_pushdown: bool = True,
    use_scalar_index: bool = True,
) -> int:
    """The number of rows ``predicate`` keeps (None: every live row), as
    ``quiver.scan(path).filter(predicate).select(pl.len())`` counts them,
    counted in C without materializing any column.

    Only the predicate's columns are read (none where an exact index
    answers); without a predicate the manifest's row counts less its
    deleted rows answer and no data file is opened.  ``predicate`` is a
    Polars expression (Polars semantics) or Lance SQL text.  A Polars
    predicate libquiver cannot take is counted by Polars over the scan
    instead, as ``quiver.scan`` would filter it.

    Why not through Polars: for ``lf.filter(e).select(pl.len())`` Polars
    (2.1.0) hands the scan ``with_columns`` = the schema's first column plus
    the predicate's columns (``["id", "val"]``), never an empty projection,
    so the scan cannot tell a count from ``select("id")`` and returns those
    columns' values for every selected row.
    """
    path = os.fspath(path)
    options = {
        "columns": [],
        "version": 0 if version is None else version,
        "predicate_pushdown": predicate_pushdown,
        "use_scalar_index": use_scalar_index,
    }
    if predicate is None:
        return Scanner(path, **options).count()
    if isinstance(predicate, str):
        return Scanner(path, filter=predicate, **options).count()
    predicate_json = _expr_json(predicate)
    ds = Dataset(path, options["version"])
    refusal = _predicate_refusal(ds.path, ds.version, predicate_json)
    if refusal is None:
        try:
            return Scanner(ds.path, polars_json=predicate_json, **{**options, "version": ds.version}).count()
        except UnsupportedExpression:
            pass  # an operator the evaluator cannot run on these values: Polars counts
    lf = scan(ds.path, version=ds.version, predicate_pushdown=predicate_pushdown, use_scalar_index=use_scalar_index)
    return int(lf.filter(predicate).select(pl.len()).collect().item())


def _fallback(
    path: str,
    with_columns: list[str] | None,
    predicate: pl.Expr,
    n_rows: int | None,
    skip: int,
    options: dict[str, Any],
    report: ScanReport,
) -> Iterator[pl.DataFrame]:
    """The temporary fallback: scan unfiltered in C, filter with Polars.

    ``skip`` rows were already produced by a pushed scan that failed midway;
    both scans keep the dataset's row order, so the first ``skip`` matching
    rows are dropped here.
    """
    columns = None
    if with_columns is not None:
        needed = set(with_columns) | set(predicate.meta.root_names())
        columns = [c for c in _schema_names(path, options["version"]) if c in needed]
    scanner = Scanner(path, columns=columns, **options)
    report.explain = scanner.explain()
    remaining = None if n_rows is None else n_rows - skip
    report.batches = 0
    report.rows = skip
    for batch in scanner:
        if remaining is not None and remaining <= 0:
            break
        df = pl.DataFrame(batch).filter(predicate)
        if skip:
            dropped = min(skip, df.height)
            df = df.slice(dropped)
            skip -= dropped
        if with_columns is not None:
            df = df.select(with_columns)
        if remaining is not None:
            df = df.head(remaining)
            remaining -= df.height
        report.batches += 1
        report.rows += df.height
        yield df
    _finish(scanner, report)


def _schema_names(path: str, version: int) -> list[str]:
    """The dataset's column names in schema order."""
    return pl.Schema(Dataset(path, version)).names()


# ---- writing and indices ---------------------------------------------------------


def write_dataset(
    data: Any,
    path: str | os.PathLike[str],
    *,
    mode: str = "create",
    max_rows_per_file: int | None = None,
    max_bytes_per_file: int | None = None,
    page_rows: int | None = None,
    compression: str = "auto",
) -> int:
    """Writes ``data`` as a new version of the dataset at ``path``; returns
    the version.

    ``data`` is anything that exports an Arrow stream (``__arrow_c_stream__``):
    a Polars DataFrame, a pyarrow Table or RecordBatchReader (read a batch at
    a time); a Polars LazyFrame is streamed (``sink``), not collected.
    ``mode``: "create" (fails if a dataset is there), "append" (new
    fragments; creates when absent; the schema must match) or "overwrite" (a
    version with only this data; older versions stay readable).
    ``max_rows_per_file`` (default 1,048,576), ``max_bytes_per_file``
    (default: no limit; a file ends within a page of it) and ``page_rows``
    (default 8,192) shape the fragments and pages; ``compression``: "auto",
    "none", "zstd" or "lz4".  Memory does not grow with the input: batches
    are written as they arrive.  All or nothing: on any error no version is
    published.  Indices are not extended to appended rows until
    ``optimize_indices`` (scans filter those fragments in full meanwhile).
    """
    if isinstance(data, pl.LazyFrame):
        return sink(data, path, mode=mode, max_rows_per_file=max_rows_per_file,
                    max_bytes_per_file=max_bytes_per_file, page_rows=page_rows, compression=compression)
    if max_bytes_per_file:
        return _write_batches(
            iter([data]),
            os.fspath(path),
            mode=mode,
            max_rows_per_file=max_rows_per_file or 0,
            max_bytes_per_file=max_bytes_per_file,
            page_rows=page_rows or 0,
            compression=compression,
        )
    return _write_dataset(
        data,
        os.fspath(path),
        mode=mode,
        max_rows_per_file=max_rows_per_file or 0,
        page_rows=page_rows or 0,
        compression=compression,
    )


def sink(
    lf: pl.LazyFrame,
    path: str | os.PathLike[str],
    *,
    mode: str = "create",
    max_rows_per_file: int | None = None,
    max_bytes_per_file: int | None = None,
    page_rows: int | None = None,
    compression: str = "auto",
    chunk_size: int | None = None,
) -> int:
    """Runs ``lf`` on Polars' streaming engine and writes its result as a new
    version of the dataset at ``path``, a chunk at a time
    (``LazyFrame.collect_batches``, ``chunk_size`` rows each): the result is
    never held whole, so it may be larger than memory.  Options as
    ``write_dataset``; returns the version.  All or nothing."""
    if not isinstance(lf, pl.LazyFrame):
        raise TypeError(f"sink: a polars LazyFrame is required, not {type(lf).__name__}")
    frames = lf.collect_batches(chunk_size=chunk_size, lazy=True, engine="streaming")
    return _write_batches(
        frames,
        os.fspath(path),
        mode=mode,
        max_rows_per_file=max_rows_per_file or 0,
        max_bytes_per_file=max_bytes_per_file or 0,
        page_rows=page_rows or 0,
        compression=compression,
    )


def write_fragments(data: Any, path: str | os.PathLike[str], *, max_rows_per_file: int | None = None) -> str:
    """Writes ``data`` (an Arrow stream: DataFrame, pyarrow Table...) as data
    files of the dataset at ``path`` without committing; returns the
    "fragment set", a small string that ``commit_fragments`` commits, from
    this process or any other (e.g. Ray tasks writing, the driver
    committing once).  Uncommitted files are orphans ``cleanup`` removes."""
    if isinstance(data, pl.LazyFrame):
        data = data.collect(engine="streaming")
    return _write_fragments(data, os.fspath(path), max_rows_per_file=max_rows_per_file or 0)


def commit_fragments(path: str | os.PathLike[str], sets: list[str], *, mode: str = "append") -> int:
    """Commits fragment sets from ``write_fragments`` as one version (mode
    "append", "create" or "overwrite"); returns it.  Idempotent: a replay of
    sets already committed returns the version holding them."""
    return _commit_fragments(os.fspath(path), list(sets), mode)


def fragments(path: str | os.PathLike[str], version: int | None = None) -> list[dict[str, Any]]:
    """The fragments of a version: id, num_rows, num_deleted, data_file.
    ``quiver.Scanner(path, fragments=[id, ...])`` scans some of them."""
    return [
        {"id": i, "num_rows": n, "num_deleted": d, "data_file": f}
        for i, n, d, f in _fragments(os.fspath(path), version or 0)
    ]


@dataclasses.dataclass(frozen=True)
class MergeResult:
    """What ``merge`` did: the version it committed (the latest one when
    nothing changed) and the rows it inserted, updated and deleted."""

    version: int
    inserted: int
    updated: int
    deleted: int


def merge(
    path: str | os.PathLike[str],
    source: Any,
    *,
    on: str | list[str],
    when_matched: str = "update",
    when_not_matched: str = "insert",
    when_not_matched_by_source: str = "keep",
    update_columns: list[str] | None = None,
) -> MergeResult:
    """Merges (upserts) ``source`` into the dataset at ``path`` on the key
    column(s) ``on``, as one new version.

    A target row whose key equals a source row's is *matched*:
    ``when_matched`` "update" replaces it by the source row (only the
    ``update_columns`` when given), "nothing" keeps it, "delete" deletes it.
    Source rows matching nothing are inserted (``when_not_matched="insert"``)
    or dropped ("nothing"); target rows the source does not match are kept
    (``when_not_matched_by_source="keep"``) or deleted ("delete").  A key
    with a null in any of its columns matches nothing.  Two source rows with
    the same key are an error naming it (``InvalidInput``).  ``source`` is
    anything exporting an Arrow stream with the dataset's schema (a Polars
    DataFrame, a pyarrow Table; a LazyFrame is collected first); it is held
    in memory, the dataset is read fragment by fragment.  Replaced rows are
    marked in deletion files; their new values go to new fragments.
    """
    if isinstance(source, pl.LazyFrame):
        source = source.collect(engine="streaming")
    if when_not_matched not in ("insert", "nothing"):
        raise ValueError(f"when_not_matched must be one of insert, nothing, not {when_not_matched!r}")
    if when_not_matched_by_source not in ("keep", "delete"):
        raise ValueError(f"when_not_matched_by_source must be one of keep, delete, not {when_not_matched_by_source!r}")
    version, inserted, updated, deleted = _merge(
        os.fspath(path),
        source,
        on,
        when_matched=when_matched,
        insert=when_not_matched == "insert",
        delete_not_matched=when_not_matched_by_source == "delete",
        update_columns=update_columns,
    )
    return MergeResult(version, inserted, updated, deleted)


@dataclasses.dataclass(frozen=True)
class OptimizeResult:
    """What ``optimize`` did: the compaction's version (the latest one when
    nothing was rewritten), fragments rewritten and written, live rows
    copied, deleted rows dropped, and the index step's version (0 when the
    indices were up to date or not asked for)."""

    version: int
    fragments_removed: int
    fragments_added: int
    rows_rewritten: int
    rows_dropped: int
    index_version: int


def optimize(
    path: str | os.PathLike[str],
    *,
    target_rows_per_file: int | None = None,
    max_deleted_fraction: float = 0.1,
    indices: bool = True,
) -> OptimizeResult:
    """Compacts the dataset: fragments with fewer live rows than half of
    ``target_rows_per_file`` (default 1,048,576) and those with more than
    ``max_deleted_fraction`` of their rows deleted are rewritten into new
    files, one version; every live row is kept, deleted rows are dropped.
    The rewritten fragments' index files go with them; with ``indices``
    (default) the indices are then optimized (files for every fragment they
    do not cover), a second version."""
    p = os.fspath(path)
    version, removed, added, rewritten, dropped = _compact(
        p, target_rows_per_file=target_rows_per_file or 0, max_deleted_fraction=max_deleted_fraction
    )
    index_version = _optimize_indices(p) if indices else 0
    return OptimizeResult(version, removed, added, rewritten, dropped, index_version)


@dataclasses.dataclass(frozen=True)
class CleanupResult:
    """What ``cleanup`` removed (or would, with ``dry_run``)."""

    versions_removed: int
    files_removed: int
    orphans_removed: int
    bytes_removed: int
    files_kept_for_damaged: bool


def _ms(age: Any) -> int:
    if isinstance(age, _dt.timedelta):
        return int(age.total_seconds() * 1000)
    return int(float(age) * 1000)


def cleanup(
    path: str | os.PathLike[str],
    *,
    older_than: Any = _dt.timedelta(days=7),
    keep_versions: int | None = None,
    orphan_grace: Any = _dt.timedelta(hours=1),
    dry_run: bool = False,
) -> CleanupResult:
    """Removes versions committed longer than ``older_than`` ago (a
    ``timedelta`` or seconds; ``None``: none by age) and, with
    ``keep_versions``, those older than the newest N; then the files only
    removed versions named, and files no version names (left by a crashed
    writer) once older than ``orphan_grace``.  The latest version, tagged
    versions (``tag``) and damaged ones always stay, with every file they
    name."""
    r = _cleanup(
        os.fspath(path),
        older_than_ms=-1 if older_than is None else _ms(older_than),
        keep_versions=keep_versions or 0,
        orphan_grace_ms=_ms(orphan_grace),
        dry_run=dry_run,
    )
    return CleanupResult(*r)


def tag(path: str | os.PathLike[str], name: str, version: int | None = None) -> int:
    """Names ``version`` (default: the latest) ``name``; ``cleanup`` keeps
    tagged versions.  Returns the version.  ``AlreadyExists`` when the tag
    exists (``untag`` it first)."""
    p = os.fspath(path)
    if version is None:
        version = Dataset(p).version
    _tag(p, name, version)
    return version


def untag(path: str | os.PathLike[str], name: str) -> None:
    """Removes the tag ``name`` (its version stays until a cleanup)."""
    _untag(os.fspath(path), name)


def tags(path: str | os.PathLike[str]) -> dict[str, int]:
    """Every tag of the dataset, name -> version."""
    return dict(_tags(os.fspath(path)))


@dataclasses.dataclass(frozen=True)
class VersionInfo:
    """One version of a dataset, as ``quiver versions`` lists it."""

    version: int
    timestamp_ms: int
    operation: str
    num_rows: int
    num_fragments: int
    ok: bool
    message: str


def versions(path: str | os.PathLike[str]) -> list[VersionInfo]:
    """Every version, oldest first, with its state (a damaged one is listed
    with ``ok=False`` and the reason, not raised)."""
    return [VersionInfo(*v) for v in _versions(os.fspath(path))]


def delete(path: str | os.PathLike[str], predicate: pl.Expr | str) -> tuple[int, int]:
    """Deletes the rows ``predicate`` keeps, as a filter would, by committing
    a version with deletion files (no data file is rewritten; older
    versions still read the rows).  Returns (rows deleted, version), the
    version unchanged when no row matched.

    ``predicate`` is a Polars expression, evaluated with Polars semantics
    (a row it makes null is kept, as ``df.filter`` drops it), or Lance SQL
    text.  A Polars construct libquiver cannot evaluate raises
    UnsupportedExpression (a QuiverError): nothing is deleted then.
    """
    if isinstance(predicate, str):
        return _delete(os.fspath(path), filter=predicate)
    return _delete(os.fspath(path), polars_json=_expr_json(predicate))


def restore(path: str | os.PathLike[str], version: int) -> int:
    """Commits a new version whose contents are ``version``'s (schema,
    fragments, deleted rows, indices; the files are shared, nothing is
    copied) and returns it.  No version is rewritten or removed.

    The way back when the latest version's manifest is damaged: until a
    restore commits above it, writes, deletes, index changes and scans of
    the latest raise QuiverError (CorruptData for damaged bytes) naming the
    damaged version and the newest readable one.  Raises NotFound when
    ``version`` does not exist, and QuiverError (CorruptData for damaged
    bytes) when it, or one of its files, is damaged.
    """
    return _restore(os.fspath(path), version)


@dataclasses.dataclass(frozen=True)
class IndexInfo:
    """One scalar index of a dataset version (see ``list_indices``)."""

    name: str
    type: str  # "btree", "bitmap", "ngram" or "label_list"
    column: str
    fragments: int  # fragments it covers (one file each)
    dataset_fragments: int  # fragments of the version
    rows: int  # rows of the covered fragments whose files are readable (deleted ones included)
    distinct: int  # distinct keys (values, trigrams, labels), summed over the readable files
    built_version: int
    updated_version: int
    damaged_files: int  # files that fail their checks; scans filter those fragments in full
    first_error: str | None  # the first damaged file's problem


def create_index(
    path: str | os.PathLike[str],
    column: str,
    type: str,  # noqa: A002
    *,
    name: str | None = None,
    **vector: Any,
) -> int:
    """Builds an index on ``column`` over every fragment of the latest
    version and commits it; returns the new version.

    Vector indices (docs/vector.md): "ivf_flat" and "ivf_pq" on a
    fixed-size list of float32, with keyword options metric ("l2",
    "cosine", "dot"), num_partitions, num_sub_vectors (ivf_pq),
    sample_rows, max_iterations and seed.

    ``type``: "btree" (=, <, <=, >, >=, BETWEEN, IN, IS NULL, starts_with),
    "bitmap" (=, IN, IS NULL on few distinct values), "ngram" (contains,
    LIKE '%abc%', regexes with a literal of 3+ characters; candidates are
    re-checked) or "label_list" (list.contains and array_has_any/all on
    list columns).  ``name`` defaults to "<column>_idx".  Scans use an index
    where it pays (``quiver.last_scan.explain`` says which and why).
    """
    return _create_index(os.fspath(path), column, type, name=name, **vector)


def drop_index(path: str | os.PathLike[str], name: str) -> int:
    """Commits a version without the index ``name``; returns it.  Older
    versions keep theirs."""
    return _drop_index(os.fspath(path), name)


def optimize_indices(path: str | os.PathLike[str], name: str | None = None, *, rebuild: bool = False) -> int:
    """Indexes the fragments appended since the index ``name`` (None: every
    index) was built or last optimized, and commits; with ``rebuild``, first
    rewrites the files ``list_indices`` reports damaged (a commit of its
    own, which an error of the optimize that follows names).  Returns the
    last version committed, 0 when there was nothing to do."""
    return _optimize_indices(os.fspath(path), name, rebuild=rebuild)


def list_indices(path: str | os.PathLike[str], *, version: int | None = None) -> list[IndexInfo]:
    """The scalar indices of a version (None: the latest), each file's
    checksums verified (this reads every index file)."""
    rows = _list_indices(os.fspath(path), version=0 if version is None else version)
    return [IndexInfo(*row) for row in rows]


class _OneStream:
    """An Arrow C stream capsule behind ``__arrow_c_stream__``, handed out once."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            msg = "the query's rows were already read"
            raise RuntimeError(msg)
        return capsule


class Graph:
    """A property graph queried with Cypher (docs/cypher.md).

    ``Graph(path)`` opens a graph folder made by ``quiver graph create`` (its
    datasets must be at the versions it was built from, else CommitConflict
    says to run ``quiver graph refresh``); ``Graph.memory()`` is an empty
    graph in memory, which ``CREATE`` fills (the openCypher TCK runs on
    those).  A graph over datasets is read-only: writes raise InvalidInput.

    ``params`` are a dict of name (without ``$``) -> value, where a value is
    None, bool, int (64-bit), float, str, list, tuple or dict, nested at
    will; each is passed as exact Cypher literal text
    (``quiver.cypher_literal`` shows it).  ``use_csr=False`` plans every hop
    as hash joins instead of CSR expansions (the same rows, for comparison).

    The query runs to its end inside the call, so errors raise there as the
    QuiverError subclass of their status: InvalidInput for syntax (status
    "parse error"), semantic ("invalid argument") and type errors ("type
    error"); QuiverError for an arithmetic overflow ("overflow").
    """

    __slots__ = ("_g",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._g = _Graph(os.fspath(path))

    @classmethod
    def memory(cls) -> Graph:
        """An empty graph in memory; CREATE adds nodes and relationships to it."""
        self = cls.__new__(cls)
        self._g = _Graph.memory()
        return self

    @property
    def path(self) -> str | None:
        """The graph folder, or None for a graph in memory."""
        return self._g.path

    def __repr__(self) -> str:
        return f"Graph({self.path!r})" if self.path is not None else "Graph.memory()"

    def cypher(
        self, query: str, params: Mapping[str, Any] | None = None, *, use_csr: bool = True, render: bool = False
    ) -> pl.DataFrame:
        """Runs a Cypher query; its rows as a polars DataFrame.

        Columns are typed where the query's types are known (an integer
        property, ``count(*)``) and otherwise hold each value's Cypher text;
        ``render=True`` gives every column as Cypher text, as the openCypher
        TCK writes values (``null``, ``'a'``, ``[1, 2]``, ``(:L {k: 1})``).
        """
        return pl.DataFrame(self._stream(query, params, use_csr, render))

    def cypher_arrow(
        self, query: str, params: Mapping[str, Any] | None = None, *, use_csr: bool = True, render: bool = False
    ) -> Any:
        """Like ``cypher``, as a pyarrow Table (pyarrow must be installed)."""
        import pyarrow as pa

        return pa.table(self._stream(query, params, use_csr, render))

    def cypher_rows(
        self, query: str, params: Mapping[str, Any] | None = None, *, use_csr: bool = True
    ) -> tuple[list[str], list[tuple[str, ...]]]:
        """The column names and the rows as tuples of Cypher text (``render=True``
        without a DataFrame: what the TCK harness compares)."""
        return self._g.rows(query, _params(params), use_csr=use_csr)

    def explain(
        self, query: str, params: Mapping[str, Any] | None = None, *, analyze: bool = False, use_csr: bool = True
    ) -> str:
        """The physical plan as an indented operator tree; ``analyze=True``
        runs the query (its rows are discarded) and adds each operator's
        counters (rows, batches, time, memory)."""
        return self._g.explain(query, _params(params), analyze=analyze, use_csr=use_csr)

    def _stream(self, query: str, params: Mapping[str, Any] | None, use_csr: bool, render: bool) -> _OneStream:
        return _OneStream(self._g.query(query, _params(params), use_csr=use_csr, render=render))


def _params(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if params is None or isinstance(params, dict):
        return params
    if isinstance(params, Mapping):
        return dict(params)
    msg = f"params must be a dict of name -> value, not {type(params).__name__}"
    raise TypeError(msg)
