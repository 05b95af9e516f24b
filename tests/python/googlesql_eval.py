"""A small evaluator for the GoogleSQL subset that BigQuery row_restriction
translators emit (quiver's and polars-bigquery's), with BigQuery's
semantics, so that a translation can be checked row by row without a live
BigQuery:

* three-valued logic: NULL propagates through comparisons and functions,
  AND/OR/NOT are Kleene, a row is kept only when the restriction is TRUE;
* FLOAT64 compares by IEEE rules: NaN is unordered (every comparison with it
  is FALSE except !=, which is TRUE), -0.0 = 0.0; INT64 meets FLOAT64 as
  FLOAT64;
* IS_NAN / IS_INF, IF (a NULL condition takes the else branch), CASE,
  COALESCE, IFNULL, STARTS_WITH, ENDS_WITH, STRPOS, REGEXP_CONTAINS (the RE2
  subset quiver emits reads the same under Python's re), UPPER, LOWER, IN,
  IS [NOT] NULL, DATE, DATETIME, TIMESTAMP_SECONDS / _MILLIS / _MICROS,
  CAST(string AS FLOAT64), integer *, unary minus.

Anything else raises Unsupported: a test must not pass because the
evaluator guessed.
"""

import datetime
import math
import re

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class Unsupported(Exception):
    pass


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<ident>`[^`]*`)
    | (?P<string>'(?:[^'\\]|\\.)*')
    | (?P<number>\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?|\d+)
    | (?P<word>[A-Za-z_][A-Za-z_0-9]*)
    | (?P<op><=|>=|!=|<>|[=<>(),*\-])
    )""",
    re.X | re.S,
)

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "'": "'", '"': '"', "`": "`", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v", "?": "?"}


def _unescape(body):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "xX":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        else:
            raise Unsupported("escape \\" + e)
    return "".join(out)


def tokenize(sql):
    toks, pos = [], 0
    while pos < len(sql):
        if sql[pos:].strip() == "":
            break
        m = _TOKEN.match(sql, pos)
        if not m:
            raise Unsupported("cannot read %r" % sql[pos:pos + 20])
        pos = m.end()
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "word":
            toks.append(("kw", text.upper()))
        elif kind == "ident":
            toks.append(("ident", text[1:-1]))
        elif kind == "string":
            toks.append(("string", _unescape(text[1:-1])))
        elif kind == "number":
            toks.append(("number", float(text) if any(ch in text for ch in ".eE") else int(text)))
        else:
            toks.append(("op", text))
    toks.append(("eof", None))
    return toks


class _Parser:
    def __init__(self, sql):
        self.toks = tokenize(sql)
        self.i = 0

    def peek(self, k=0):
        return self.toks[self.i + k]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, kind, value=None):
        t = self.peek()
        if t[0] == kind and (value is None or t[1] == value):
            self.i += 1
            return True
        return False

    def expect(self, kind, value=None):
        if not self.accept(kind, value):
            raise Unsupported("expected %s %s, found %r" % (kind, value, self.peek()))

    def parse(self):
        e = self.or_()
        self.expect("eof")
        return e

    def or_(self):
        e = self.and_()
        while self.accept("kw", "OR"):
            e = ("or", e, self.and_())
        return e

    def and_(self):
        e = self.not_()
        while self.accept("kw", "AND"):
            e = ("and", e, self.not_())
        return e

    def not_(self):
        if self.accept("kw", "NOT"):
            return ("not", self.not_())
        return self.cmp()

    def cmp(self):
        e = self.mul()
        t = self.peek()
        if t[0] == "op" and t[1] in ("=", "!=", "<>", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", "!=" if t[1] == "<>" else t[1], e, self.mul())
        if self.accept("kw", "IS"):
            neg = self.accept("kw", "NOT")
            self.expect("kw", "NULL")
            return ("isnull", neg, e)
        if self.accept("kw", "IN"):
            self.expect("op", "(")
            items = [self.or_()]
            while self.accept("op", ","):
                items.append(self.or_())
            self.expect("op", ")")
            return ("in", e, items)
        return e

    def mul(self):
        e = self.unary()
        while self.accept("op", "*"):
            e = ("mul", e, self.unary())
        return e

    def unary(self):
        if self.accept("op", "-"):
            return ("neg", self.unary())
        return self.primary()

    def primary(self):
        t = self.take()
        if t[0] == "ident":
            return ("col", t[1])
        if t[0] in ("string", "number"):
            return ("lit", t[1])
        if t == ("op", "("):
            e = self.or_()
            self.expect("op", ")")
            return e
        if t[0] == "kw":
            w = t[1]
            if w in ("TRUE", "FALSE"):
                return ("lit", w == "TRUE")
            if w == "NULL":
                return ("lit", None)
            if w == "CASE":
                whens = []
                while self.accept("kw", "WHEN"):
                    c = self.or_()
                    self.expect("kw", "THEN")
                    whens.append((c, self.or_()))
                other = self.or_() if self.accept("kw", "ELSE") else ("lit", None)
                self.expect("kw", "END")
                return ("case", whens, other)
            if w == "CAST":
                self.expect("op", "(")
                e = self.or_()
                self.expect("kw", "AS")
                ty = self.take()
                self.expect("op", ")")
                if ty != ("kw", "FLOAT64"):
                    raise Unsupported("CAST AS %r" % (ty,))
                return ("fn", "CAST_FLOAT64", [e])
            if self.accept("op", "("):
                args = []
                if not self.accept("op", ")"):
                    args.append(self.or_())
                    while self.accept("op", ","):
                        args.append(self.or_())
                    self.expect("op", ")")
                return ("fn", w, args)
        raise Unsupported("unexpected %r" % (t,))


_POSIX = {"alpha": "A-Za-z", "digit": "0-9", "alnum": "0-9A-Za-z", "upper": "A-Z", "lower": "a-z",
          "space": "\\t\\n\\v\\f\\r ", "xdigit": "0-9A-Fa-f", "word": "0-9A-Za-z_", "blank": "\\t ",
          "punct": "!-/:-@\\[-`{-~"}
_RE2_CACHE = {}


def _re2(pattern):
    """Python's re with RE2's readings where they differ for patterns a
    translator may emit: \\d \\w \\s \\b are ASCII-only (re.ASCII, unless the
    pattern asks for case-insensitive matching, which RE2 does by Unicode
    rules), and [[:alpha:]]-style classes are ASCII ranges."""
    if pattern not in _RE2_CACHE:
        p = re.sub(r"\[:(\w+):\]", lambda m: _POSIX.get(m.group(1), m.group(0)), pattern)
        if "(?m" not in p:
            p = _dollar_is_end(p)
        _RE2_CACHE[pattern] = re.compile(p, 0 if "(?i" in p else re.ASCII)
    return _RE2_CACHE[pattern]


def _dollar_is_end(p):
    """RE2's $ (without the m flag) matches only at the end of the text;
    Python's also before a final newline: spell it \\Z."""
    out, i, in_class = [], 0, False
    while i < len(p):
        c = p[i]
        if c == "\\":
            out.append(p[i:i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append("\\Z" if c == "$" and not in_class else c)
        i += 1
    return "".join(out)


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _compare(op, x, y):
    if x is None or y is None:
        return None
    if _num(x) and _num(y) and (isinstance(x, float) or isinstance(y, float)):
        x, y = float(x), float(y)  # INT64 meets FLOAT64 as FLOAT64; NaN by IEEE rules
    if op == "=":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def _and(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def _ts(unit_per_sec, v):
    if v is None:
        return None
    return EPOCH + datetime.timedelta(microseconds=v * (1000000 // unit_per_sec))


def _fn(name, args):
    if name in ("COALESCE",):
        return next((a for a in args if a is not None), None)
    if name == "IFNULL":
        return args[1] if args[0] is None else args[0]
    if name == "IF":
        return args[1] if args[0] is True else args[2]
    if any(a is None for a in args):
        return None
    x = args[0]
    if name == "IS_NAN":
        return math.isnan(x)
    if name == "IS_INF":
        return math.isinf(x)
    if name == "STARTS_WITH":
        return x.startswith(args[1])
    if name == "ENDS_WITH":
        return x.endswith(args[1])
    if name == "STRPOS":
        i = x.find(args[1])
        return i + 1 if i >= 0 else 0
    if name == "REGEXP_CONTAINS":
        return _re2(args[1]).search(x) is not None
    if name == "UPPER":
        return x.upper()
    if name == "LOWER":
        return x.lower()
    if name == "TIMESTAMP_SECONDS":
        return _ts(1, x)
    if name == "TIMESTAMP_MILLIS":
        return _ts(1000, x)
    if name == "TIMESTAMP_MICROS":
        return _ts(1000000, x)
    if name == "DATETIME":
        return x.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if name == "DATE":
        return x.date()
    if name == "CAST_FLOAT64":
        return float(x)
    raise Unsupported("function " + name)


def _eval(e, row):
    k = e[0]
    if k == "lit":
        return e[1]
    if k == "col":
        if e[1] not in row:
            raise Unsupported("no column " + e[1])
        return row[e[1]]
    if k == "and":
        a = _eval(e[1], row)
        return _and(a, _eval(e[2], row))
    if k == "or":
        a = _eval(e[1], row)
        return _or(a, _eval(e[2], row))
    if k == "not":
        a = _eval(e[1], row)
        return None if a is None else not a
    if k == "cmp":
        return _compare(e[1], _eval(e[2], row), _eval(e[3], row))
    if k == "isnull":
        v = _eval(e[2], row)
        return (v is not None) if e[1] else (v is None)
    if k == "in":
        x = _eval(e[1], row)
        if x is None:
            return None
        vals = [_eval(i, row) for i in e[2]]
        if any(_compare("=", x, v) for v in vals):
            return True
        return None if any(v is None for v in vals) else False
    if k == "mul":
        a, b = _eval(e[1], row), _eval(e[2], row)
        return None if a is None or b is None else a * b
    if k == "neg":
        a = _eval(e[1], row)
        return None if a is None else -a
    if k == "case":
        for c, v in e[1]:
            if _eval(c, row) is True:
                return _eval(v, row)
        return _eval(e[2], row)
    if k == "fn":
        return _fn(e[1], [_eval(a, row) for a in e[2]])
    raise Unsupported(k)


def compile_sql(sql):
    """Parses sql once; returns f(row) -> True / False / None."""
    tree = _Parser(sql).parse()
    return lambda row: _eval(tree, row)


def kept_rows(sql, rows):
    """Indices of the rows for which the restriction is TRUE."""
    f = compile_sql(sql)
    return {i for i, row in enumerate(rows) if f(row) is True}
