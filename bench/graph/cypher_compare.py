"""Comparing Cypher results of two engines: quiver's columns against Kuzu's, value by value.

Used by tests/peers/test_kuzu_cypher.py, test_kuzu_ldbc.py and bench_cypher.py's agreement check.
A column quiver could not type comes back as Cypher text (docs: qvg_op_result); rows() reads it
back into values (TextParser) where Kuzu's column is typed, and canon() makes every value
comparable: floats to 10 significant digits, lists as tuples, maps sorted by key, Kuzu's INT128
sums (Decimals of scale 0) as integers.  No Polars at import (the benchmark's parent stays light).
"""

from __future__ import annotations

import collections
import decimal
import math
import re


class TextParser:
    """Reads back the Cypher text quiver renders for untyped columns (null, true, 1, 1.5, 'x', [..], {..})."""

    def __init__(self, s):
        self.s, self.i = s, 0

    def parse(self):
        v = self.value()
        self.ws()
        if self.i != len(self.s):
            raise ValueError("trailing text in %r" % self.s)
        return v

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def value(self):
        self.ws()
        s, c = self.s, self.s[self.i]
        if c == "'":
            out, self.i = [], self.i + 1
            while s[self.i] != "'":
                if s[self.i] == "\\":
                    self.i += 1
                out.append(s[self.i])
                self.i += 1
            self.i += 1
            return "".join(out)
        if c == "[":
            self.i += 1
            items = []
            self.ws()
            if s[self.i] == "]":
                self.i += 1
                return items
            while True:
                items.append(self.value())
                self.ws()
                self.i += 1
                if s[self.i - 1] == "]":
                    return items
        if c == "{":
            self.i += 1
            out = {}
            self.ws()
            if s[self.i] == "}":
                self.i += 1
                return out
            while True:
                self.ws()
                j = s.index(":", self.i)
                key = s[self.i:j].strip()
                self.i = j + 1
                out[key] = self.value()
                self.ws()
                self.i += 1
                if s[self.i - 1] == "}":
                    return out
        m = re.compile(r"null|true|false|-?Infinity|NaN|-?\d+(\.\d*)?([eE][-+]?\d+)?").match(s, self.i)
        if not m:
            raise ValueError("cannot read %r at %d" % (s, self.i))
        self.i = m.end()
        t = m.group(0)
        if t == "null":
            return None
        if t in ("true", "false"):
            return t == "true"
        if t in ("NaN", "Infinity", "-Infinity") or m.group(1) or m.group(2):
            return float(t.replace("Infinity", "inf"))
        return int(t)


def canon(v):
    """A comparable, hashable form: floats to 10 significant digits, lists as tuples, maps sorted."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal):
        # Kuzu's sum of INT64 is an INT128 (a Decimal of scale 0 in Polars); an integer in Cypher.
        return int(v) if v == v.to_integral_value() else canon(float(v))
    if isinstance(v, float):
        if math.isnan(v):
            return ("float", "NaN")
        return ("float", float("%.10g" % v))
    if isinstance(v, (list, tuple)):
        return tuple(canon(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, canon(x)) for k, x in v.items()))
    return ("other", repr(v))


def rows(kuzu_cols, quiver_cols):
    """Both results as lists of canonical tuples, quiver's text columns read back where Kuzu's are typed.

    Each side is [name, is_string, values] per column (cypher_worker.py's form; kuzu_columns() makes
    it of a Polars frame of Kuzu's)."""
    if len(kuzu_cols) != len(quiver_cols):
        raise AssertionError("column count: kuzu %d %s, quiver %d %s" % (
            len(kuzu_cols), [c[0] for c in kuzu_cols], len(quiver_cols), [c[0] for c in quiver_cols]))
    qvals = []
    for (_, k_is_string, kv), (_, is_string, vals) in zip(kuzu_cols, quiver_cols):
        if is_string:
            kv = [x for x in kv if x is not None]
            qv = [x for x in vals if x is not None]
            quoted = qv and all(len(x) >= 2 and x[0] == "'" and x[-1] == "'" for x in qv)
            kquoted = kv and all(isinstance(x, str) and x[:1] == "'" for x in kv)
            if not k_is_string or (quoted and not kquoted):
                vals = [None if x is None else TextParser(x).parse() for x in vals]
        qvals.append(vals)
    if not kuzu_cols:
        return [], []
    krows = [tuple(canon(v) for v in r) for r in zip(*[c[2] for c in kuzu_cols])]
    qrows = [tuple(canon(v) for v in r) for r in zip(*qvals)]
    return krows, qrows


def kuzu_columns(df):
    """A Polars frame (Kuzu's get_as_pl()) as [name, is_string, values] per column."""
    import polars as pl

    return [[c, df.schema[c] == pl.String, df.get_column(c).to_list()] for c in df.columns]


def sort_lists(rows, cols):
    """rows with the lists in the columns numbered cols sorted (collect() gives them in no set order)."""
    if not cols:
        return rows
    return [tuple(tuple(sorted(v, key=repr)) if i in cols and isinstance(v, tuple) else v for i, v in enumerate(r))
            for r in rows]


def diff(krows, qrows, ordered):
    """None when the canonical rows agree (in order when ordered, else as multisets), else why not."""
    if ordered:
        if krows == qrows:
            return None
        for i, (k, q) in enumerate(zip(krows, qrows)):
            if k != q:
                return "row %d: kuzu %r, quiver %r (kuzu %d rows, quiver %d)" % (i, k, q, len(krows), len(qrows))
        return "kuzu %d rows, quiver %d (the first %d agree)" % (len(krows), len(qrows), min(len(krows), len(qrows)))
    key = repr
    ks, qs = sorted(krows, key=key), sorted(qrows, key=key)
    if ks == qs:
        return None
    kc, qc = collections.Counter(krows), collections.Counter(qrows)
    only_k, only_q = list((kc - qc).elements()), list((qc - kc).elements())
    return ("kuzu %d rows, quiver %d; only in kuzu (%d): %r; only in quiver (%d): %r"
            % (len(krows), len(qrows), len(only_k), only_k[:5], len(only_q), only_q[:5]))
