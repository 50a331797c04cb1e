/**
 * Stage 2 of loading: every document against its kind's schema. Each zod issue becomes
 * a located finding with a stable code; nothing is thrown and nothing is dropped.
 */
import { toJSONSchema } from './zod.js';
import type * as z from './zod.js';
import type { Finding } from '../../errors.js';
import { clusterSpecFits } from './cluster-shape.js';
import { API_VERSION, envelope, KINDS, kindJsonSchema, policyJsonSchema, validationSchema, type Kind } from './schema.js';
import { findingAt, formatPath, type Doc, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import { linkedPath, type LinkedStep } from '../parse/node-path.js';
import { nearest, nearestField, type FieldPlaces } from './suggest.js';
import { codePoint, escapeDisplay, unsafeCharacter } from '../../model/display-text.js';
import { SHORT_TEXT_MAX, shortText } from '../../model/short-text.js';
import { INT32_MAX, INT32_MIN } from '../../model/kueue-policy.js';

/** A document that passed its schema, with its plain-JS value. */
export interface TypedDoc {
  sd: SourceDoc;
  kind: Kind;
  name: string;
  spec: unknown;
}

/** Validates every document; returns the ones that passed and the findings of those that did not. */
export function validateDocuments(docs: SourceDoc[]): { typed: TypedDoc[]; findings: Finding[] } {
  const typed: TypedDoc[] = [];
  const findings: Finding[] = [];
  const policyHasKueue = docs.some(statesKueue);
  for (const sd of docs) {
    let value: unknown;
    try {
      // The fast path's value, or the positioned document's (the two agree: policy/parse/fast-parse.ts).
      value = 'value' in sd ? sd.value : sd.doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      // The yaml library refuses documents that expand aliases without bound ("billion laughs").
      findings.push(
        findingAt(sd, [], 'policy/too-many-aliases', `the document could not be read: ${(e as Error).message.split('\n')[0]}`, 'use fewer YAML aliases (*name); at most 100 are expanded per document'),
      );
      continue;
    }
    // Text of printable ASCII holds none of the characters looked for: skip the walk over every string.
    const unsafe = sd.asciiOnly ? [] : unsafeStrings(sd, value);
    if (unsafe.length > 0) {
      // The document is refused, but its other mistakes are still reported, so one run
      // shows them all. Findings at or under a refused string are left out: they would
      // only echo the refused text as an unknown field or a value that does not fit.
      // Appended one by one: a spread of 160,000 findings overflowed the stack.
      for (const f of unsafe) findings.push(f);
      for (const f of outside(unsafe, schemaFindings(sd, value, policyHasKueue))) findings.push(f);
      continue;
    }
    const checked = checkDocument(sd, value, policyHasKueue);
    if ('findings' in checked) for (const f of checked.findings) findings.push(f);
    else typed.push(checked);
  }
  return { typed, findings };
}

/**
 * One value against one schema, as a document's field is checked: the same findings
 * (unknown fields with "did you mean", types, ranges, control characters), located through
 * `sd` at `prefix` + the field's path. For values that arrive without a document around
 * them (engine/read-request.ts: a `--submit` flag, an HTTP body), so that they meet the
 * rules a WhatIf file meets, from the one home of each rule.
 */
export function validateValue<T>(sd: Doc, prefix: PathSeg[], value: unknown, schema: z.ZodType<T>): { data: T; findings: [] } | { data?: undefined; findings: Finding[] } {
  // Unsafe strings first, as for a document: the rest of its findings are kept but those under a refused string.
  const unsafe = unsafeStrings(sd, value, prefix);
  const parsed = schema.safeParse(value, { reportInput: true });
  const issues = parsed.success ? [] : issuesToFindings(sd, prefix, parsed.error.issues, (path) => fieldsAt(valueSchema(schema), path.slice(prefix.length)));
  if (unsafe.length > 0) return { findings: [...unsafe, ...outside(unsafe, issues)] };
  if (!parsed.success) return { findings: issues };
  return { data: parsed.data, findings: [] };
}

/** The findings of a document refused for unsafe strings, without those at or under one of their paths. */
function outside(unsafe: Finding[], others: Finding[]): Finding[] {
  const under = (path: string, root: string): boolean => path === root || path.startsWith(`${root}.`) || path.startsWith(`${root}[`);
  return others.filter((f) => !unsafe.some((u) => under(f.path, u.path)));
}

/** The schema findings of a document value, or none when it passes. */
function schemaFindings(sd: SourceDoc, value: unknown, policyHasKueue: boolean): Finding[] {
  const checked = checkDocument(sd, value, policyHasKueue);
  return 'findings' in checked ? checked.findings : [];
}

/** One document value against the envelope and its kind's schema: the typed document, or its findings. */
/** True for a QuotaTree document stating `rules: kueue`, read without converting the document (a Cluster may be large). */
function statesKueue(sd: SourceDoc): boolean {
  if (sd.value !== undefined) return isKueueTree(sd.value);
  const doc = sd.doc;
  return doc.get('kind') === 'QuotaTree' && doc.getIn(['spec', 'rules']) === 'kueue';
}

/** True for a QuotaTree that states `rules: kueue` (SEMANTICS 12): its documents and the policy's jobs meet the wider schemas. */
function isKueueTree(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const v = value as { kind?: unknown; spec?: unknown };
  return v.kind === 'QuotaTree' && v.spec !== null && typeof v.spec === 'object' && (v.spec as { rules?: unknown }).rules === 'kueue';
}

function checkDocument(sd: SourceDoc, value: unknown, policyHasKueue: boolean): TypedDoc | { findings: Finding[] } {
  // A mapping with neither apiVersion nor kind is some other YAML (a values file in the folder): one finding, not one per missing field.
  const foreign = value !== null && typeof value === 'object' && !Array.isArray(value) && !('apiVersion' in value) && !('kind' in value);
  if (value === null || typeof value !== 'object' || Array.isArray(value) || foreign) {
    return {
      findings: [
        findingAt(
          sd,
          [],
          'policy/not-a-document',
          'a policy document must be a mapping with apiVersion, kind, metadata and spec',
          `start the document with "apiVersion: ${API_VERSION}" and a kind (${KINDS.join(', ')})`,
        ),
      ],
    };
  }
  const env = envelope.safeParse(value, { reportInput: true });
  if (!env.success) {
    const named = (value as { kind?: unknown }).kind;
    const kind = (KINDS as readonly unknown[]).includes(named) ? (named as Kind) : undefined;
    return { findings: issuesToFindings(sd, [], env.error.issues, (path) => fieldsAt(documentSchema(kind), path)) };
  }
  const kind = env.data.kind;
  // A Cluster of the usual shape is checked by hand (cluster-shape.ts: one-sided, so any doubt goes to zod, which gives the findings).
  if (kind === 'Cluster' && clusterSpecFits(env.data.spec)) return { sd, kind, name: env.data.metadata.name, spec: env.data.spec };
  const spec = validationSchema(kind, { treeIsKueue: isKueueTree(value), policyHasKueue }).safeParse(env.data.spec, { reportInput: true });
  if (!spec.success) return { findings: issuesToFindings(sd, ['spec'], spec.error.issues, (path) => fieldsAt(documentSchema(kind), path)) };
  return { sd, kind, name: env.data.metadata.name, spec: spec.data };
}

type Issue = z.core.$ZodIssue;

/** True for the issue zod gives for a required field that is absent (with reportInput, its input is undefined). */
function isMissing(issue: Issue): boolean {
  return (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') && (issue as { input?: unknown }).input === undefined;
}

/**
 * Maps a document's zod issues to findings: one per unknown key, else one per issue.
 * A misspelt required field is one mistake, not two: an unknown key close to a field
 * that is missing from the same mapping (`mni` where `min` is required) is one
 * `policy/unknown-field` finding naming the field it should be, and the
 * `policy/missing-field` it caused is not reported.
 */
/** A `policy/unknown-field` finding on `key` of the object at `path`: located by the key itself, its path quoting it shortened. */
function keyFinding(sd: Doc, path: PathSeg[], key: string, message: string, hint: string): Finding {
  const f = findingAt(sd, [...path, key], 'policy/unknown-field', message, hint, { key: true });
  return key.length > SHORT_TEXT_MAX ? { ...f, path: formatPath([...path, shortText(key)]) } : f;
}

function issuesToFindings(sd: Doc, prefix: PathSeg[], issues: readonly Issue[], placesAt: (path: PathSeg[]) => FieldPlaces): Finding[] {
  const missing = new Map<string, string[]>();
  for (const issue of issues) {
    if (!isMissing(issue)) continue;
    const path = [...prefix, ...(issue.path as PathSeg[])];
    const parent = formatPath(path.slice(0, -1));
    missing.set(parent, [...(missing.get(parent) ?? []), String(path[path.length - 1] ?? '')]);
  }
  const renamed = new Set<string>();
  const out: Finding[] = [];
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const path = [...prefix, ...(issue.path as PathSeg[])];
    const where = formatPath(path) || 'the document';
    for (const key of issue.keys) {
      const shown = shortText(key);
      const wanted = nearest(
        key,
        (missing.get(formatPath(path)) ?? []).filter((m) => !renamed.has(`${formatPath(path)}|${m}`)),
      );
      if (wanted !== undefined) {
        renamed.add(`${formatPath(path)}|${wanted}`);
        out.push(keyFinding(sd, path, key, `unknown field "${shown}" in ${where}: did you mean "${wanted}"?`, `rename "${shown}" to "${wanted}", which ${where} requires`));
      } else {
        const placed = nearestField(key, placesAt(path));
        // `gpu` beside a missing `resources` is one mistake, not two: the missing-field finding it caused is not reported either.
        const parent = placed?.includes('.') ? placed.split('.')[0]! : undefined;
        if (parent !== undefined && (missing.get(formatPath(path)) ?? []).includes(parent)) renamed.add(`${formatPath(path)}|${parent}`);
        out.push(keyFinding(sd, path, key, `unknown field "${shown}" in ${where}`, suggestField(key, placed)));
      }
    }
  }
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') continue;
    const path = [...prefix, ...(issue.path as PathSeg[])];
    if (isMissing(issue) && renamed.has(`${formatPath(path.slice(0, -1))}|${String(path[path.length - 1] ?? '')}`)) continue;
    out.push(issueToFinding(sd, prefix, issue));
  }
  return out;
}

/** Maps one zod issue to a finding with a code a test (and a person) can rely on. */
function issueToFinding(sd: Doc, prefix: PathSeg[], issue: Issue): Finding {
  const path = [...prefix, ...(issue.path as PathSeg[])];
  const field = String(path[path.length - 1] ?? '');
  const where = formatPath(path) || 'the document';
  switch (issue.code) {
    case 'invalid_type': {
      // With reportInput, a missing field is an issue whose input is undefined.
      if ((issue as { input?: unknown }).input === undefined) {
        return findingAt(sd, path.slice(0, -1), 'policy/missing-field', `${where} is required`, `add "${field}:" to ${formatPath(path.slice(0, -1)) || 'the document'}`);
      }
      const input = (issue as { input?: unknown }).input;
      if (typeof input === 'number') return wrongNumber(sd, path, where, field, input, issue.expected);
      return findingAt(sd, path, 'policy/invalid-type', `${where} must be ${article(issue.expected)}`, `write ${field} as ${article(issue.expected)}`);
    }
    case 'invalid_value': {
      if ((issue as { input?: unknown }).input === undefined) {
        return findingAt(
          sd,
          path.slice(0, -1),
          'policy/missing-field',
          `${where} is required`,
          `add "${field}:" to ${formatPath(path.slice(0, -1)) || 'the document'} (one of ${issue.values.map(String).join(', ')})`,
        );
      }
      const allowed = issue.values.map((v) => String(v));
      if (field === 'apiVersion') {
        return findingAt(sd, path, 'policy/bad-api-version', `apiVersion must be ${API_VERSION}`, `write "apiVersion: ${API_VERSION}"`);
      }
      const isModule = path.some((p) => p === 'modules' || p === 'allowedModules') || field === 'module';
      const code = isModule ? 'policy/unknown-module' : field === 'kind' ? 'policy/unknown-kind' : 'policy/invalid-value';
      return findingAt(sd, path, code, `${where} must be one of ${allowed.join(', ')}`, `use one of: ${allowed.join(', ')}`);
    }
    case 'too_small':
    case 'too_big': {
      const origin = (issue as { origin?: string }).origin;
      if (origin === 'array' || origin === 'string') {
        return findingAt(sd, path, 'policy/empty', `${where} must not be empty`, `give at least one value for ${field}`);
      }
      if (field === 'priority') {
        // A job's priority is any int32 to the schema (Kueue's rules); PAI's 1..9 is build-job.ts's check.
        const int32 = (issue as { maximum?: unknown; minimum?: unknown }).maximum === INT32_MAX || (issue as { minimum?: unknown }).minimum === INT32_MIN;
        if (int32) return findingAt(sd, path, 'policy/priority-out-of-range', `${where} must be a 32-bit integer`, "Kueue's priorities run from -2147483648 to 2147483647; PAI's from 1 to 9");
        return findingAt(sd, path, 'policy/priority-out-of-range', `${where} must be between 1 and 9`, 'priorities run from 1 (least important) to 9 (most important)');
      }
      if (issue.code === 'too_small' && (issue as { minimum: unknown }).minimum === 0 && !(issue as { inclusive?: boolean }).inclusive) {
        return findingAt(sd, path, 'policy/non-positive', `${where} must be a positive whole number`, `a ${field} count of 0 or less cannot run; use 1 or more`);
      }
      const bound = issue.code === 'too_small' ? `at least ${String((issue as { minimum: unknown }).minimum)}` : `at most ${String((issue as { maximum: unknown }).maximum)}`;
      return findingAt(sd, path, 'policy/out-of-range', `${where} must be ${bound}`, `change ${field} to a value ${bound}`);
    }
    case 'invalid_union':
      if ((issue as { input?: unknown }).input === undefined) {
        return findingAt(sd, path.slice(0, -1), 'policy/missing-field', `${where} is required`, `add "${field}:" to ${formatPath(path.slice(0, -1)) || 'the document'}`);
      }
      return findingAt(sd, path, 'policy/invalid-type', `${where} has the wrong type`, `see docs/policy-format.md for the accepted forms of ${field}`);
    default:
      return findingAt(sd, path, 'policy/invalid-value', `${where}: ${issue.message}`, 'see docs/policy-format.md for this field');
  }
}

/** Fields whose text is a duration (`30m`): a bare number there has no unit. */
const DURATION_FIELDS = new Set(['protectionPeriod', 'every', 'maxRuntime', 'duration', 'balanceWidenEvery', 'agingInterval']);

/**
 * A number the schema refused for its type: a fraction where a whole number belongs
 * (`count: 1.5`), a number where text belongs (`protectionPeriod: 0`), or a number that
 * is infinite or NaN (YAML reads `1e400` and `.inf` as infinity, `.nan` as NaN). Each
 * finding says which, with the value as it was read: "must be a number" would puzzle
 * whoever wrote one.
 */
function wrongNumber(sd: Doc, path: PathSeg[], where: string, field: string, input: number, expected: string): Finding {
  if (Number.isFinite(input)) {
    if (expected === 'int' && Number.isInteger(input))
      // zod's int takes safe integers only: past 2^53 a whole number is no longer read exactly.
      return findingAt(
        sd,
        path,
        'policy/out-of-range',
        `${where} must be at most ${Number.MAX_SAFE_INTEGER}; it is read as ${input}`,
        `write ${field} as a whole number up to ${Number.MAX_SAFE_INTEGER}`,
      );
    if (expected === 'int') return findingAt(sd, path, 'policy/invalid-type', `${where} must be a whole number; it is ${input}`, `write ${field} as a whole number`);
    if (DURATION_FIELDS.has(field))
      return findingAt(sd, path, 'policy/invalid-type', `${where} must be a duration such as 30m, not the number ${input}`, `write ${field} as a duration with its unit, such as 30m or 1h`);
    return findingAt(sd, path, 'policy/invalid-type', `${where} must be ${article(expected)}, not the number ${input}`, `write ${field} as ${article(expected)}`);
  }
  const readAs = Number.isNaN(input) ? 'NaN (not a number)' : input > 0 ? 'infinity' : 'minus infinity';
  return findingAt(
    sd,
    path,
    'policy/invalid-type',
    `${where} must be a finite number; it is read as ${readAs}`,
    `write ${field} as a finite number (YAML reads a number past 1.8e308, or .inf, as infinity and .nan as NaN)`,
  );
}

function article(expected: string): string {
  if (expected === 'int') return 'a whole number';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** Every field name the schemas know, read from the JSON Schema, so "did you mean" never goes stale. */
let knownFields: string[] | undefined;
function allFieldNames(): string[] {
  if (knownFields) return knownFields;
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
        if (k === 'properties' && v && typeof v === 'object') Object.keys(v).forEach((n) => names.add(n));
        walk(v);
      }
    }
  };
  walk(policyJsonSchema());
  knownFields = [...names].sort();
  return knownFields;
}

/**
 * "did you mean" for an unknown field: `placed`, the field it was meant to be where it
 * stands or one level down (`resources.gpu`, suggest.ts `nearestField`), else the
 * closest field name anywhere in the schemas that is not the refused name itself (a
 * field of some other object is no answer to "where does this go").
 */
function suggestField(key: string, placed: string | undefined): string {
  // A field of other objects (a queued job's `standing`): suggesting another name would say nothing.
  if (placed === undefined && allFieldNames().includes(key)) return `"${key}" is a field of other objects, not of this one; remove it, or see docs/policy-format.md for the fields this object takes`;
  const best =
    placed ??
    nearest(
      key,
      allFieldNames().filter((f) => f !== key),
    );
  if (best === undefined) return 'remove it, or see docs/policy-format.md for the fields this object takes';
  const dot = best.lastIndexOf('.');
  // One level down: say where it belongs, not only its name.
  if (dot > 0) return `did you mean "${best}"? "${best.slice(dot + 1)}" belongs under "${best.slice(0, dot)}"`;
  return `did you mean "${best}"? Unknown fields are errors so that a typo never silently changes a policy`;
}

/** A node of the JSON Schema zod makes: only what finding a field's place reads. */
interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
}

/** Each kind's document schema (and, for a document of no known kind, all of them), made once. */
const documentSchemas = new Map<Kind | undefined, SchemaNode>();

/** The JSON Schema of a `kind` document (of any kind when undefined). */
function documentSchema(kind: Kind | undefined): SchemaNode {
  let root = documentSchemas.get(kind);
  if (!root) {
    root = (kind === undefined ? policyJsonSchema() : kindJsonSchema(kind)) as SchemaNode;
    documentSchemas.set(kind, root);
  }
  return root;
}

/** The JSON Schema of each schema a value was checked against (`validateValue`), made once. */
const valueSchemas = new WeakMap<z.ZodType, SchemaNode>();

function valueSchema(schema: z.ZodType): SchemaNode {
  let root = valueSchemas.get(schema);
  if (!root) {
    try {
      root = toJSONSchema(schema, { io: 'input' }) as SchemaNode;
    } catch {
      // A schema JSON Schema cannot describe (a transform's output): no place to suggest, the global list stays.
      root = {};
    }
    valueSchemas.set(schema, root);
  }
  return root;
}

/**
 * The fields the object at `path` under the schema `root` takes, and those of its object
 * fields one level down: where an unknown field there may have been meant to go. The
 * path is walked through the JSON Schema (its `$ref`s and unions followed), so it holds
 * for every kind and every depth; empty when the path leads nowhere the schema describes.
 */
function fieldsAt(root: SchemaNode, path: readonly PathSeg[]): FieldPlaces {
  const resolved = (node: SchemaNode | undefined, seen = 0): SchemaNode[] => {
    if (!node || seen > 16) return [];
    if (node.$ref?.startsWith('#/')) {
      let at: unknown = root;
      for (const part of node.$ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      return resolved(at as SchemaNode | undefined, seen + 1);
    }
    const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
    return [node, ...branches.flatMap((b) => resolved(b, seen + 1))];
  };
  let nodes = resolved(root);
  for (const seg of path) {
    nodes = nodes.flatMap((n) => resolved(typeof seg === 'number' ? n.items : (n.properties?.[seg] ?? (typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined))));
  }
  const fieldsOf = (of: SchemaNode[]): string[] => [...new Set(of.flatMap((n) => Object.keys(n.properties ?? {})))];
  const below = new Map<string, string[]>();
  for (const n of nodes) {
    for (const [field, child] of Object.entries(n.properties ?? {})) {
      const inner = fieldsOf(resolved(child));
      if (inner.length) below.set(field, [...new Set([...(below.get(field) ?? []), ...inner])]);
    }
  }
  return { here: fieldsOf(nodes), below };
}

/** Fields of free text, which may hold tabs and line breaks (never other controls). */
const FREE_TEXT = new Set(['description']);

/**
 * Every key and string value holding a control, bidirectional or separator character,
 * one finding each. Such a name can rewrite the terminal it is printed on, or look like
 * another name; free text may hold tabs and line breaks only. Walked with an explicit
 * stack (the depth is bounded by then, but the walk need not rely on it).
 */
function unsafeStrings(sd: Doc, value: unknown, prefix: readonly PathSeg[] = []): Finding[] {
  const out: Finding[] = [];
  // A snapshot has hundreds of thousands of strings, nearly all clean: paths are spelled out for findings only.
  interface Entry extends LinkedStep {
    v: unknown;
  }
  const pathOf = (e: Entry | undefined): PathSeg[] => [...prefix, ...linkedPath(e)];
  const check = (text: string, entry: Entry, key: boolean): void => {
    const last = entry.seg;
    const bad = unsafeCharacter(text, !key && typeof last === 'string' && FREE_TEXT.has(last));
    if (!bad) return;
    const path = pathOf(entry);
    const what = key ? `the key "${escapeDisplay(text).text}"` : `${formatPath(path) || 'the document'} ("${escapeDisplay(text).text}")`;
    out.push(
      findingAt(
        sd,
        path,
        'policy/control-character',
        `${what} holds the invisible character ${codePoint(bad.char)} at position ${bad.index + 1}`,
        'names and values may not hold control, bidirectional, line-separator or zero-width characters: they can rewrite the terminal they are printed on or make one name look like another; retype the value',
        { key },
      ),
    );
  };
  const stack: Entry[] = [{ v: value, seg: undefined, parent: undefined }];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const v = top.v;
    if (typeof v === 'string') check(v, top, false);
    else if (Array.isArray(v)) v.forEach((item, i) => stack.push({ v: item, seg: i, parent: top }));
    else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const child: Entry = { v: item, seg: k, parent: top };
        check(k, child, true);
        stack.push(child);
      }
    }
  }
  return out;
}
