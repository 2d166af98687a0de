#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keep the code examples of Documentation/*.rst equal to compiled sources.

The examples are written out in the .rst files, so that any
reStructuredText viewer shows them (literalinclude shows nothing outside
Sphinx), and each one is the region of a source file that a test compiles
and runs.  A block is announced by a comment naming the file and the tag
of its region, followed by a code-block:

    .. example: tools/testing/selftests/net/hicn/api_example.c [producer]

    .. code-block:: c

       ...the lines between the two "/* [producer] */" markers...

rst-examples.py --check  fails (exit 1) naming every block that differs
rst-examples.py --update rewrites the blocks from the sources
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(TOP, 'Documentation')
ANNOUNCE = re.compile(r'^\.\. example: (\S+) \[(\w+)\]\s*$')
INDENT = '   '


def region(path, tag):
    """The lines between the two '/* [tag] */' markers of @path."""
    marker = '/* [%s] */' % tag
    with open(os.path.join(TOP, path)) as f:
        lines = f.read().split('\n')
    at = [i for i, line in enumerate(lines) if line.strip() == marker]
    if len(at) != 2:
        raise ValueError('%s: %d markers %s, want 2' % (path, len(at), marker))
    body = lines[at[0] + 1:at[1]]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return [line.expandtabs(8) for line in body]


def block_at(lines, i):
    """(start, end, body) of the code-block after the announce at @i."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines) or not lines[j].startswith('.. code-block::'):
        raise ValueError('line %d: "example:" not followed by a code-block' % (i + 1))
    start = j + 1
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(INDENT)):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    body = [line[len(INDENT):] if line.strip() else '' for line in lines[start:end]]
    return start, end, body


def process(rst, update):
    with open(rst) as f:
        lines = f.read().split('\n')
    bad, count, i = [], 0, 0
    while i < len(lines):
        m = ANNOUNCE.match(lines[i])
        if not m:
            i += 1
            continue
        count += 1
        start, end, body = block_at(lines, i)
        want = region(m.group(1), m.group(2))
        if body != want:
            bad.append('%s:%d: example %s [%s] differs from its source'
                       % (os.path.relpath(rst, TOP), start + 1, m.group(1), m.group(2)))
            if update:
                lines[start:end] = [INDENT + w if w.strip() else '' for w in want]
        i = start + 1
    if update and bad:
        with open(rst, 'w') as f:
            f.write('\n'.join(lines))
    return count, bad


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ('--check', '--update'):
        sys.exit(__doc__)
    update = sys.argv[1] == '--update'
    total, errors = 0, []
    for name in sorted(os.listdir(DOCS)):
        if name.endswith('.rst'):
            try:
                n, bad = process(os.path.join(DOCS, name), update)
            except (OSError, ValueError) as e:
                errors.append('%s: %s' % (name, e))
                continue
            total += n
            errors += bad
    for e in errors:
        print(('updated: ' if update else '') + e, file=sys.stderr)
    if not update and errors:
        sys.exit(1)
    print('rst-examples: %d examples %s' % (total, 'updated' if update else 'match their sources'))


if __name__ == '__main__':
    main()
