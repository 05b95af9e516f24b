#!/usr/bin/env python3
"""Run the openCypher TCK on quiver's Cypher engine, in process through the
Python extension (quiver._quiver.Graph).

Reads the .feature files in place (never copies them) with tck_parse.py's
reader (Backgrounds, Scenario Outlines expanded by Examples rows).  Each
scenario runs on a fresh in-memory graph (qv_graph_open_memory):

  Given an empty graph / any graph     nothing to do (a new graph is empty)
  Given the NAME graph                 runs graphs/NAME/NAME.cypher
  And having executed: Q               runs Q (an error fails the scenario: "setup")
  And parameters are: | k | v |        v is Cypher literal text, passed as it is
  When executing [control] query: Q    runs Q with render_values (every value as Cypher text)
  Then the result should be, in any order / in order / empty
                                       rows compared as a bag / a list / none; each value read
                                       by tck_values.py (map keys and node labels in any order,
                                       floats by value), "ignoring element order for lists"
                                       compares lists as bags
  Then a E should be raised at compile time / runtime / any time: DETAIL
                                       the query must fail with a status E maps to (ERRORS
                                       below; the DETAIL is not checked), at compile time
                                       (qv_cypher_query refused it) when so expected
  And no side effects / the side effects should be: | +nodes | 1 |
                                       nodes, relationships, labels and properties read
                                       before and after the query with queries of our own
                                       (STATE_NODES, STATE_RELS) and compared as sets, as
                                       the TCK does
  And there exists a procedure ...     not supported: the scenario fails ("unsupported")

Scenarios run in a worker process, so a crash or a query that never ends
(--timeout seconds) costs one scenario ("crash" / "timeout"), not the run;
--jobs N splits the scenarios over N workers.

Usage:
  tck_run.py --tck DIR [DIR...] [--passing FILE] [--write FILE] [--jobs N] [--timeout S]
             [--only TEXT] [-v]

--passing: fail (exit 1) when a scenario listed in FILE no longer passes, and
           list the scenarios that pass but are not listed.
--write:   write the passing scenarios to FILE (sorted).
--only:    run only the scenarios whose id contains TEXT (with -v: why each fails).
Exits 77 (ctest's skip) with a message when no DIR has a features/ folder or
the quiver package cannot be imported.
"""
import argparse
import collections
import json
import os
import pickle
import re
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tck_parse  # noqa: E402
import tck_values  # noqa: E402

# qv_status values (include/quiver/base.h)
INVALID, NOMEM, IO, CORRUPT, PARSE, TYPE, NOT_FOUND, UNSUPPORTED, OVERFLOW, EXISTS, CONFLICT = range(1, 12)

# The TCK's error classes -> the quiver status codes that count as that error.
# The first code is the one the class maps to; the TCK files semantic checks
# (UndefinedVariable, VariableTypeConflict, InvalidArgumentType, ...) under
# SyntaxError, which quiver's binder reports as QV_ERR_INVALID or QV_ERR_TYPE
# (include/quiver/graph.h), so those count for SyntaxError too.  An
# "unsupported" (a feature the engine lacks) never counts as the error.
ERRORS = {
    'SyntaxError': (PARSE, INVALID, TYPE),
    'SemanticError': (INVALID, PARSE),
    'TypeError': (TYPE, INVALID),
    'ArgumentError': (INVALID, OVERFLOW, TYPE),
    'ArithmeticError': (OVERFLOW, INVALID),
    'EntityNotFound': (NOT_FOUND, INVALID),
    'ConstraintVerificationFailed': (INVALID, CONFLICT),
    'ParameterMissing': (INVALID, NOT_FOUND, PARSE),
    'ProcedureError': (NOT_FOUND, INVALID),
}

# The graph's state, measured before and after a query with two queries of
# our own: each node and relationship with its id and its rendered text,
# (:A:B {k: v}) / [:T {k: v}], from which come the sets of node ids,
# relationship ids, labels in use and (entity, key, value) properties.  A
# side effect is the size of a set difference, as the TCK defines them.
STATE_NODES = 'MATCH (n) RETURN id(n) AS i, n'
STATE_RELS = 'MATCH ()-[r]->() RETURN id(r) AS i, r'
STATE_KEYS = ('nodes', 'relationships', 'labels', 'properties')

MEMORY_LIMIT = 1 << 30  # per query: a runaway query fails instead of swapping the machine


class Failure(Exception):
    def __init__(self, category, why):
        super().__init__(why)
        self.category = category
        self.why = why


def load_scenarios(tck):
    feats = os.path.join(tck, 'features')
    out = []
    for root, _, files in os.walk(feats):
        for f in sorted(files):
            if f.endswith('.feature'):
                path = os.path.join(root, f)
                rel = os.path.relpath(path, feats)
                for ident, steps in tck_parse.read_feature(path, rel):
                    out.append((os.path.dirname(rel), ident, steps))
    out.sort(key=lambda s: s[1])
    return out


# ---- one scenario ------------------------------------------------------------

class Run:
    """One scenario's graph, parameters and last query outcome."""

    def __init__(self, graph_type, graphs):
        self.g = graph_type.memory()
        self.graphs = graphs
        self.params = {}
        self.result = None  # (columns, rows) of the last query
        self.error = None  # the exception of the last query
        self.before = None  # the state before the last "executing query"
        self.queries = 0

    def query(self, text, params=None):
        self.queries += 1
        return self.g.rows(text, params or None, literal=True, memory_limit=MEMORY_LIMIT, threads=1,
                           use_csr=os.environ.get('QV_TCK_PLAN', 'csr') == 'csr')

    def setup(self, text):
        try:
            self.query(text)
        except Exception as e:  # noqa: BLE001 - any failure of a set-up query fails the scenario
            cat = 'unsupported' if getattr(e, 'code', None) == UNSUPPORTED else 'setup'
            raise Failure(cat, f'set-up query failed: {describe(e)}\n      {one_line(text)}') from None

    def state(self):
        out = {k: set() for k in STATE_KEYS}
        for q, kind in ((STATE_NODES, 'node'), (STATE_RELS, 'rel')):
            try:
                rows = self.query(q)[1]
            except Exception as e:  # noqa: BLE001
                raise Failure('side effects', f'cannot measure the graph: {describe(e)}\n      {q}') from None
            for ident, text in rows:
                try:
                    v = tck_values.parse(text)
                except ValueError as e:
                    raise Failure('side effects', f'cannot read {text!r} ({e})') from None
                if v[0] != kind:
                    raise Failure('side effects', f'{q} gave {text!r}, not a {kind}')
                out['nodes' if kind == 'node' else 'relationships'].add(ident)
                if kind == 'node':
                    out['labels'].update(v[1])
                out['properties'].update((kind, ident, k, val) for k, val in v[2][1])
        return out

    def execute(self, text, control):
        self.before = None if control else self.state_or_none()
        self.result = self.error = None
        try:
            self.result = self.query(text, self.params)
        except Exception as e:  # noqa: BLE001 - kept: a Then step says whether it was expected
            self.error = e

    def state_or_none(self):
        try:
            return self.state()
        except Failure as f:
            return f  # reported only if a side-effects step asks

    # -- Then steps

    def need_result(self):
        if self.error is not None:
            cat = 'unsupported' if getattr(self.error, 'code', None) == UNSUPPORTED else 'error'
            raise Failure(cat, f'the query raised {describe(self.error)}')
        if self.result is None:
            raise Failure('harness', 'a result step before any query')

    def check_result(self, table, ordered, ignore_list_order, empty):
        self.need_result()
        cols, rows = self.result
        if empty:
            if rows:
                raise Failure('result', f'expected no rows, got {len(rows)}: {shorten(rows)}')
            return
        header, body = table[0], table[1:]
        if sorted(header) != sorted(cols):
            raise Failure('result', f'columns {cols}, expected {header}')
        pos = [cols.index(h) for h in header] if len(set(cols)) == len(cols) else list(range(len(cols)))
        got = [tuple(tck_values.canon(r[i], ignore_list_order) for i in pos) for r in rows]
        want = [tuple(tck_values.canon(c, ignore_list_order) for c in r) for r in body]
        same = got == want if ordered else collections.Counter(got) == collections.Counter(want)
        if not same:
            raise Failure('result', f'rows differ{" (in order)" if ordered else ""}:\n'
                          f'      got      {shorten(rows)}\n      expected {shorten(body)}')

    def check_error(self, cls, phase, detail):
        if self.error is None:
            got = 'rows' if self.result is not None else 'nothing'
            raise Failure('no error', f'expected {cls} at {phase} ({detail}), the query returned {got}'
                          + (f': {shorten(self.result[1])}' if self.result else ''))
        e = self.error
        codes = ERRORS.get(cls)
        if codes is None:
            raise Failure('harness', f'unknown TCK error class {cls}')
        code = getattr(e, 'code', None)
        if code == UNSUPPORTED:
            raise Failure('unsupported', f'expected {cls} ({detail}), got {describe(e)}')
        if code not in codes:
            raise Failure('wrong error', f'expected {cls} ({detail}), got {describe(e)}')
        if phase == 'compile time' and getattr(e, 'phase', 'compile') != 'compile':
            raise Failure('wrong error', f'expected {cls} at compile time ({detail}), got it at run time: '
                          f'{describe(e)}')

    def check_side_effects(self, table):
        want = {k: 0 for k in ('+nodes', '-nodes', '+relationships', '-relationships', '+labels', '-labels',
                               '+properties', '-properties')}
        for row in table or []:
            if len(row) != 2 or row[0] not in want:
                raise Failure('harness', f'side effect row {row}')
            want[row[0]] = int(row[1])
        if isinstance(self.before, Failure):
            raise self.before
        if self.before is None:
            raise Failure('harness', 'a side-effects step before any query')
        after = self.state()
        got = {}
        for what in STATE_KEYS:
            got['+' + what] = len(after[what] - self.before[what])
            got['-' + what] = len(self.before[what] - after[what])
        if got != want:
            diff = ', '.join(f'{k} {got[k]} (expected {want[k]})' for k in want if got[k] != want[k])
            raise Failure('side effects', diff)


def describe(e):
    status = getattr(e, 'status', None)
    phase = getattr(e, 'phase', None)
    tags = ', '.join(t for t in (status, phase) if t)
    return f'{type(e).__name__}' + (f' [{tags}]' if tags else '') + f': {e}'


def one_line(text, n=200):
    t = ' '.join(text.split())
    return t if len(t) <= n else t[:n] + '...'


def shorten(rows, n=300):
    t = repr(rows)
    return t if len(t) <= n else t[:n] + '...'


RESULT = re.compile(r'the result should be(, in (any order|order))?( \(ignoring element order for lists\))?:?$')
RAISED = re.compile(r'an? (\w+) should be raised at (compile time|runtime|any time)(?:: (.*))?$')


def run_scenario(graph_type, graphs, steps):
    """Returns (category, why): category 'pass' or why it failed."""
    r = Run(graph_type, graphs)
    try:
        for st in steps:
            t = st.text
            if t in ('an empty graph', 'any graph'):
                continue
            m = re.match(r'the ([\w-]+) graph$', t)
            if m:
                if m.group(1) not in graphs:
                    raise Failure('harness', f'no graph {m.group(1)}')
                r.setup(graphs[m.group(1)])
            elif t.startswith('having executed'):
                r.setup(st.doc or '')
            elif t.startswith('parameters are'):
                r.params = {row[0]: row[1] for row in st.table or []}
            elif t.startswith('executing query'):
                r.execute(st.doc or '', control=False)
            elif t.startswith('executing control query'):
                r.execute(st.doc or '', control=True)
            elif t == 'the result should be empty':
                r.check_result(None, False, False, True)
            elif RESULT.match(t):
                m = RESULT.match(t)
                r.check_result(st.table or [[]], m.group(2) == 'order', bool(m.group(3)), False)
            elif RAISED.match(t):
                m = RAISED.match(t)
                r.check_error(m.group(1), m.group(2), (m.group(3) or '').strip())
            elif t == 'no side effects':
                r.check_side_effects([])
            elif t.startswith('the side effects should be'):
                r.check_side_effects(st.table)
            elif t.startswith('there exists a procedure'):
                raise Failure('unsupported', 'procedures (CALL) are not supported: ' + t)
            else:
                raise Failure('harness', f'unknown step: {st.keyword} {t}')
    except Failure as f:
        return f.category, f.why
    return 'pass', ''


# ---- the harness's own check: its steps and comparisons on a fake engine ------

class _FakeError(Exception):
    def __init__(self, msg, code, phase):
        super().__init__(msg)
        self.code, self.phase, self.status = code, phase, 'fake'


class _FakeGraph:
    """Answers a few fixed queries the way the engine would render them."""

    @classmethod
    def memory(cls):
        g = cls()
        g.nodes = []  # (labels, props)
        return g

    def rows(self, text, params=None, **_):
        if text.startswith('CREATE'):
            self.nodes.append((['A'], {'k': '1'}))
            return [], []
        if text == STATE_NODES:
            return ['i', 'n'], [(str(i), '(%s {%s})' % (''.join(':' + lab for lab in labs),
                                                         ', '.join(f'{k}: {v}' for k, v in p.items())))
                                for i, (labs, p) in enumerate(self.nodes)]
        if text == STATE_RELS:
            return ['i', 'r'], []
        if text == 'RETURN $x AS x':
            return ['x'], [(params['x'],)]
        if text.startswith('SYNTAX'):
            raise _FakeError('bad', PARSE, 'compile')
        if text.startswith('RUNTIME'):
            raise _FakeError('bad', TYPE, 'runtime')
        if text.startswith('UNSUPPORTED'):
            raise _FakeError('no', UNSUPPORTED, 'compile')
        return ['a', 'b'], [('[2, 1]', "{b: 1.0, `c d`: 'x\\'y'}"), ('1e-4', '(:B:A {q: null, p: [1]})')]


def selftest():
    """Fails (exit 1) when the harness no longer judges known answers right."""
    def step(text, doc=None, table=None):
        st = tck_parse.Step('And', text)
        st.doc, st.table = doc, table
        return st

    q = step('executing query:', 'MATCH (n) RETURN n')
    rows = [['b', 'a'], ["{`c d`: 'x\\'y', b: 1.0}", '[2, 1]'], ['(:A:B {p: [1], q: null})', '0.0001']]
    cases = [
        ('pass', [step('any graph'), q, step('the result should be, in any order:', table=rows),
                  step('no side effects')]),
        ('pass', [q, step('the result should be, in order:', table=rows)]),
        ('result', [q, step('the result should be, in order:', table=[rows[0], rows[2], rows[1]])]),
        ('result', [q, step('the result should be, in any order:', table=[['a', 'b'], ['[1, 2]', '1']])]),
        ('pass', [q, step('the result should be (ignoring element order for lists):',
                          table=[rows[0], rows[2], [rows[1][0], '[1, 2]']])]),
        ('result', [q, step('the result should be empty')]),
        ('pass', [step('executing query:', 'CREATE (:A {k: 1})'), step('the result should be empty'),
                  step('the side effects should be:', table=[['+nodes', '1'], ['+labels', '1'],
                                                             ['+properties', '1']])]),
        ('side effects', [step('executing query:', 'CREATE (:A {k: 1})'), step('no side effects')]),
        ('side effects', [step('having executed:', 'CREATE ()'), step('executing query:', 'CREATE (:A {k: 1})'),
                          step('the side effects should be:', table=[['+nodes', '1'], ['+labels', '1'],
                                                                     ['+properties', '1']])]),
        ('pass', [step('parameters are:', table=[['x', "'a\\'b'"]]), step('executing query:', 'RETURN $x AS x'),
                  step('the result should be, in any order:', table=[['x'], ['"a\'b"']])]),
        ('pass', [step('executing query:', 'SYNTAX'), step('a SyntaxError should be raised at compile time: X')]),
        ('wrong error', [step('executing query:', 'RUNTIME'),
                         step('a SyntaxError should be raised at compile time: X')]),
        ('pass', [step('executing query:', 'RUNTIME'), step('a TypeError should be raised at runtime: X')]),
        ('wrong error', [step('executing query:', 'SYNTAX'), step('a TypeError should be raised at runtime: X')]),
        ('unsupported', [step('executing query:', 'UNSUPPORTED'),
                         step('a SyntaxError should be raised at compile time: X')]),
        ('no error', [q, step('a SyntaxError should be raised at compile time: X')]),
        ('error', [step('executing query:', 'RUNTIME'), step('the result should be empty')]),
        ('setup', [step('having executed:', 'SYNTAX'), q]),
        ('unsupported', [step('there exists a procedure test.p() :: ()')]),
        ('harness', [step('a step nobody knows')]),
    ]
    bad = []
    for k, (want, steps) in enumerate(cases):
        got, why = run_scenario(_FakeGraph, {}, steps)
        if got != want:
            bad.append(f'  case {k}: expected {want}, got {got}: {why}')
    if bad:
        print('tck_run: SELF-TEST FAILED (the harness misjudges known answers):\n' + '\n'.join(bad))
        return False
    return True


# ---- worker: runs scenarios [lo, hi) and prints one JSON line each -----------

def load_extension():
    """quiver._quiver, loaded without the package's Python glue (which imports
    polars: a second a worker need not spend, and a crashed worker restarts)."""
    import glob
    import importlib.machinery
    import importlib.util

    for d in sys.path:
        for f in sorted(glob.glob(os.path.join(d or '.', 'quiver', '_quiver*.so'))):
            loader = importlib.machinery.ExtensionFileLoader('quiver._quiver', f)
            spec = importlib.util.spec_from_file_location('quiver._quiver', f, loader=loader)
            m = importlib.util.module_from_spec(spec)
            loader.exec_module(m)
            return m
    import quiver._quiver as m  # noqa: PLC0415 - not found by path: whatever the import system finds

    return m


def worker(path, lo, hi, only):
    """Runs scenarios [lo, hi) of the pickled list at path, one JSON line each."""
    import pickle
    import resource

    soft = 8 << 30  # address space: a runaway allocation fails in this process, not the machine
    resource.setrlimit(resource.RLIMIT_AS, (soft, resource.getrlimit(resource.RLIMIT_AS)[1]))
    graph_type = load_extension().Graph
    with open(path, 'rb') as f:
        graphs, scenarios = pickle.load(f)
    for k in range(lo, hi):
        folder, ident, steps = scenarios[k]
        if only and only not in ident:
            continue
        print(json.dumps({'start': k}), flush=True)
        t0 = time.perf_counter()
        cat, why = run_scenario(graph_type, graphs, steps)
        print(json.dumps({'k': k, 'cat': cat, 'why': why, 's': time.perf_counter() - t0}), flush=True)
    print(json.dumps({'done': True}), flush=True)
    return 0


def engine_state():
    """None when the engine answers a query, else why not (the stub says unsupported)."""
    try:
        load_extension().Graph.memory().rows('RETURN 1 AS x')
    except Exception as e:  # noqa: BLE001
        return describe(e)
    return None


def run_all(path, idents, jobs, timeout, only):
    """{k: (category, why)} for every scenario run, over `jobs` worker processes.
    A worker that dies or takes longer than timeout on a scenario costs that
    scenario; a new worker goes on after it."""
    n = len(idents)
    results, seconds = {}, {}
    procs = {}  # fd -> [proc, hi, scenario in flight (or None), its start time, unread bytes, stderr file]

    def start(lo, hi):
        err = tempfile.TemporaryFile()  # the worker's stderr: its last words go into a crash's reason
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), '--worker', path, str(lo), str(hi),
                              '--tck', '-'] + (['--only', only] if only else []),
                             stdout=subprocess.PIPE, stderr=err)
        procs[p.stdout.fileno()] = [p, hi, None, time.monotonic(), b'', err, lo]

    for j in range(jobs):
        lo, hi = n * j // jobs, n * (j + 1) // jobs
        if lo < hi:
            start(lo, hi)
    while procs:
        ready, _, _ = select.select(list(procs), [], [], 1.0)
        now = time.monotonic()
        for fd in list(procs):
            st = procs[fd]
            p = st[0]
            ended = done = False
            if fd in ready:
                chunk = os.read(fd, 1 << 16)
                ended = not chunk
                st[4] += chunk
                while b'\n' in st[4]:
                    line, st[4] = st[4].split(b'\n', 1)
                    msg = json.loads(line)
                    if 'start' in msg:
                        st[2], st[3] = msg['start'], now
                    elif 'done' in msg:
                        done = True
                    else:
                        results[msg['k']] = (msg['cat'], msg['why'])
                        seconds[msg['k']] = msg['s']
                        st[2], st[6] = None, msg['k'] + 1
            stuck = st[2] is not None and now - st[3] > timeout
            if not (ended or stuck or done):
                continue
            if stuck:
                p.kill()
            p.wait()
            p.stdout.close()
            del procs[fd]
            st[5].seek(max(0, st[5].seek(0, os.SEEK_END) - 400))
            last = st[5].read().decode('utf-8', 'replace').strip()
            st[5].close()
            k = st[2]
            if k is None and not done:  # died between scenarios: the harness's own fault
                print(f'tck_run: a worker died outside any scenario (exit {p.returncode}):\n{last}', file=sys.stderr)
                for j in range(st[6], st[1]):
                    if not only or only in idents[j]:
                        results[j] = ('harness', f'not run: the worker died (exit {p.returncode})')
            if k is not None and not done:
                results[k] = ('timeout', f'no answer within {timeout:.0f} s') if stuck else \
                    ('crash', f'the worker died (exit {p.returncode}) in this scenario' +
                     (f'; its last words: {last[-200:]}' if last else ''))
                if k + 1 < st[1]:
                    start(k + 1, st[1])
    return results, seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tck', required=True, nargs='+', help='candidate TCK folders; the first that exists is read')
    ap.add_argument('--passing')
    ap.add_argument('--write')
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--timeout', type=float, default=60.0, help='seconds a scenario may take')
    ap.add_argument('--only')
    ap.add_argument('--worker', nargs=3, help=argparse.SUPPRESS)
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--plan', choices=['csr', 'hash'], default=os.environ.get('QV_TCK_PLAN', 'csr'),
                    help='csr: hops through the CSR (default); hash: use_csr=False, every hop a hash join')
    a = ap.parse_args()
    os.environ['QV_TCK_PLAN'] = a.plan  # the workers read it

    if a.worker:
        return worker(a.worker[0], int(a.worker[1]), int(a.worker[2]), a.only)
    found = [d for d in a.tck if d and os.path.isdir(os.path.join(d, 'features'))]
    if not found:
        print(f'tck_run: SKIPPED: no openCypher TCK (features/) in any of: {", ".join(d for d in a.tck if d)}')
        return 77
    tck = found[0]
    if not selftest():
        return 1
    try:
        not_running = engine_state()
    except ImportError as e:
        print(f'tck_run: SKIPPED: the quiver package cannot be imported ({e}); set PYTHONPATH=BUILD/python')
        return 77
    print(f'tck_run: reading {os.path.realpath(tck)}')
    if not_running:
        print(f'tck_run: !!! the Cypher engine does not run queries yet ("RETURN 1" raised {not_running});'
              ' every scenario fails !!!')

    scenarios = load_scenarios(tck)
    t0 = time.monotonic()
    with tempfile.NamedTemporaryFile(prefix='tck_run.', suffix='.pickle') as f:
        pickle.dump((tck_parse.load_graphs(tck), scenarios), f)
        f.flush()
        results, seconds = run_all(f.name, [ident for _, ident, _ in scenarios], max(1, a.jobs), a.timeout, a.only)
    elapsed = time.monotonic() - t0

    cats = ['pass', 'result', 'error', 'wrong error', 'no error', 'side effects', 'setup', 'unsupported',
            'crash', 'timeout', 'harness']
    stats = collections.OrderedDict()
    passing, failures = [], []
    for k, (folder, ident, _) in enumerate(scenarios):
        if k not in results:
            continue
        cat, why = results[k]
        st = stats.setdefault(folder, collections.Counter())
        st['scenarios'] += 1
        st[cat] += 1
        if cat == 'pass':
            passing.append(ident)
        else:
            failures.append((ident, cat, why))

    short = {'pass': 'pass', 'result': 'rows', 'error': 'error', 'wrong error': 'wrongerr', 'no error': 'noerr',
             'side effects': 'sidefx', 'setup': 'setup', 'unsupported': 'unsupp', 'crash': 'crash',
             'timeout': 'timeout', 'harness': 'harness'}
    shown = [c for c in cats if c == 'pass' or any(st[c] for st in stats.values())]
    print(f'{"folder":42} {"scen.":>6} ' + ' '.join(f'{short[c]:>8}' for c in shown) + f' {"pass %":>7}')
    total = collections.Counter()
    for folder, st in sorted(stats.items()):
        total.update(st)
        print(f'{folder:42} {st["scenarios"]:6} ' + ' '.join(f'{st[c]:8}' for c in shown) +
              f' {100.0 * st["pass"] / st["scenarios"]:6.1f}%')
    print(f'{"total":42} {total["scenarios"]:6} ' + ' '.join(f'{total[c]:8}' for c in shown) +
          f' {100.0 * total["pass"] / max(1, total["scenarios"]):6.1f}%')
    print(f'({elapsed:.1f} s; rows: wrong rows or columns; error: the query raised; wrongerr: another error than '
          'expected; noerr: no error raised; sidefx: side effects differ; setup: a set-up query failed; unsupp: '
          'the engine or the harness does not support it)')

    if a.verbose or a.only:
        print(f'\nfailing scenarios ({len(failures)}):')
        for ident, cat, why in failures:
            print(f'  {ident}\n    {cat}: {why}')
    else:
        by = collections.Counter()
        for _, cat, why in failures:
            by[(cat, re.sub(r"'[^']*'|\d+", '_', why.split('\n')[0])[:140])] += 1
        if by:
            print('\nmost common failures (-v lists every one):')
            for (cat, why), c in by.most_common(15):
                print(f'  {c:5}  {cat}: {why}')

    slow = sorted(seconds.items(), key=lambda kv: -kv[1])[:5]
    if slow and slow[0][1] > 0.5:
        print('\nslowest scenarios: ' + '; '.join(f'{scenarios[k][1]} {t:.1f} s' for k, t in slow if t > 0.5))

    rc = 0
    if a.write:
        with open(a.write, 'w', encoding='utf-8') as f:
            f.write('# Scenarios of the openCypher TCK that quiver runs and passes (results, errors, side effects);\n'
                    '# written by tests/graph/tck_run.py --write, checked by ctest graph_tck_exec.\n')
            for ident in sorted(passing):
                f.write(ident + '\n')
        print(f'\nwrote {len(passing)} passing scenarios to {a.write}')
    if a.passing:
        want = [ln.rstrip('\n') for ln in open(a.passing, encoding='utf-8') if ln.strip() and not ln.startswith('#')]
        have = set(passing)
        known = {ident for _, ident, _ in scenarios}
        ran = {scenarios[k][1] for k in results}
        lost = [w for w in want if w not in have and (w in ran or w not in known)]
        if lost:
            print(f'\nREGRESSION: {len(lost)} listed scenario(s) no longer pass:')
            why = {ident: f'{cat}: {w}' for ident, cat, w in failures}
            for w in lost:
                print('  ' + w + ('' if w in known else '  (not in the TCK any more)'))
                if w in why:
                    print('    ' + why[w].replace('\n', '\n    '))
            rc = 1
        new = sorted(have - set(want))
        if new:
            print(f'\n{len(new)} scenario(s) pass but are not listed in {a.passing} (run with --write to add them):')
            for w in new[:50]:
                print('  ' + w)
            if len(new) > 50:
                print(f'  ... and {len(new) - 50} more')
    return rc


if __name__ == '__main__':
    sys.exit(main())
