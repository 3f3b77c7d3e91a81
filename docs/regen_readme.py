#!/usr/bin/env python3
"""Refreshes the example outputs of README.md and the PNGs it shows.

Run from the crate root after `cargo build --release`: re-runs every
`cargo run --release -- ...` example with target/release/quadpath (in a scratch folder
holding a link to maps/, and to ../shared beside it for the benchmark maps, so no stray files
land in the tree), replaces the output block after each, and copies the rendered PNGs into
docs/.

A command may span lines ending in `\`, and may use variables set earlier in its block
(`S=../shared/maps`, then `$S/...`).

`--section NAME` re-runs only the commands under the `## NAME` heading (for instance
`--section Performance`, whose bench takes a few minutes) and leaves the rest of the README
and the PNGs alone.
"""
import argparse, json, os, re, shutil, subprocess, tempfile
ap = argparse.ArgumentParser()
ap.add_argument('--section', help='only the commands under this "## " heading')
section = ap.parse_args().section
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
md_path = os.path.join(ROOT, 'README.md')
Q = os.path.join(ROOT, 'target', 'release', 'quadpath')
SCRATCH = tempfile.mkdtemp(prefix='quadpath-docs-')
WORK = os.path.join(SCRATCH, 'crate')
os.mkdir(WORK)
os.symlink(os.path.join(ROOT, 'maps'), os.path.join(WORK, 'maps'))
os.symlink(os.path.join(os.path.dirname(ROOT), 'shared'), os.path.join(SCRATCH, 'shared'))
os.mkdir(os.path.join(WORK, 'docs'))
s = open(md_path).read()
lines = s.split('\n')
out = []
heading = None
env = {}  # variables set so far in the current ```sh block
cmd = ''  # the command so far, when its line ends in a backslash
i = 0
while i < len(lines):
    l = lines[i]
    out.append(l)
    if l.startswith('## '):
        heading = l[3:].strip()
    if l.startswith('```'):
        env, cmd = {}, ''
    v = re.match(r'^([A-Z_]+)=(\S+)$', l)
    if v:
        env[v.group(1)] = v.group(2)
    if cmd or l.startswith('cargo run --release -- '):
        cmd += l[:-1] + ' ' if l.endswith('\\') else l
        if l.endswith('\\'):
            i += 1
            continue
    m = re.match(r'^cargo run --release -- (.*?)(\s+#.*)?$', cmd)
    cmd = ''
    # The last command of a block may have no output block after it (a block listing
    # several commands): nothing to refresh then.
    has_output = m and lines[i + 1] == '```' and next(
        (l for l in lines[i + 2:] if l.strip()), '').startswith('```')
    if has_output and section in (None, heading):
        args = [re.sub(r'\$([A-Z_]+)', lambda v: env[v.group(1)], a) for a in m.group(1).split()]
        r = subprocess.run([Q] + args, cwd=WORK, capture_output=True, text=True)
        assert r.returncode == 0, (args, r.stderr)
        # copy the closing ``` and blank line, then the output block
        j = i + 1
        out.append(lines[j]); j += 1
        while lines[j].strip() == '':
            out.append(lines[j]); j += 1
        assert lines[j].startswith('```'), lines[j]
        out.append(lines[j]); j += 1
        k = j
        while not lines[k].startswith('```'):
            k += 1
        out.extend(r.stdout.rstrip('\n').split('\n'))
        i = k
        continue
    i += 1
s = '\n'.join(out)
if section is not None:
    open(md_path, 'w').write(s)
    shutil.rmtree(SCRATCH)
    print('refreshed the commands of section %r in' % section, md_path)
    raise SystemExit
d = json.loads(open(os.path.join(WORK, 'den_paths.jsonl')).readline())
p = d['path']
line = '{"id":%d,"start":[%d,%d],"goal":[%d,%d],"optimal":%s,"length":%s,"path":[%s,...,%s],"query_us":%s}' % (
    d['id'], *d['start'], *d['goal'], json.dumps(d['optimal']), json.dumps(d['length']),
    ','.join(json.dumps(c).replace(' ', '') for c in p[:3]), ','.join(json.dumps(c).replace(' ', '') for c in p[-2:]), json.dumps(d['query_us']))
s = re.sub(r'\{"id":0,.*"query_us":[0-9.]+\}', lambda _: line, s)
s = re.sub(r'with the middle of its \d+-cell path', 'with the middle of its %d-cell path' % len(p), s)
open(md_path, 'w').write(s)
for f in ['find_arena.png', 'rts_valley_path.png', 'render_den312d.png', 'flow_field.png']:
    shutil.copy(os.path.join(WORK, 'docs', f), os.path.join(ROOT, 'docs', f))
shutil.rmtree(SCRATCH)
print('refreshed', md_path)
