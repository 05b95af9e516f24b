"""Vector search for ``quiver.scan(path, nearest={...}, prefilter=...)``.

The search runs in libquiver (a Scanner with ``nearest``); this module only
turns the dict into the scanner's arguments, checks the prefilter at the
call (a Polars expression that does not translate exactly raises here,
naming the part, before anything is read) and exposes the ranked rows as a
LazyFrame.  A later ``.filter`` on that frame is a postfilter: Polars
hands it to the source, which applies it to the ranked rows (never as a
prefilter), so fewer than k rows may remain; ``.head(n)`` truncates the
ranked rows.
"""

from __future__ import annotations

import array
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl
from polars.io.plugins import register_io_source

from quiver._quiver import Scanner, UnsupportedExpression

_KEYS = {"column", "q", "k", "metric", "use_index", "nprobes", "refine_factor", "ef", "postfilter"}
_EXTRA = ("_distance", "_query")


def _query_bytes(q: Any) -> tuple[bytes, int]:
    """The query vector(s) as float32 bytes and the dimension: a sequence
    of numbers, a sequence of such sequences, or anything with __array__
    (a numpy vector or matrix)."""
    if hasattr(q, "__array__"):
        import numpy as np

        a = np.ascontiguousarray(np.asarray(q), dtype=np.float32)
        if a.ndim not in (1, 2) or a.size == 0:
            raise ValueError("nearest: q must be one vector or a matrix of them (one query per row)")
        return a.tobytes(), int(a.shape[-1])
    items = list(q)
    if items and not isinstance(items[0], (int, float)):
        rows = [list(r) for r in items]
        dim = len(rows[0]) if rows else 0
        if not dim or any(len(r) != dim for r in rows):
            raise ValueError("nearest: every query vector must have the same, non-zero length")
        return array.array("f", [float(v) for r in rows for v in r]).tobytes(), dim
    if not items:
        raise ValueError("nearest: q is empty")
    return array.array("f", [float(v) for v in items]).tobytes(), len(items)


def nearest_tuple(nearest: Mapping[str, Any]) -> tuple:
    """The Scanner's `nearest` argument from the user's dict."""
    unknown = set(nearest) - _KEYS
    if unknown:
        raise ValueError(f"nearest: unknown key(s) {sorted(unknown)} (known: {sorted(_KEYS)})")
    if "column" not in nearest or "q" not in nearest:
        raise ValueError("nearest: 'column' and 'q' are required")
    qb, dim = _query_bytes(nearest["q"])
    return (
        str(nearest["column"]),
        qb,
        dim,
        int(nearest.get("k", 10)),
        str(nearest.get("metric", "l2")),
        1 if nearest.get("use_index", True) else 0,
        int(nearest.get("nprobes", 20) or 20),
        int(nearest.get("refine_factor", 10) if nearest.get("refine_factor") is not None else 10),
        nearest.get("postfilter"),
    )


def scan_nearest(
    path: str,
    version: int,
    nearest: Mapping[str, Any],
    prefilter: pl.Expr | str | None,
    options: dict[str, Any],
    expr_json: Any,
    refusal: Any,
) -> pl.LazyFrame:
    args = nearest_tuple(nearest)
    filt: dict[str, Any] = {}
    if isinstance(prefilter, str):
        filt["filter"] = prefilter  # Lance SQL passes as it is
    elif prefilter is not None:
        try:
            js = expr_json(prefilter)
        except Exception as err:
            exc = UnsupportedExpression(f"prefilter: the expression has no JSON form: {err}")
            exc.code, exc.status = 8, "unsupported"
            raise exc from err
        why = refusal(path, version, js)
        if why is not None:
            # a prefilter cannot be loose: no later pass can repair the rows
            # the search already chose among
            raise type(why)(f"prefilter does not translate exactly: {why}")
        filt["polars_json"] = js
    # opened here so that every error (dimension, NaN, k, the prefilter)
    # is raised at the call, before any data is read
    probe = Scanner(path, nearest=args, version=version, **filt, **options)
    schema = pl.Schema(probe)  # through probe.__arrow_c_schema__; nothing is searched
    del probe

    def source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        cols = None if with_columns is None else [c for c in with_columns if c not in _EXTRA]
        if predicate is not None and with_columns is not None:
            # the postfilter may read columns Polars projected away
            need = set(predicate.meta.root_names())
            cols = list(dict.fromkeys((cols or []) + [c for c in need if c not in _EXTRA]))
        sc = Scanner(
            path,
            columns=cols,
            nearest=args,
            version=version,
            limit=n_rows if predicate is None else None,
            **filt,
            **options,
        )
        frames = [pl.DataFrame(b) for b in sc]
        df = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
        if predicate is not None:
            df = df.filter(predicate)
            if n_rows is not None:
                df = df.head(n_rows)
        if with_columns is not None:
            df = df.select(with_columns)
        yield df

    return register_io_source(
        source, schema=schema, explain_name="quiver nearest", explain_detail=f"{path} version {version}"
    )


__all__ = ["nearest_tuple", "scan_nearest"]
