"""What quiver cannot run yet, named so that anything else fails.

NOT_YET_EVALUABLE (quiver_driver) covers operators the scanner's binder
refuses ("cannot be bound", "not supported"): the evaluator is being
extended.  KNOWN_GAPS are other refusals of the text front end or the
binder, each with the reason it is a gap rather than a wrong answer.  A
quiver error that matches neither fails the tests; rows that differ from
Polars' always fail.
"""

import re

KNOWN_GAPS = [
    (re.compile(r"integer out of range for an Int64 list"),
     "the text front end types an is_in list holding 2**64-1 as Int64 (Polars: UInt64)"),
    (re.compile(r"cannot apply - to timestamp"), "timestamp - timestamp (a Duration) is not bound yet"),
    (re.compile(r"regexp_match: invalid pattern"),
     "str.contains(strict=False) with an invalid regex: Polars gives null, quiver fails the scan"),
    (re.compile(r"XOR expects boolean operands"), "^ of integers (bitwise) is not bound yet"),
    (re.compile(r"fill_null\(strategy='(forward|backward|min|max|mean)'\) reads the whole column"),
     "refused by design: a fill_null strategy that reads the whole column cannot run batch by batch"),
    (re.compile(r"computed in Polars' Int128, which quiver has only for \+ - \*"),
     "// % ** of a signed integer and a UInt64 (Polars' Int128) are refused"),
]

# Where quiver keeps rows and Polars raises, by design (documented in
# docs/compute.md): quiver evaluates AND conjuncts left to right on the rows
# still alive, so a strict cast in a later conjunct fails only on rows the
# earlier ones keep; Polars evaluates it on every row.
KNOWN_DIVERGENCES = [
    (re.compile(r"conversion from `\w+` to `\w+` failed"),
     "a strict cast fails in Polars on a row an earlier AND conjunct drops in quiver"),
    # Polars' own lazy engine (what quiver.scan is) does not hand list.get to
    # the scan; it filters with it after the pushed conjuncts, on their rows.
    (re.compile(r"get index is out of bounds"),
     "list.get raises in eager Polars on a row another AND conjunct drops in lazy Polars and in quiver"),
]


def known_divergence(polars_error, text):
    """The reason when quiver returning rows where Polars raised is by design."""
    for pattern, reason in KNOWN_DIVERGENCES:
        if polars_error and pattern.search(polars_error) and "&" in text:
            return reason
    return None


def known_gap(message):
    """The reason when message is a known gap, else None."""
    for pattern, reason in KNOWN_GAPS:
        if message and pattern.search(message):
            return reason
    return None
