#!/usr/bin/env python3
"""Parse every query of the openCypher TCK with quiver's Cypher parser.

Reads the .feature files in place (never copies them), expands Scenario
Outlines by their Examples rows, and sends each scenario's queries
("having executed", "executing query", "executing control query", the
named graphs' set-up scripts) to the built tck_tool in one batch.  The tool
parses each query, prints it, parses the printed text and checks it prints
the same.

A scenario passes when all its queries parse, or, when its expected outcome
is "a SyntaxError should be raised at compile time", when its query (not
its set-up) is rejected.  A SyntaxError scenario whose query parses is
counted apart ("needs binder"): most of those errors (undefined variables,
type conflicts, misplaced aggregates) are the binder's to raise.

Usage:
  tck_parse.py --tool PATH --tck DIR [DIR...] [--passing FILE] [--write FILE] [-v]

--passing: fail (exit 1) when a scenario listed in FILE no longer passes.
--write:   write the passing scenarios to FILE (sorted).
Exits 77 (ctest's skip) with a message when no DIR has a features/ folder.
"""
import argparse
import collections
import os
import re
import subprocess
import sys


class Scenario:
    def __init__(self, folder, ident):
        self.folder = folder
        self.ident = ident
        self.queries = []  # (role, text): role 'setup' or 'query'
        self.syntax_error = None  # the expected SyntaxError's detail, if any


def docstring(lines, i):
    """The docstring opening at lines[i] (a line holding only triple quotes);
    returns (text, index after the closing line)."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    out = []
    i += 1
    while i < len(lines) and lines[i].strip() != '"""':
        line = lines[i]
        strip = min(indent, len(line) - len(line.lstrip()))
        out.append(line[strip:])
        i += 1
    return '\n'.join(out), i + 1


def cells(line):
    """The cells of a Gherkin table line, unescaped as Gherkin does: \\| is a
    '|', \\\\ a backslash, \\n a newline; any other backslash stays."""
    out, cur, k = [], [], 0
    s = line.strip()
    while k < len(s):
        c = s[k]
        if c == '\\' and k + 1 < len(s) and s[k + 1] in '|\\n':
            cur.append('\n' if s[k + 1] == 'n' else s[k + 1])
            k += 2
            continue
        if c == '|':
            out.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
        k += 1
    return out[1:]  # the text before the first '|' is not a cell


def table(lines, i):
    rows = []
    while i < len(lines) and lines[i].strip().startswith('|'):
        rows.append(cells(lines[i]))
        i += 1
    return rows, i


class Step:
    """One Given/When/Then/And/But line: its text after the keyword, the
    docstring and the table that follow it (None when absent)."""

    def __init__(self, keyword, text):
        self.keyword = keyword
        self.text = text
        self.doc = None
        self.table = None

    def substituted(self, row):
        """A copy with every <key> of an Examples row replaced by its value."""
        def sub(t):
            for key, val in row.items():
                t = t.replace(f'<{key}>', val)
            return t
        out = Step(self.keyword, sub(self.text))
        out.doc = None if self.doc is None else sub(self.doc)
        out.table = None if self.table is None else [[sub(c) for c in r] for r in self.table]
        return out


def read_feature(path, rel):
    """Scenarios of one .feature file as (ident, steps): a Background's steps
    first, Scenario Outlines expanded into one scenario per Examples row
    (ident "FILE: NAME #k", k from 1, with the row's values substituted);
    tags lines are ignored.  Shared by tck_parse.py and tck_run.py."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out = []
    background = []
    steps = None  # the current scenario's (or the Background's) steps
    name = None
    outline = False
    examples = []

    def finish():
        if name is None:
            return
        if not outline:
            out.append((f'{rel}: {name}', background + steps))
            return
        k = 0
        for header, body in examples:
            for r in body:
                k += 1
                row = dict(zip(header, r))
                out.append((f'{rel}: {name} #{k}', [st.substituted(row) for st in background + steps]))

    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith('Scenario Outline:') or s.startswith('Scenario:'):
            finish()
            outline = s.startswith('Scenario Outline:')
            name = s.split(':', 1)[1].strip()
            steps, examples = [], []
            i += 1
            continue
        if s.startswith('Background:'):
            steps = background
            i += 1
            continue
        if steps is None:
            i += 1
            continue
        if s.startswith('Examples:'):
            i += 1
            while i < len(lines) and not lines[i].strip().startswith('|'):
                i += 1
            rows, i = table(lines, i)
            if rows:
                examples.append((rows[0], rows[1:]))
            continue
        if s == '"""':
            text, i = docstring(lines, i)
            if steps:
                steps[-1].doc = text
            continue
        if s.startswith('|'):
            rows, i = table(lines, i)
            if steps:
                steps[-1].table = rows
            continue
        m = re.match(r'(Given|When|Then|And|But)\s+(.*)$', s)
        if m:
            steps.append(Step(m.group(1), m.group(2)))
        i += 1
    finish()
    return out


def parse_feature(path, rel, graphs):
    """Scenarios of one feature file: a list of Scenario."""
    folder = os.path.dirname(rel)
    out = []
    for ident, steps in read_feature(path, rel):
        sc = Scenario(folder, ident)
        for st in steps:
            step = st.text
            if step.startswith('having executed'):
                if st.doc is not None:
                    sc.queries.append(('setup', st.doc))
            elif step.startswith('executing query') or step.startswith('executing control query'):
                if st.doc is not None:
                    sc.queries.append(('query', st.doc))
            else:
                g = re.match(r'the ([\w-]+) graph$', step)
                if g and g.group(1) in graphs:
                    sc.queries.append(('setup', graphs[g.group(1)]))
                e = re.match(r'a SyntaxError should be raised at compile time: (.*)$', step)
                if e:
                    sc.syntax_error = e.group(1).strip()
        out.append(sc)
    return out


def load_graphs(tck):
    graphs = {}
    gdir = os.path.join(tck, 'graphs')
    if os.path.isdir(gdir):
        for g in sorted(os.listdir(gdir)):
            f = os.path.join(gdir, g, g + '.cypher')
            if os.path.isfile(f):
                graphs[g] = open(f, encoding='utf-8').read()
    return graphs


def run_tool(tool, texts):
    frames = b''.join(str(len(t.encode())).encode() + b'\n' + t.encode() for t in texts)
    r = subprocess.run([tool, '--batch'], input=frames, capture_output=True, check=False)
    lines = r.stdout.decode('utf-8', 'replace').split('\n')
    if r.returncode != 0 or len(lines) < len(texts):
        sys.exit(f'tck_parse: {tool} failed (exit {r.returncode}): {r.stderr.decode(errors="replace")[:2000]}')
    return [tuple((ln.split('\t', 1) + [''])[:2]) for ln in lines[:len(texts)]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--tck', required=True, nargs='+', help='candidate TCK folders; the first that exists is read')
    ap.add_argument('--passing')
    ap.add_argument('--write')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()

    found = [d for d in a.tck if d and os.path.isdir(os.path.join(d, 'features'))]
    if not found:
        print(f'tck_parse: SKIPPED: no openCypher TCK (features/) in any of: {", ".join(d for d in a.tck if d)}')
        return 77
    tck = found[0]
    print(f'tck_parse: reading {os.path.realpath(tck)}')
    feats = os.path.join(tck, 'features')
    graphs = load_graphs(tck)
    scenarios = []
    for root, _, files in os.walk(feats):
        for f in sorted(files):
            if f.endswith('.feature'):
                path = os.path.join(root, f)
                scenarios += parse_feature(path, os.path.relpath(path, feats), graphs)
    scenarios.sort(key=lambda s: s.ident)

    texts = [t for s in scenarios for _, t in s.queries]
    results = iter(run_tool(a.tool, texts))
    stats = collections.OrderedDict()
    passing, failures, roundtrip = [], [], []
    for s in scenarios:
        res = [(role, text, next(results)) for role, text in s.queries]
        st = stats.setdefault(s.folder, collections.Counter())
        st['scenarios'] += 1
        bad = [(role, text, r) for role, text, r in res if r[0] != 'ok']
        for role, text, r in bad:
            if r[0] == 'roundtrip':
                roundtrip.append((s.ident, text, r[1]))
        if s.syntax_error is not None:
            setup_bad = [b for b in bad if b[0] == 'setup']
            query_bad = [b for b in bad if b[0] == 'query' and b[2][0] == 'error']
            if not setup_bad and query_bad:
                st['rejected'] += 1
                passing.append(s.ident)
            elif not bad:
                st['needs binder'] += 1
            else:
                st['failing'] += 1
                failures.append((s, bad[0]))
        elif not bad:
            st['parsed'] += 1
            passing.append(s.ident)
        else:
            st['failing'] += 1
            failures.append((s, bad[0]))

    total = collections.Counter()
    print(f'{"folder":42} {"scen.":>6} {"parsed":>7} {"rejected":>9} {"binder":>7} {"failing":>8} {"pass %":>7}')
    for folder, st in sorted(stats.items()):
        total.update(st)
        ok = st['parsed'] + st['rejected']
        print(f'{folder:42} {st["scenarios"]:6} {st["parsed"]:7} {st["rejected"]:9} {st["needs binder"]:7} '
              f'{st["failing"]:8} {100.0 * ok / st["scenarios"]:6.1f}%')
    ok = total['parsed'] + total['rejected']
    print(f'{"total":42} {total["scenarios"]:6} {total["parsed"]:7} {total["rejected"]:9} '
          f'{total["needs binder"]:7} {total["failing"]:8} {100.0 * ok / max(1, total["scenarios"]):6.1f}%')
    print('("rejected": an expected SyntaxError the parser raises; "binder": an expected SyntaxError the parser'
          ' accepts, left to the binder)')

    if failures:
        print(f'\nfailing scenarios ({len(failures)}), first error each:')
        for s, (role, text, r) in failures:
            print(f'  {s.ident}\n    {r[0]}: {r[1]}')
            if a.verbose:
                print('    ' + text.replace('\n', '\n    '))
    rc = 0
    if roundtrip:
        print(f'\nprint/parse round trip broken ({len(roundtrip)}):')
        for ident, text, why in roundtrip:
            print(f'  {ident}: {why}\n    ' + text.replace('\n', '\n    '))
        rc = 1
    if a.write:
        with open(a.write, 'w', encoding='utf-8') as f:
            f.write('# Scenarios of the openCypher TCK whose queries quiver parses (or rejects, when a SyntaxError\n'
                    '# is expected); written by tests/graph/tck_parse.py --write, checked by ctest graph_tck_parse.\n')
            for ident in sorted(passing):
                f.write(ident + '\n')
        print(f'\nwrote {len(passing)} passing scenarios to {a.write}')
    if a.passing:
        want = [ln.rstrip('\n') for ln in open(a.passing, encoding='utf-8') if ln.strip() and not ln.startswith('#')]
        have = set(passing)
        known = {s.ident for s in scenarios}
        lost = [w for w in want if w not in have]
        if lost:
            print(f'\nREGRESSION: {len(lost)} listed scenario(s) no longer pass:')
            for w in lost:
                print('  ' + w + ('' if w in known else '  (not in the TCK any more)'))
            rc = 1
        new = sorted(have - set(want))
        if new:
            print(f'\n{len(new)} scenario(s) pass but are not listed in {a.passing} (run with --write to add them)')
    return rc


if __name__ == '__main__':
    sys.exit(main())
