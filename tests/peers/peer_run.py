"""Runs every generated expression through every engine, once.

For each Case: Polars' rows (df.filter on the in-memory DataFrame), quiver's
scan with pushdown on and off, quiver's Lance translation with the table's
schema and without one, the reference translator's (polars_pylance 0.1.9,
with the schema), and Lance's rows for every SQL that was produced.  The
tests (test_*.py) and the coverage script (lance_coverage.py) read these
Results; nothing here asserts.
"""

import math
import os
import shutil
import warnings
from dataclasses import dataclass, field

import polars as pl

import exprgen
import peer_table
import quiver_driver as qv


@dataclass
class Outcome:
    """Rows kept (a frozenset of ids plus the canonical rows), or an error."""

    ids: frozenset = None
    rows: tuple = None
    error: str = None

    @property
    def ok(self):
        return self.error is None


@dataclass
class Translation:
    sql: str = None  # None: declined
    exact: bool = None
    error: str = None  # the translator itself failed
    lance: Outcome = None  # Lance's rows for sql
    why: str = ""  # quiver's explain text (what declined and why)

    @property
    def pushed(self):
        return self.sql is not None


@dataclass
class Result:
    case: exprgen.Case
    polars: Outcome
    scan_on: Outcome
    scan_off: Outcome
    quiver: Translation  # with the schema
    quiver_nos: Translation  # schema-less
    reference: Translation  # polars_pylance with the schema
    notes: list = field(default_factory=list)
    # Polars' lazy engine (what quiver.scan is), only where eager Polars
    # raised: it keeps a strict-cast conjunct above the scan and applies it
    # to the rows the other conjuncts kept, so it may keep rows instead
    polars_lazy: Outcome = None


def _canon(value):
    """A hashable, order-safe form: -0.0 != 0.0, every NaN equal."""
    if isinstance(value, float):
        if math.isnan(value):
            return ("nan",)
        return ("f", value, math.copysign(1.0, value))
    if isinstance(value, dict):
        return ("d",) + tuple((k, _canon(v)) for k, v in sorted(value.items()))
    if isinstance(value, list):
        return ("l",) + tuple(_canon(v) for v in value)
    return ("v", repr(value))


def outcome_of(arrow_table):
    rows = arrow_table.to_pylist()
    canon = tuple(sorted((r["id"], tuple((k, _canon(v)) for k, v in sorted(r.items()))) for r in rows))
    return Outcome(ids=frozenset(r["id"] for r in rows), rows=canon)


def _err(exc):
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300] if text else type(exc).__name__


class World:
    """The data, written once for each engine."""

    def __init__(self, workdir):
        import lance

        self.lance = lance
        self.table = peer_table.build_table()
        self.df = pl.from_arrow(self.table)
        os.makedirs(workdir, exist_ok=True)
        self.qv_ds = os.path.join(workdir, "quiver-ds")
        self.lance_uri = os.path.join(workdir, "lance-ds")
        shutil.rmtree(self.qv_ds, ignore_errors=True)
        shutil.rmtree(self.lance_uri, ignore_errors=True)
        qv.import_table(self.table, os.path.join(workdir, "peer.arrow"), self.qv_ds)
        lance.write_dataset(self.table, self.lance_uri)
        self.lance_ds = lance.dataset(self.lance_uri)
        self.pl_schema = self.df.schema

    def canonical_nan(self):
        """The same data with every NaN positive (Python's float("nan")): the
        schema-less translator assumes stored NaNs are, and is judged on
        this copy where it relies on that (see judge_schemaless)."""
        if getattr(self, "_canon", None) is None:
            import pyarrow as pa
            import pyarrow.compute as pc

            cols = {}
            for name in self.table.column_names:
                col = self.table.column(name)
                if pa.types.is_floating(col.type):
                    col = pc.if_else(pc.is_nan(col), pa.scalar(math.nan, col.type), col)
                cols[name] = col
            table = pa.table(cols)
            uri = self.lance_uri + "-canonical-nan"
            shutil.rmtree(uri, ignore_errors=True)
            self.lance.write_dataset(table, uri)
            self._canon = (pl.from_arrow(table), self.lance.dataset(uri))
        return self._canon

    def polars(self, text, df=None, lazy=False):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Comparisons with None always result in null": meant
                expr = eval(text, dict(exprgen.NAMESPACE))  # noqa: S307 - our own generated text
            frame = self.df if df is None else df
            if lazy:
                return outcome_of(frame.lazy().filter(expr).collect().to_arrow())
            return outcome_of(frame.filter(expr).to_arrow())
        except Exception as exc:  # noqa: BLE001 - Polars' error is the outcome
            return Outcome(error="%s: %s" % (type(exc).__name__, _err(exc)))

    def scan(self, text, pushdown):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return outcome_of(qv.scan(self.qv_ds, text, pushdown=pushdown, namespace=exprgen.NAMESPACE))
        except qv.QuiverError as exc:
            return Outcome(error=_err(exc))

    def run_lance(self, sql, ds=None):
        try:
            return outcome_of((self.lance_ds if ds is None else ds).to_table(filter=sql))
        except Exception as exc:  # noqa: BLE001 - Lance's error is the outcome
            return Outcome(error="%s: %s" % (type(exc).__name__, _err(exc)))

    def quiver_translation(self, text, schema_text):
        try:
            f = qv.to_lance_filter(text, schema_text)
        except qv.QuiverError as exc:
            return Translation(error=_err(exc))
        why = "" if f is not None and f.exact else qv.explain(text, schema_text)
        if f is None:
            return Translation(why=why)
        return Translation(sql=f.sql, exact=f.exact, lance=self.run_lance(f.sql), why=why)

    def reference_translation(self, text):
        from polars_pylance import to_lance_filter

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expr = eval(text, dict(exprgen.NAMESPACE))  # noqa: S307
            f = to_lance_filter(expr, schema=self.pl_schema)
        except Exception as exc:  # noqa: BLE001
            return Translation(error="%s: %s" % (type(exc).__name__, _err(exc)))
        if f is None:
            return Translation()
        return Translation(sql=f.sql, exact=f.exact, lance=self.run_lance(f.sql))

    def run(self, case):
        polars = self.polars(case.text)
        return Result(
            case=case,
            polars=polars,
            polars_lazy=None if polars.ok else self.polars(case.text, lazy=True),
            scan_on=self.scan(case.text, True),
            scan_off=self.scan(case.text, False),
            quiver=self.quiver_translation(case.text, peer_table.SCHEMA_TEXT),
            quiver_nos=self.quiver_translation(case.text, None),
            reference=self.reference_translation(case.text),
        )


def run_all(workdir, cases=None):
    world = World(workdir)
    return world, [world.run(case) for case in (cases if cases is not None else exprgen.generate())]


# ---- judging -------------------------------------------------------------


def not_yet_evaluable(outcome):
    return outcome.error is not None and bool(qv.NOT_YET_EVALUABLE.search(outcome.error))


def judge_translation(tr, polars):
    """'right', 'wrong: ...', or None when there is nothing to judge."""
    if not tr.pushed or not polars.ok:
        return None
    if not tr.lance.ok:
        return "wrong: Lance fails on it (%s)" % tr.lance.error
    if tr.exact:
        if tr.lance.ids == polars.ids:
            return "right"
        return "wrong: exact, but Lance keeps %s" % describe_diff(tr.lance.ids, polars.ids)
    if tr.lance.ids >= polars.ids:
        return "right"
    return "wrong: inexact, but Lance misses rows %s" % sorted(polars.ids - tr.lance.ids)


def describe_diff(got, want):
    extra, missing = sorted(got - want), sorted(want - got)
    parts = []
    if extra:
        parts.append("extra rows %s" % extra)
    if missing:
        parts.append("misses rows %s" % missing)
    return " and ".join(parts) or "the same ids with different values"


def judge_schemaless(world, result):
    """judge_translation for the schema-less translation; a wrong answer
    that is right once every NaN is positive is reported as 'assumes
    positive NaN' (the translator's documented assumption), not 'wrong'."""
    verdict = judge_translation(result.quiver_nos, result.polars)
    if verdict is None or verdict == "right":
        return verdict
    df, ds = world.canonical_nan()
    tr = Translation(sql=result.quiver_nos.sql, exact=result.quiver_nos.exact,
                     lance=world.run_lance(result.quiver_nos.sql, ds))
    again = judge_translation(tr, world.polars(result.case.text, df))
    if again == "right":
        return "assumes positive NaN: " + verdict[len("wrong: "):]
    return verdict
