#!/usr/bin/env node
/**
 * Groups src/policy/ by loading phase (issue 19 item 4), mechanically and re-runnably:
 *
 *   node scripts/group-policy-by-phase.mjs          # git mv + rewrite, in the working tree
 *   node scripts/group-policy-by-phase.mjs --check  # list what would move, change nothing
 *
 * 1. `git mv src/policy/<name>.ts src/policy/<phase>/<name>.ts` for every file of PHASES
 *    still at the top of src/policy/ (a file already moved, or gone, is skipped; a file not
 *    in PHASES stays where it is and is listed, so a new file is never moved by guess).
 * 2. Every relative module specifier in src/, test/, bench/ and scripts/ (`from '…'`,
 *    `import('…')`, `vi.mock('…')`, …: any quoted './…' or '../…' ending in .js or .ts)
 *    that named a moved file, or that sits in a moved file, is resolved from the file's old
 *    place and written again from its new one.
 * 3. bench's `compiled('policy/<name>')` (dist/ paths) and every written path
 *    `policy/<name>.ts` in the docs and comments follow the move.
 *
 * Safe to run again after merging branches that still edit the old places: merge them
 * first (git follows the renames or leaves the old files), then run it once more.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Each phase (load-policy.ts STAGES: parse, validate, build, then the checks; and writing) and its files. */
const PHASES = {
  parse: [
    'read-files', 'fs-failure', 'utf8', 'limits', 'text-depth', 'cst-shape', 'fast-parse', 'subset-yaml', 'source-doc',
    'field-path', 'node-path', 'duplicate-keys', 'recursive-alias', 'yaml-findings', 'number-text', 'number-limits',
  ],
  validate: ['schema', 'cluster-shape', 'validate-schema', 'suggest'],
  build: [
    'access', 'beside-cluster', 'build-cluster', 'build-job', 'build-promises', 'build-queue', 'build-quotas',
    'build-resource-policies', 'build-running-job', 'build-scales', 'build-spot-markets', 'build-whatifs',
    'build-workspaces', 'derive-standings', 'parse-fields', 'place-pods', 'unique-docs', 'read-job',
  ],
  check: ['check-caps', 'check-scales', 'check-snapshot'],
  write: ['write-min', 'prove-write', 'apply-scaling', 'to-docs'],
};
/** What stays at the top: the pipeline itself and what every phase shares. */
const TOP = new Set(['load-policy', 'stages', 'collector']);

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const check = process.argv.includes('--check');
const policy = join(root, 'src', 'policy');

/** Every file of PHASES: its old place (src/policy/<name>.ts) → its phase's place. */
const home = new Map();
for (const [phase, names] of Object.entries(PHASES)) for (const name of names) home.set(join(policy, `${name}.ts`), join(policy, phase, `${name}.ts`));
/** The files this run moves: those still at their old place. */
const moves = new Map([...home].filter(([from]) => existsSync(from)));
/** Where each moved file stood, by its new place: specifiers a merge brought in were written from there. */
const oldPlace = new Map([...home].map(([from, to]) => [to, from]));
const unplaced = readdirSync(policy).filter((f) => f.endsWith('.ts') && !TOP.has(f.slice(0, -3)) && !home.has(join(policy, f)));
if (unplaced.length) process.stderr.write(`left at the top of src/policy (not in PHASES): ${unplaced.join(', ')}\n`);
if (check) {
  for (const [from, to] of moves) process.stdout.write(`${relative(root, from)} -> ${relative(root, to)}\n`);
  process.exit(0);
}

/** Every file the rewrite reads: sources, tests, benchmarks, scripts, docs. */
function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}
const code = ['src', 'test', 'bench', 'scripts'].flatMap((d) => walk(join(root, d))).filter((f) => /\.(ts|tsx|mts|mjs|js)$/.test(f));
// CHANGELOG.md is history: its entries keep the paths they were written with.
const prose = [...walk(join(root, 'docs')).filter((f) => f.endsWith('.md')), ...['README.md', 'CONTRIBUTING.md', join('bench', 'README.md')].map((f) => join(root, f)).filter(existsSync)];

const posix = (p) => p.split(sep).join('/');
/** A module specifier from `fromFile` to `target`, spelt with `ext`. */
function specifier(fromFile, target, ext) {
  let rel = posix(relative(dirname(fromFile), target)).replace(/\.ts$/, ext);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

/** `policy/<name>` (dist-relative, and in written paths) → `policy/<phase>/<name>`. */
const byName = new Map([...home].map(([from, to]) => [posix(relative(policy, from)).replace(/\.ts$/, ''), posix(relative(policy, to)).replace(/\.ts$/, '')]));

/** The source a specifier names from `base` (a file's path), taking moves into account; undefined when it names none. */
function targetOf(base, spec) {
  const t = resolve(dirname(base), `${spec}.ts`);
  if (moves.has(t)) return moves.get(t);
  if (existsSync(t)) return t;
  return home.get(t); // moved by an earlier run
}

let changed = 0;
for (const file of code) {
  const newFile = moves.get(file) ?? file;
  const text = readFileSync(file, 'utf8');
  let out = text.replace(/(['"])(\.{1,2}\/[^'"\s]*?)(\.js|\.ts)\1/g, (all, q, spec, ext) => {
    // From the file's place now; else, for a file in a phase folder, from its old place
    // (a specifier a merge wrote before the move).
    let target = targetOf(file, spec);
    if (target === undefined && oldPlace.has(newFile)) target = targetOf(oldPlace.get(newFile), spec);
    if (target === undefined) return all;
    // Unmoved file, unmoved target: keep the spelling as it is.
    if (newFile === file && target === resolve(dirname(file), `${spec}.ts`)) return all;
    return `${q}${specifier(newFile, target, ext)}${q}`;
  });
  // bench: compiled('policy/<name>') loads dist/policy/<name>.js.
  out = out.replace(/compiled(<[^>]*>)?\('policy\/([a-z0-9-]+)'\)/g, (all, t = '', name) => (byName.has(name) ? `compiled${t}('policy/${byName.get(name)}')` : all));
  out = rewritePaths(out);
  if (out !== text) {
    writeFileSync(file, out);
    changed++;
  }
}
for (const file of prose) {
  const text = readFileSync(file, 'utf8');
  const out = rewritePaths(text);
  if (out !== text) {
    writeFileSync(file, out);
    changed++;
  }
}

/** Written paths `policy/<name>.ts` (or .js) in comments and docs, when the name moved. */
function rewritePaths(text) {
  return text.replace(/(^|[^a-z0-9/-])((?:src\/|dist\/)?policy\/)([a-z0-9-]+)\.(ts|js)\b/g, (all, before, prefix, name, ext) =>
    byName.has(name) ? `${before}${prefix}${byName.get(name)}.${ext}` : all,
  );
}

for (const [from, to] of moves) {
  execFileSync('mkdir', ['-p', dirname(to)]);
  execFileSync('git', ['mv', from, to], { cwd: root });
}
process.stdout.write(`moved ${moves.size} files into ${Object.keys(PHASES).length} phase folders; rewrote ${changed} files\n`);
