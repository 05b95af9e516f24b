#!/usr/bin/env python3
"""libquiver.so exports exactly the public API: the functions and variables
declared in include/quiver/*.h, each of them marked QV_API, and nothing else.

usage: exports.py LIBRARY INCLUDE_DIR [CC [NM [INCLUDE_DIRS...]]]

The public headers are preprocessed with the C compiler (so QV_API expands
to the visibility attribute it stands for and the #if branches are the
compiler's); every top-level declaration they make that is not a typedef,
a static (inline) function or a bare struct/enum definition names one
symbol.  The library's dynamic, defined symbols come from `nm -D
--defined-only`.  Fails listing the differences in both directions, and any
public declaration that lacks QV_API (it would be hidden from the library).
"""

import glob
import os
import re
import subprocess
import sys

VISIBLE = 'visibility("default")'
# Names the linker itself may put into a shared library's dynamic table.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def preprocess(cc, include_dir, extra_includes=()):
    """The public headers' own text after preprocessing (system headers
    they include are dropped), one (file, text) pair per stretch."""
    headers = sorted(glob.glob(os.path.join(include_dir, "quiver", "*.h")))
    if not headers:
        sys.exit("exports: no headers under %s/quiver" % include_dir)
    source = "".join('#include "%s"\n' % h for h in headers)
    flags = ["-I" + d for d in (include_dir, *extra_includes)]
    proc = subprocess.run([cc, "-E", "-std=c11", *flags, "-x", "c", "-"],
                          input=source, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("exports: preprocessing the public headers failed:\n" + proc.stderr)
    public = os.path.realpath(os.path.join(include_dir, "quiver"))
    keep, current, out = False, None, []
    for line in proc.stdout.splitlines():
        m = re.match(r'#\s*(?:line\s+)?\d+\s+"([^"]*)"', line)
        if m:
            path = os.path.realpath(m.group(1)) if m.group(1)[:1] != "<" else ""
            keep = os.path.dirname(path) == public
            current = os.path.basename(path)
            continue
        if keep and line.strip():
            out.append((current, line))
    return out


def strip_balanced(text, opener, closer, keep_pair=False):
    """Removes every balanced opener...closer group (kept as an empty pair
    when keep_pair)."""
    out, depth = [], 0
    for ch in text:
        if ch == opener:
            if depth == 0 and keep_pair:
                out.append(opener + closer)
            depth += 1
        elif ch == closer and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def strip_attributes(text):
    """Drops __attribute__((...)), __asm__(...) and __extension__."""
    while True:
        m = re.search(r"\b(__attribute__|__asm__|asm)\s*\(", text)
        if not m:
            break
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        text = text[:m.start()] + " " + text[i + 1:]
    return re.sub(r"\b__extension__\b", " ", text)


def split_depth0(text, sep):
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def declarator_name(decl):
    """The identifier a declarator declares: `T f(args)`, `T (*p)(args)`,
    `T v[3]`, `T v`."""
    decl = decl.strip()
    m = re.search(r"\(\s*\*\s*([A-Za-z_][A-Za-z_0-9]*)\s*\)", decl)
    if m:  # pointer to function
        return m.group(1)
    paren = decl.find("(")
    head = decl if paren < 0 else decl[:paren]
    head = strip_balanced(head, "[", "]")
    names = IDENT.findall(head)
    return names[-1] if names else None


def declarations(chunks):
    """(name, file, has QV_API) for every symbol the headers declare."""
    # Join each header's text, then cut it into top-level declarations: at
    # ';' and after a function body (a {} that follows a parameter list).
    by_file = {}
    order = []
    for name, line in chunks:
        if name not in by_file:
            by_file[name] = []
            order.append(name)
        by_file[name].append(line)
    found = []
    for fname in order:
        text = strip_balanced(" ".join(by_file[fname]), "{", "}", keep_pair=True)
        segments, start = [], 0
        for m in re.finditer(r";|\{\}", text):
            if m.group() == "{}":
                before = strip_attributes(text[start:m.start()]).rstrip()
                if not before.endswith(")"):
                    continue  # a struct/enum body: the declaration goes on
            segments.append(text[start:m.end()])
            start = m.end()
        if text[start:].strip():
            sys.exit("exports: %s: cannot parse the text after the last declaration: %r"
                     % (fname, text[start:].strip()[:200]))
        for seg in segments:
            marked = VISIBLE in seg
            body = strip_attributes(seg).strip().rstrip(";").strip()
            words = IDENT.findall(body)
            if not words or words[0] == "typedef" or "static" in words:
                continue
            if re.fullmatch(r"(struct|union|enum)\s*\w*\s*(\{\})?", body):
                continue  # a bare struct/enum definition or forward declaration
            for decl in split_depth0(body, ","):
                name = declarator_name(decl)
                if name is None:
                    sys.exit("exports: %s: cannot find the name in %r" % (fname, seg.strip()))
                found.append((name, fname, marked))
    return found


def exported(nm, library):
    proc = subprocess.run([nm, "-D", "--defined-only", library], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("exports: %s -D failed:\n%s" % (nm, proc.stderr))
    names = set()
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            names.add(fields[-1].split("@")[0])
    return names - LINKER_SYMBOLS


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    library, include_dir = argv[1], argv[2]
    cc = argv[3] if len(argv) > 3 else "cc"
    nm = argv[4] if len(argv) > 4 else "nm"
    decls = declarations(preprocess(cc, include_dir, argv[5:]))
    declared = {name: fname for name, fname, _ in decls}
    unmarked = sorted({(fname, name) for name, fname, marked in decls if not marked})
    exports = exported(nm, library)
    extra = sorted(exports - declared.keys())
    missing = sorted(declared.keys() - exports)
    ok = True
    if len(declared) < 10:
        print("found only %d public declarations: the header parser is broken" % len(declared))
        ok = False
    if extra:
        ok = False
        print("exported by %s but not declared in include/quiver/ (%d):"
              % (os.path.basename(library), len(extra)))
        for name in extra:
            print("  " + name)
    if missing:
        ok = False
        print("declared in include/quiver/ but not exported (%d):" % len(missing))
        for name in missing:
            print("  %s  (%s)" % (name, declared[name]))
    if unmarked:
        ok = False
        print("declared in include/quiver/ without QV_API (%d):" % len(unmarked))
        for fname, name in unmarked:
            print("  %s  (%s)" % (name, fname))
    if not ok:
        return 1
    print("exports: %d public symbols, all exported, nothing else" % len(declared))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
