#!/usr/bin/env python3
"""Row-length statistics of MatrixMarket coordinate matrices (Python 3 standard library only).

Usage: python3 scripts/mtx_row_stats.py FILE.mtx [FILE.mtx ...]

For each file: the banner, the size line, and the row lengths of the matrix as
core/matrix/matrix_market.hpp reads it (symmetric / skew-symmetric files mirrored, duplicates
merged): max, mean, max/mean and a histogram by powers of two ([1], [2, 3], [4, 7], ...).
For symmetric files the stored (one-triangle) row max and mean are printed as well.
Used for the row-length figures in inputs/data/matrices/NOTICE.md.
"""
import sys
from collections import Counter


def histogram(lengths):
    bins = Counter(0 if n == 0 else n.bit_length() for n in lengths)
    out = []
    for b in sorted(bins):
        if b == 0:
            out.append('[0] %d' % bins[b])
            continue
        lo, hi = 1 << (b - 1), (1 << b) - 1
        out.append(('[%d] %d' % (lo, bins[b])) if lo == hi else ('[%d, %d] %d' % (lo, hi, bins[b])))
    return ', '.join(out)


def stats(path):
    with open(path, 'rb') as f:
        banner = f.readline().decode().split()
        symmetry = banner[4].lower() if len(banner) > 4 else 'general'
        comments = []
        line = f.readline()
        while line.startswith(b'%') or not line.strip():
            comments.append(line.decode(errors='replace').rstrip())
            line = f.readline()
        rows, cols, entries = map(int, line.split())
        stored = [0] * rows
        pattern = set()
        duplicates = diagonal = 0
        for line in f:
            if not line.strip() or line.startswith(b'%'):
                continue
            t = line.split()
            i, j = int(t[0]) - 1, int(t[1]) - 1
            stored[i] += 1
            if (i, j) in pattern:
                duplicates += 1
            pattern.add((i, j))
            if symmetry != 'general' and i != j:
                pattern.add((j, i))
            diagonal += i == j
    lengths = [0] * rows
    for i, _ in pattern:
        lengths[i] += 1
    total = sum(lengths)
    name = next((c for c in comments if c.startswith('% name:')), '')
    print('%s: %s  %s' % (path, ' '.join(banner[1:]), name))
    print('  %d x %d, %d stored entries (%d duplicates, %d diagonal)' %
          (rows, cols, entries, duplicates, diagonal))
    print('  as read (mirrored): %d entries; row max %d, mean %.4f, max/mean %.1f, empty rows %d' %
          (total, max(lengths), total / rows, max(lengths) / (total / rows), lengths.count(0)))
    print('  histogram: ' + histogram(lengths))
    if symmetry != 'general':
        print('  stored triangle: row max %d, mean %.4f' % (max(stored), entries / rows))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        stats(p)
