"""Writes docs/lance-pushdown.md: which predicate shapes reach Lance.

    make lance-coverage      (= QV_BUILD_DIR=build .venv/bin/python tests/peers/lance_coverage.py)

Runs every generated expression (exprgen.py) through quiver's translator
(with the peer table's schema), the reference polars_pylance 0.1.9, Lance
and Polars (peer_run.py), and renders the table.  test_peer_reference.py checks
that the committed doc is this script's output.
"""

import collections
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import exprgen  # noqa: E402
import peer_run  # noqa: E402

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "lance-pushdown.md")


def _answer(tr):
    if tr.error:
        return "error"
    if not tr.pushed:
        return "declined"
    return "exact" if tr.exact else "inexact"


def _verdict(tr, polars):
    if tr.error:
        return "fails: " + tr.error
    if not tr.pushed:
        return "declines"
    v = peer_run.judge_translation(tr, polars)
    return "not judged (Polars raises)" if v is None else v


def differences(results):
    """Expressions where quiver and the reference answer differently: one
    pushes and the other declines, the exactness differs, or Lance keeps
    different rows for the two SQL strings.  Mere spelling is not one."""
    out = []
    for r in results:
        q, ref = r.quiver, r.reference
        kind = None
        if _answer(q) != _answer(ref):
            kind = "%s vs %s" % (_answer(q), _answer(ref))
        elif q.pushed and ref.pushed and (q.lance.ids != ref.lance.ids or q.lance.error != ref.lance.error):
            kind = "different rows"
        if kind:
            out.append({
                "shape": r.case.shape, "text": r.case.text, "kind": kind,
                "quiver_sql": q.sql, "reference_sql": ref.sql,
                "quiver": _verdict(q, r.polars), "reference": _verdict(ref, r.polars),
            })
    return out


def _reasons(why):
    out = []
    for line in why.splitlines():
        m = re.match(r"declined (.+?)(?: at column \d+)?: (.*?)(?: \[.*\])?$", line)
        if m and "an operand does not translate exactly" not in m.group(2):
            out.append("%s: %s" % (m.group(1), m.group(2)))
    return out


def _md(text):
    return text.replace("|", "\\|").replace("\n", " ")


def _who_right(d):
    """Which side keeps the right rows, by the Lance run."""
    q, ref = d["quiver"], d["reference"]
    if q.startswith("not judged") or ref.startswith("not judged"):
        return "not judged (Polars raises)"
    if q.startswith("fails"):
        return "quiver's front end cannot parse it (known gap); reference %s" % ("right" if ref == "right" else ref.split(":")[0])
    q_ok, ref_ok = q in ("right", "declines"), ref in ("right", "declines")
    if q_ok and not ref_ok:
        return "quiver (the reference is wrong)"
    if ref_ok and not q_ok:
        return "the reference (quiver is wrong)"
    if not q_ok and not ref_ok:
        return "neither"
    if q == "right" and ref == "declines":
        return "both safe; quiver pushes"
    if ref == "right" and q == "declines":
        return "both safe; the reference pushes"
    return "both right"


def who_counts(diffs):
    return dict(collections.Counter(_who_right(d) for d in diffs).most_common())


# The part of the doc after this line depends on quiver's scanner, which
# others are extending; test_peer_reference.py checks only the part before it.
UNCHECKED = "<!-- below: quiver's scanner status at generation time, not checked by the tests -->"


def _scan_status(results):
    import known_gaps

    nye, gaps = collections.Counter(), collections.Counter()
    for r in results:
        if peer_run.not_yet_evaluable(r.scan_on):
            m = re.search(r"operator (\S+) cannot be bound", r.scan_on.error)
            nye[m.group(1) if m else r.scan_on.error] += 1
        elif not r.scan_on.ok and known_gaps.known_gap(r.scan_on.error):
            gaps[known_gaps.known_gap(r.scan_on.error)] += 1
    ok = sum(1 for r in results if r.scan_on.ok and r.polars.ok)
    same = sum(1 for r in results if r.scan_on.ok and r.polars.ok and r.scan_on.rows == r.polars.rows)
    return [UNCHECKED, "", "## quiver's scanner on the same expressions", "",
            "`quiver scan --where` (tests/peers/test_peer_polars.py) against Polars' rows: %d expressions ran,"
            " %d kept exactly Polars' rows. Not yet evaluable by the scanner (its binder refuses the operator;"
            " being added), by operator: %s." % (ok, same, ", ".join("`%s` %d" % kv for kv in nye.most_common())),
            "", "Other refusals (tests/peers/known_gaps.py): %s." % "; ".join(
                "%s (%d)" % kv for kv in gaps.most_common())]


# Shapes quiver declines although the reference pushes them (or some
# instance of them), each with the case that goes wrong in Lance.
DECLINED_ON_PURPOSE = [
    "## Declined on purpose",
    "",
    "What quiver still declines among the shapes the reference pushes, with the case that goes wrong"
    " (pylance 14.0.2 against Polars 2.1.0):",
    "",
    "- `(pl.col(\"u64\") - -1) != -5`: Polars computes UInt64 with a negative literal in Int64 (values past"
    " 2**63 wrap there); Lance's `CAST(u64 AS BIGINT)` fails the query on them, and the bare `u64 - -1` keeps"
    " other rows (the reference's answer is wrong on the peer table).",
    "- when/then/otherwise: Lance's filter parser refuses CASE (\"Expression 'CASE WHEN ...' is not supported"
    " SQL in lance\"), and nothing else spells a branch.",
    "- strict narrowing and float-to-integer casts (`pl.col(\"f\").cast(pl.Int64)`): Polars raises on NaN,"
    " infinities and out-of-range values, Lance's CAST fails the query or, under a comparison, DataFusion"
    " unwraps it (`CAST(i32 AS SMALLINT) >= -1` becomes `i32 >= -1`); `wrap_numerical=True` casts: Lance has"
    " no wrapping cast.",
    "- non-strict casts of strings to unsigned integers: Lance reads `'-0'` as 0, Polars as null.",
    "- min/max_horizontal of floats outside a comparison: `min_horizontal(-0.0, 0.0)` is 0.0 in Polars and"
    " -0.0 in Lance, which `1 / min_horizontal(f, g)` turns into +inf against -inf (under a comparison"
    " quiver spells the zeros and NaN so that the sign cannot matter, and pushes it).",
    "- dt.truncate of a zoned timestamp: not checked against Polars where a local midnight does not exist"
    " (DST starting at 00:00); dt parts and dt.date of zoned timestamps are pushed (checked on 60,000 instants"
    " in 11 zones).",
    "- `str.contains(strict=False)` with an invalid pattern (`\"(\"`): null in Polars, Lance fails the query.",
    "- sqrt / ln / cbrt of Float32: computed in Float32 by both, not checked bit for bit; `log(base)`: NaN in"
    " Polars, NULL in Lance outside the domain.",
    "- `pl.col(\"tz\")` against a datetime with another zone: Polars raises, so nothing is pushed.",
]


def render(results):
    shapes = collections.OrderedDict()
    for r in results:
        shapes.setdefault(r.case.shape, []).append(r)
    catalogue = [s for s in shapes if not s.startswith("composed")]
    reach = [s for s in catalogue if any(r.quiver.pushed for r in shapes[s])]
    ref_reach = [s for s in catalogue if any(r.reference.pushed for r in shapes[s])]
    n = collections.Counter(_answer(r.quiver) for r in results)
    nref = collections.Counter(_answer(r.reference) for r in results)
    diffs = differences(results)
    lines = [
        "# Lance pushdown coverage",
        "",
        "Generated by `make lance-coverage` (tests/peers/lance_coverage.py); do not edit by hand.",
        "tests/peers/test_peer_reference.py fails when this file is not the script's output.",
        "",
        "Every expression of tests/peers/exprgen.py (seed %d) is translated by quiver"
        " (`qv_to_lance_filter` with the peer table's schema) and by the reference,"
        " polars-pylance 0.1.9 (`polars_pylance.to_lance_filter(expr, schema=...)`);"
        " every SQL produced runs in pylance 14.0.2 and is judged against Polars 2.1.0's rows"
        " on the same table (tests/peers/peer_table.py: nulls, NaN of both signs, -0.0,"
        " infinities, integer extremes, empty and non-ASCII strings, Unicode whitespace,"
        " dates, timestamps with and without a zone, lists, structs)." % exprgen.seed(),
        "",
        "The tests (`make test-python`, or `QV_BUILD_DIR=build .venv/bin/python -m pytest tests/peers`) assert"
        " the same run: every quiver translation keeps Polars' rows in Lance (exact) or a superset (inexact),"
        " with the schema and without one, and quiver's scanner keeps Polars' rows with pushdown on and off."
        " Another seed: `QV_PEERS_SEED=N`; more expressions: `QV_PEERS_COUNT=N` (random ones, default %d);"
        " a failure prints the seed and the expression." % exprgen.DEFAULT_COUNT,
        "",
        "**%d of %d predicate shapes reach Lance** (at least one instance pushes down;"
        " the reference: %d of %d)." % (len(reach), len(catalogue), len(ref_reach), len(catalogue)),
        "",
        "Expressions: %d. quiver: %d exact, %d inexact (a superset, the rest re-applied by quiver),"
        " %d declined%s. Reference: %d exact, %d inexact, %d declined%s."
        % (len(results), n["exact"], n["inexact"], n["declined"],
           ", %d not parsed by quiver's front end" % n["error"] if n["error"] else "",
           nref["exact"], nref["inexact"], nref["declined"],
           ", %d errors" % nref["error"] if nref["error"] else ""),
        "",
        "Judged by Lance: quiver wrong %d times, the reference wrong %d times"
        " (exact must keep Polars' rows, inexact a superset, and Lance must not fail)."
        % (sum(1 for r in results if _verdict(r.quiver, r.polars).startswith("wrong")),
           sum(1 for r in results if _verdict(r.reference, r.polars).startswith("wrong"))),
        "",
        "## Shapes",
        "",
        "Columns: expressions tried; quiver's answers (exact / inexact / declined);"
        " the reference's; why quiver declined (from `quiver lance-filter --explain`).",
        "",
        "| shape | tried | quiver e/i/d | reference e/i/d | quiver declines because |",
        "|---|---|---|---|---|",
    ]
    for shape, rs in shapes.items():
        q = collections.Counter(_answer(r.quiver) for r in rs)
        f = collections.Counter(_answer(r.reference) for r in rs)
        reasons = []
        if not shape.startswith("composed"):
            for r in rs:
                for reason in _reasons(r.quiver.why):
                    if reason not in reasons:
                        reasons.append(reason)
        qtext = "%d/%d/%d" % (q["exact"], q["inexact"], q["declined"]) + (" (+%d unparsed)" % q["error"] if q["error"] else "")
        lines.append("| %s | %d | %s | %d/%d/%d | %s |" % (
            _md(shape), len(rs), qtext, f["exact"], f["inexact"], f["declined"] + f["error"],
            _md("; ".join(reasons[:4]) + (" ..." if len(reasons) > 4 else ""))))
    lines += [
        "",
        "## Where quiver and the reference differ",
        "",
        "%d expressions: one side pushes and the other declines, the exactness differs, or Lance keeps"
        " different rows for the two filters (spelling alone is not counted). Who keeps the right rows"
        " is decided by the Lance run. Catalogue expressions are all listed; compositions are counted." % len(diffs),
        "",
    ]
    who = collections.Counter(_who_right(d) for d in diffs)
    for k, v in who.most_common():
        lines.append("- %s: %d" % (k, v))
    lines += ["", "| expression | quiver | reference | right rows |", "|---|---|---|---|"]
    for d in diffs:
        if d["shape"].startswith("composed"):
            continue
        qa = "`` %s ``" % d["quiver_sql"] if d["quiver_sql"] else "declines"
        ra = "`` %s ``" % d["reference_sql"] if d["reference_sql"] else "declines"
        lines.append("| `` %s `` | %s | %s | %s |" % (_md(d["text"]), _md(qa), _md(ra), _md(_who_right(d) + (
            "" if d["quiver"] in ("right", "declines") and d["reference"] in ("right", "declines")
            else " (quiver: %s; reference: %s)" % (d["quiver"][:160], d["reference"][:160])))))
    lines += [""] + DECLINED_ON_PURPOSE + [""] + _scan_status(results)
    return "\n".join(lines) + "\n"


def main():
    with tempfile.TemporaryDirectory() as work:
        _, results = peer_run.run_all(work)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(render(results))
    print("wrote %s (%d expressions)" % (os.path.normpath(DOC), len(results)))


if __name__ == "__main__":
    main()
