#!/usr/bin/env python3
"""tidy: the conventions a reviewer would otherwise check by eye (docs/STYLE.md).

1. Every C file is formatted by the committed .clang-format (clang-format
   --dry-run --Werror); generated files are listed in GENERATED and skipped.
2. Every header's include guard is QUIVER_<path>_H, the path relative to
   include/quiver/ or src/ (else to the repository root), '/' and '.' as '_'.
3. No internal name looks public: a qv_* identifier declared in src/ must be
   declared in include/quiver/ (internals use their module's prefix: qvb_,
   qvc_, qve_, qvk_, qvp_, qvs_, qvi_, qvsc_, exec qvx_, graph qvg_).

Usage: tests/tidy/check_tidy.py [--clang-format PATH]   (run from anywhere)"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATED = {'src/compute/polars_case_table.h'}  # scripts/gen_case_table.py writes it


def tracked(*patterns):
    out = subprocess.check_output(['git', '-C', ROOT, 'ls-files', '--', *patterns], text=True)
    return [f for f in out.split() if os.path.exists(os.path.join(ROOT, f))]


def guard_for(path):
    rel = path
    for top in ('include/quiver/', 'src/'):
        if rel.startswith(top):
            rel = rel[len(top):]
            break
    return 'QUIVER_' + re.sub(r'[^A-Za-z0-9]', '_', rel).upper()


def main():
    clang_format = 'clang-format'
    if '--clang-format' in sys.argv:
        clang_format = sys.argv[sys.argv.index('--clang-format') + 1]
    problems = []
    c_files = [f for f in tracked('*.c', '*.h') if f not in GENERATED]

    try:
        r = subprocess.run([clang_format, '--dry-run', '--Werror', *c_files], cwd=ROOT,
                           capture_output=True, text=True)
    except FileNotFoundError:
        print('tidy: clang-format not found (scripts/deps.sh installs it)')
        return 1
    if r.returncode != 0:
        files = sorted(set(re.findall(r'^(\S+?):\d+:\d+: error', r.stderr, re.M)))
        problems.append('not formatted (run: clang-format -i FILE): ' + ', '.join(files or ['?']))

    for f in tracked('*.h'):
        text = open(os.path.join(ROOT, f), encoding='utf-8').read()
        m = re.search(r'^#ifndef (\w+)\n#define (\w+)', text, re.M)
        want = guard_for(f)
        if not m or m.group(1) != want or m.group(2) != want:
            problems.append(f'{f}: include guard should be {want}')

    public = set()
    for f in tracked('include/quiver/*.h'):
        public |= set(re.findall(r'\bqv_\w+', open(os.path.join(ROOT, f), encoding='utf-8').read()))
    decl = re.compile(r'^(?:static\s+)?(?:inline\s+)?(?:const\s+)?[A-Za-z_][\w \*]*?\b(qv_\w+)\s*(?:\(|\[|=|;)'
                      r'|^typedef\b[^;{]*?\b(qv_\w+)\s*;|^\}\s*(qv_\w+)\s*;|^(?:typedef\s+)?(?:struct|enum|union)\s+(qv_\w+)',
                      re.M)
    for f in tracked('src/*.c', 'src/*.h'):
        for m in decl.finditer(open(os.path.join(ROOT, f), encoding='utf-8').read()):
            name = next(g for g in m.groups() if g)
            if name not in public:
                problems.append(f'{f}: internal name {name} uses the public prefix qv_')

    for p in problems:
        print('tidy:', p)
    print('tidy: ok' if not problems else f'tidy: {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
