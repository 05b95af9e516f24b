"""The LDBC SNB Interactive queries in bench/graph/ldbc/, read for the peer test and the benchmark.

Each query is NAME.cypher (openCypher, as quiver runs it) and, where Kuzu's
dialect differs, NAME.kuzu.cypher.  The leading `//` lines of NAME.cypher
describe it and carry its directives:

    // params: {"personId": 933}             one JSON object per parameter set (repeatable)
    // unordered-lists: colA, colB          result columns holding collect() lists, whose order
                                            Cypher leaves open: compared as sorted lists

The leading comment lines are taken off before a text is sent to an engine.
A query is ordered (compared row by row) when its last RETURN has ORDER BY.
"""

from __future__ import annotations

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LDBC_QUERY_DIR = os.path.join(HERE, "ldbc")
NAMES = ["IS1", "IS3", "IS5", "IS6", "IC1", "IC13"]


class LdbcQuery:
    def __init__(self, name, text, kuzu_text, params, unordered_lists):
        self.name, self.text, self.kuzu_text = name, text, kuzu_text
        self.params, self.unordered_lists = params, unordered_lists

    def ordered(self):
        return "ORDER BY" in self.text.rsplit("RETURN", 1)[-1]


def _split(path):
    """(header comment lines without '//', the query text) of a .cypher file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = []
    while lines and (lines[0].startswith("//") or not lines[0].strip()):
        head.append(lines.pop(0)[2:].strip())
    text = "\n".join(lines).strip()
    if not text:
        raise ValueError("%s: no query after the header" % path)
    return head, text


def load(name, qdir=LDBC_QUERY_DIR):
    head, text = _split(os.path.join(qdir, name + ".cypher"))
    params, unordered = [], []
    for line in head:
        if line.startswith("params:"):
            try:
                params.append(json.loads(line[len("params:"):]))
            except ValueError as exc:
                raise ValueError("%s.cypher: bad params line %r: %s" % (name, line, exc)) from None
        elif line.startswith("unordered-lists:"):
            unordered = [c.strip() for c in line[len("unordered-lists:"):].split(",") if c.strip()]
    if not params:
        raise ValueError("%s.cypher: no `// params:` line" % name)
    kpath = os.path.join(qdir, name + ".kuzu.cypher")
    kuzu_text = _split(kpath)[1] if os.path.exists(kpath) else text
    return LdbcQuery(name, text, kuzu_text, params, unordered)


def load_all(qdir=LDBC_QUERY_DIR):
    return [load(n, qdir) for n in NAMES]
