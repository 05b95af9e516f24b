"""Values as the openCypher TCK writes them, read into comparable Python
objects (for tests/graph/tck_run.py).

The TCK's expected cells and quiver's rendered results (render_values: every
value as Cypher text) are both read with `parse`, which returns a hashable
canonical form, so that two texts of the same value compare equal:

- null, true, false; integers; floats by their double value (1.0, 1e-4,
  1.0E-4, NaN, Infinity, -Infinity), never equal to an integer;
- strings in single or double quotes with Cypher's escapes (\\' \\" \\\\ \\n \\t
  \\r \\b \\f \\uXXXX \\UXXXXXXXX);
- lists (in order, or as bags with ignore_list_order), maps (key order does
  not matter; keys bare or `quoted`);
- nodes (:A:B {k: v}) (labels as a set, properties as a map), relationships
  [:T {k: v}], paths <(a)-[:T]->(b)<-[:U]-(c)>.

Anything else raises ValueError; the caller then compares the raw texts.
"""

import math

_ESC = {'\\': '\\', "'": "'", '"': '"', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}


def _float_key(f):
    """A float's identity: its shortest digits; every NaN one, -0.0 as 0.0 (Cypher's equality)."""
    if f != f:
        return 'nan'
    return repr(f + 0.0) if f == 0 else repr(f)


class _Reader:
    def __init__(self, text, ignore_list_order):
        self.s = text
        self.k = 0
        self.bag = ignore_list_order

    def fail(self, what):
        raise ValueError(f'{what} at offset {self.k} of {self.s!r}')

    def ws(self):
        while self.k < len(self.s) and self.s[self.k] in ' \t\r\n':
            self.k += 1

    def peek(self, lit):
        self.ws()
        return self.s.startswith(lit, self.k)

    def eat(self, lit):
        if not self.peek(lit):
            self.fail(f'expected {lit!r}')
        self.k += len(lit)

    def try_eat(self, lit):
        if self.peek(lit):
            self.k += len(lit)
            return True
        return False

    def name(self):
        self.ws()
        if self.try_eat('`'):
            out = []
            while True:
                j = self.s.find('`', self.k)
                if j < 0:
                    self.fail('unclosed `name`')
                out.append(self.s[self.k:j])
                self.k = j + 1
                if self.s.startswith('`', self.k):  # `` inside is one backtick
                    out.append('`')
                    self.k += 1
                    continue
                return ''.join(out)
        j = self.k
        while j < len(self.s) and (self.s[j].isalnum() or self.s[j] == '_'):
            j += 1
        if j == self.k:
            self.fail('expected a name')
        out, self.k = self.s[self.k:j], j
        return out

    def string(self):
        q = self.s[self.k]
        self.k += 1
        out = []
        while True:
            if self.k >= len(self.s):
                self.fail('unclosed string')
            c = self.s[self.k]
            if c == q:
                self.k += 1
                return ('str', ''.join(out))
            if c == '\\' and self.k + 1 < len(self.s):
                e = self.s[self.k + 1]
                if e in _ESC:
                    out.append(_ESC[e])
                    self.k += 2
                    continue
                n = 4 if e == 'u' else 8 if e == 'U' else 0
                digits = self.s[self.k + 2:self.k + 2 + n]
                if n and len(digits) == n and all(d in '0123456789abcdefABCDEF' for d in digits):
                    out.append(chr(int(digits, 16)))
                    self.k += 2 + n
                    continue
            out.append(c)
            self.k += 1

    def number(self):
        neg = self.s.startswith('-', self.k)
        j = self.k + (1 if neg else 0)
        for word, val in (('Infinity', math.inf), ('NaN', math.nan)):
            if self.s.startswith(word, j):
                self.k = j + len(word)
                return ('float', _float_key(-val if neg else val))
        start = self.k
        j = start + (1 if self.s.startswith('-', start) else 0)
        while j < len(self.s) and (self.s[j].isdigit() or self.s[j] in '.eE' or
                                   (self.s[j] in '+-' and self.s[j - 1] in 'eE')):
            j += 1
        text = self.s[start:j]
        self.k = j
        try:
            if any(c in text for c in '.eE'):
                return ('float', _float_key(float(text)))
            return ('int', int(text))
        except ValueError:
            self.fail(f'bad number {text!r}')

    def props(self):
        if not self.peek('{'):
            return ('map', ())
        return self.map_()

    def map_(self):
        self.eat('{')
        items = []
        if not self.try_eat('}'):
            while True:
                k = self.name()
                self.eat(':')
                items.append((k, self.value()))
                if self.try_eat('}'):
                    break
                self.eat(',')
        return ('map', tuple(sorted(items, key=lambda kv: kv[0])))

    def node(self):
        self.eat('(')
        labels = []
        while self.try_eat(':'):
            labels.append(self.name())
        p = self.props()
        self.eat(')')
        return ('node', tuple(sorted(labels)), p)

    def rel_body(self):
        self.eat('[')
        self.eat(':')
        t = self.name()
        p = self.props()
        self.eat(']')
        return ('rel', t, p)

    def path(self):
        self.eat('<')
        parts = [self.node()]
        while not self.try_eat('>'):
            left = self.try_eat('<-')
            if not left:
                self.eat('-')
            r = self.rel_body()
            right = self.try_eat('->')
            if not right:
                self.eat('-')
            parts.append(('<-' if left else '-') + ('->' if right else '-'))
            parts.append(r)
            parts.append(self.node())
        return ('path', tuple(parts))

    def value(self):
        self.ws()
        if self.k >= len(self.s):
            self.fail('expected a value')
        c = self.s[self.k]
        if c in '\'"':
            return self.string()
        if c == '{':
            return self.map_()
        if c == '(':
            return self.node()
        if c == '<':
            return self.path()
        if c == '[':
            if self.s.startswith('[:', self.k):
                return self.rel_body()
            self.eat('[')
            items = []
            if not self.try_eat(']'):
                while True:
                    items.append(self.value())
                    if self.try_eat(']'):
                        break
                    self.eat(',')
            if self.bag:
                items.sort(key=repr)
            return ('list', tuple(items))
        if c == '-' or c.isdigit() or self.s.startswith(('NaN', 'Infinity'), self.k):
            return self.number()
        for word, val in (('null', ('null',)), ('true', ('bool', True)), ('false', ('bool', False))):
            if self.s.startswith(word, self.k):
                self.k += len(word)
                return val
        self.fail('unexpected text')


def parse(text, ignore_list_order=False):
    """The canonical form of one TCK value text; ValueError when it is none."""
    r = _Reader(text, ignore_list_order)
    v = r.value()
    r.ws()
    if r.k != len(r.s):
        r.fail('text after the value')
    return v


def canon(text, ignore_list_order=False):
    """parse(text), or ('text', stripped text) when it does not parse."""
    try:
        return parse(text, ignore_list_order)
    except ValueError:
        return ('text', text.strip())
