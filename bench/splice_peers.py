#!/usr/bin/env python3
"""Splices a peers-bench output into BENCHMARKS.md.

Usage: python3 bench/splice_peers.py BENCHMARKS.md PEERS_OUTPUT

PEERS_OUTPUT is what `cargo bench -p quadpath-bench --bench peers -- ... > PEERS_OUTPUT`
printed (or its `--markdown` file). Replaced in BENCHMARKS.md: the summary table (the file's
first table headed `| contender |`) and, under `## Results`, the query sections by their
headings (maps and queries, build, memory, median, 95th percentile, the three speed-up
tables, suboptimality, invalid paths). The prose around them (the summary's paragraph, the
Reading) is written by hand: it says when and on what the run was made.
"""
import sys, re
bench_path, out_path = sys.argv[1], sys.argv[2]
bench = open(bench_path).read().split('\n')
out = open(out_path).read().split('\n')

def table_at(lines, start):
    """The table starting at the first '| contender |' line at or after start: (i, j)."""
    i = next(k for k in range(start, len(lines)) if lines[k].startswith('| contender |'))
    j = i
    while j < len(lines) and lines[j].startswith('|'):
        j += 1
    return i, j

# summary table
oi, oj = table_at(out, 0)
bi, bj = table_at(bench, 0)
bench[bi:bj] = out[oi:oj]

SECTIONS = ["### Maps and queries", "### Build (preprocessing) time", "### Memory",
            "### Median query time", "### 95th-percentile query time",
            "### Speed-up against `pathfinding::astar`", "### Speed-up against Warthog A*",
            "### Speed-up against Warthog JPS2", "### Suboptimality",
            "### Paths invalid under our rules"]

def section(lines, head, start=0):
    i = next(k for k in range(start, len(lines)) if lines[k].startswith(head))
    j = i + 1
    while j < len(lines) and not lines[j].startswith('#'):
        j += 1
    return i, j

res = next(k for k, l in enumerate(bench) if l.startswith('## Results'))
for head in SECTIONS:
    oi, oj = section(out, head)
    bi, bj = section(bench, head, res)
    new = out[oi:oj]
    while new and new[-1] == '':
        new.pop()
    new.append('')
    bench[bi:bj] = new
    print(f"spliced {head}: {bj-bi} -> {len(new)} lines", file=sys.stderr)
open(bench_path, 'w').write('\n'.join(bench))
