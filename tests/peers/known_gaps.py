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
    (re.compile(r"Polars compares datetimes only in one time zone"),
     "a zoned column against another zone raises in Polars too, unless its optimizer first drops the whole AND as "
     "contradictory (x == 3 & x == 4): quiver refuses the comparison either way"),
    (re.compile(r"computed in Polars' Int128, which quiver has only for \+ - \*"),
     "// % ** of a signed integer and a UInt64 (Polars' Int128) are refused"),
]


def known_gap(message):
    """The reason when message is a known gap, else None."""
    for pattern, reason in KNOWN_GAPS:
        if message and pattern.search(message):
            return reason
    return None
