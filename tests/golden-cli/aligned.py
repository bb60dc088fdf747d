#!/usr/bin/env python3
"""aligned.py HEADER_REGEX < OUTPUT: every table of a geoplan report is
aligned. A table starts at a line matching HEADER_REGEX and runs to the
next blank line. Cells are runs of text two or more blanks apart; each is
matched to the header column it overlaps. A column must then be left-
aligned (every cell starts where its header does) or right-aligned (every
cell ends where its header does). Rows holding a note (a failure, a row
that does not fit) and the lines a note wraps onto are not checked past
their first cell. Prints what is wrong; exit 1 if anything is."""
import re
import sys


def spans(line):
    return [(m.start(), m.end()) for m in re.finditer(r'\S+(?: \S+)*', line)]


def check(table, out):
    head = spans(table[0])
    left = [True] * len(head)
    right = [True] * len(head)
    seen = [False] * len(head)
    for line in table[1:]:
        if re.search(r'failed:|no plan:|does not|^ {10}', line):
            continue
        cells = spans(line)
        for s, e in cells:
            cols = [j for j, (hs, he) in enumerate(head) if s < he and e > hs]
            if len(cols) != 1:
                out.append('cell %r of %r overlaps %d columns' % (line[s:e], line, len(cols)))
                continue
            j = cols[0]
            seen[j] = True
            left[j] = left[j] and s == head[j][0]
            right[j] = right[j] and e == head[j][1]
    for j, (hs, he) in enumerate(head):
        if seen[j] and not (left[j] or right[j]):
            out.append('column %r is neither left- nor right-aligned in:\n%s'
                       % (table[0][hs:he], '\n'.join(table)))


def main():
    header = re.compile(sys.argv[1])
    lines = sys.stdin.read().split('\n')
    out, found = [], 0
    i = 0
    while i < len(lines):
        if header.search(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            check(lines[i:j], out)
            found += 1
            i = j
        else:
            i += 1
    if not found:
        out.append('no table headed %r' % sys.argv[1])
    for o in out:
        print(o)
    sys.exit(1 if out else 0)


main()
