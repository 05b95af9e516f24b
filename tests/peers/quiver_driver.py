"""The one place the peer tests reach quiver.

Translations go through the `quiver` command (QV_BUILD_DIR/quiver), whose
text front end the generated expressions are written for (the package's
JSON path is checked against the command in tests/python/test_package.py).
Scans go through the Python package, as users run them:
quiver.scan(path, predicate_pushdown=...).filter(expr).collect(); a scan
the package could not push into C (it then filters in Polars) counts as
quiver refusing it.  QV_PEERS_SCAN=cli scans with `quiver scan --where`
instead.  Everything returns plain values: a LanceFilter (sql, exact) or
None, and pyarrow Tables.
"""

import os
import re
import subprocess
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.ipc as ipc

BUILD = os.environ.get("QV_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))


@dataclass(frozen=True)
class LanceFilter:
    sql: str
    exact: bool


class QuiverError(Exception):
    """quiver refused or failed; the message is its stderr."""


# Scanner refusals that mean "this operator is not evaluable by quiver yet"
# rather than a wrong answer (the evaluator is being extended elsewhere).
NOT_YET_EVALUABLE = re.compile(r"cannot be bound|not supported", re.I)


def quiver_path():
    return os.path.abspath(os.path.join(BUILD, "quiver"))


def available():
    """None when the command can run, else why not."""
    exe = quiver_path()
    if not os.access(exe, os.X_OK):
        return "%s is not built (run `make build` or set QV_BUILD_DIR)" % exe
    return None


def _run(args, binary=False):
    proc = subprocess.run([quiver_path(), *args], capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise QuiverError(proc.stderr.decode("utf-8", "replace").strip())
    return proc.stdout if binary else proc.stdout.decode("utf-8")


def _py_str(text):
    """Reads back a Python string repr as the command prints it."""
    import ast

    value = ast.literal_eval(text)
    if not isinstance(value, str):
        raise ValueError("not a string: %r" % text)
    return value


_FILTER = re.compile(r"^LanceFilter\(sql=(?P<sql>.*), exact=(?P<exact>True|False)\)$", re.S)


def lance_filter_repr(expr_text, schema_text=None):
    """The exact line `quiver lance-filter` prints (without the newline)."""
    args = ["lance-filter"]
    if schema_text is not None:
        args += ["--schema", schema_text]
    return _run(args + [expr_text]).rstrip("\n")


def to_lance_filter(expr_text, schema_text=None):
    """quiver's translation of a Polars expression: LanceFilter or None."""
    line = lance_filter_repr(expr_text, schema_text)
    if line == "None":
        return None
    m = _FILTER.match(line)
    if not m:
        raise QuiverError("unexpected lance-filter output: %r" % line)
    sql = _py_str(m.group("sql"))
    # The printed sql= must be exactly Python's repr() (quotes, escapes of
    # non-printable characters), as the package's LanceFilter prints it.
    if repr(sql) != m.group("sql"):
        raise QuiverError("quoting: lance-filter printed sql=%s, Python's repr() is %s" % (m.group("sql"), repr(sql)))
    return LanceFilter(sql, m.group("exact") == "True")


def explain(expr_text, schema_text=None):
    args = ["lance-filter", "--explain"]
    if schema_text is not None:
        args += ["--schema", schema_text]
    return _run(args + [expr_text]).split("\n", 1)[1]


def import_table(table, arrow_path, dataset_dir):
    """Writes table as an Arrow IPC file and imports it as a new dataset."""
    with ipc.new_file(arrow_path, table.schema) as w:
        w.write_table(table)
    _run(["import", "--quiet", arrow_path, dataset_dir])


def scan_via():
    """"package" or "cli": how scan() reaches quiver."""
    if os.environ.get("QV_PEERS_SCAN") == "cli":
        return "cli"
    try:
        import quiver  # noqa: F401
    except ImportError as exc:
        print("!!! the quiver package is not importable (%s): peer scans use the command instead !!!" % exc)
        return "cli"
    return "package"


def scan(dataset_dir, where, pushdown=True, namespace=None):
    """The rows of dataset_dir that a Polars expression keeps, as a Table."""
    if scan_via() == "package":
        import polars as pl
        import quiver

        expr = eval(where, dict(namespace or {"pl": pl}))  # noqa: S307 - the tests' own expressions
        try:
            df = quiver.scan(dataset_dir, predicate_pushdown=pushdown).filter(expr).collect()
        except quiver.QuiverError as exc:
            raise QuiverError(str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - Polars refusing the plan before quiver sees it
            raise QuiverError("%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])) from exc
        report = quiver.last_scan
        if report is not None and report.fallback:
            raise QuiverError(report.fallback)
        return df.to_arrow()
    args = ["scan", dataset_dir, "--where", where, "--format", "arrow"]
    if not pushdown:
        args.append("--no-pushdown")
    out = _run(args, binary=True)
    return ipc.open_stream(pa.BufferReader(out)).read_all()
