/**
 * The policy format's fields, read from the JSON Schema `quotient schema` prints (made
 * from the zod schema, whose `.describe()` texts are the field documentation): the
 * fields a map may hold, a field's description, and an enum's values. Hover and
 * completion read the format here, so they never drift from what check accepts.
 */
import { KINDS, kindJsonSchema, type Kind } from '../policy/validate/schema.js';
import { scalarText, type Seg } from './yaml-tree.js';

/** The part of JSON Schema the zod export writes that completion and hover read. */
export interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

const schemas = new Map<Kind, JsonSchema>();

/** The whole-document schema of a kind, made once. */
function kindSchema(kind: string | undefined): JsonSchema | undefined {
  const k = KINDS.find((x) => x === kind);
  if (!k) return undefined;
  let s = schemas.get(k);
  if (!s) schemas.set(k, (s = kindJsonSchema(k) as JsonSchema));
  return s;
}

/** The alternatives a schema stands for, references followed (`root` holds the `$defs`). */
function alternatives(s: JsonSchema, root: JsonSchema, depth = 0): JsonSchema[] {
  if (depth > 8) return [];
  if (s.$ref) {
    const name = s.$ref.replace(/^#\/\$defs\//, '');
    const target = root.$defs?.[name];
    return target ? alternatives(target, root, depth + 1) : [];
  }
  const subs = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  if (subs.length === 0) return [s];
  const described = s.description ? [{ description: s.description }] : [];
  return [...described, ...subs.flatMap((x) => alternatives(x, root, depth + 1))];
}

/** The schemas a field path of a document of `kind` may have (several where the format allows alternatives). */
export function schemasAt(kind: string | undefined, path: readonly Seg[]): JsonSchema[] {
  const root = kindSchema(kind);
  if (!root) return [];
  let here = alternatives(root, root);
  for (const seg of path) {
    const next: JsonSchema[] = [];
    for (const s of here) {
      if (typeof seg === 'number') {
        if (s.items) next.push(...alternatives(s.items, root));
      } else if (s.properties?.[seg]) next.push(...alternatives(s.properties[seg], root));
      else if (typeof s.additionalProperties === 'object') next.push(...alternatives(s.additionalProperties, root));
    }
    here = next;
    if (here.length === 0) break;
  }
  return here;
}

/** The documentation of a field: its description(s), its type and its values. */
export function fieldDoc(kind: string | undefined, path: readonly Seg[]): string | undefined {
  const at = schemasAt(kind, path);
  if (at.length === 0) return undefined;
  const descriptions = [...new Set(at.map((s) => s.description).filter((d): d is string => !!d))];
  const types = [...new Set(at.flatMap((s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : [])))];
  const values = enumValues(kind, path);
  const lines = descriptions.length ? descriptions : ['(no description in the policy format)'];
  if (types.length) lines.push(`type: ${types.join(' | ')}`);
  if (values.length) lines.push(`values: ${values.join(', ')}`);
  return lines.join('\n\n');
}

/** The fields a map at `path` may hold, each with its description, and whether it is required. */
export function fieldsAt(kind: string | undefined, path: readonly Seg[]): Array<{ name: string; doc?: string; required: boolean }> {
  const out = new Map<string, { name: string; doc?: string; required: boolean }>();
  for (const s of schemasAt(kind, path))
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      if (out.has(name)) continue;
      const root = kindSchema(kind);
      const doc = root ? alternatives(sub, root).find((x) => x.description)?.description : undefined;
      out.set(name, { name, ...(doc ? { doc } : {}), required: s.required?.includes(name) ?? false });
    }
  return [...out.values()];
}

/** The values an enum field (or each item of an enum list) may take. */
export function enumValues(kind: string | undefined, path: readonly Seg[]): string[] {
  const root = kindSchema(kind);
  if (!root) return [];
  const out = new Set<string>();
  const take = (s: JsonSchema): void => {
    for (const v of s.enum ?? []) out.add(scalarText(v));
    if (s.const !== undefined) out.add(scalarText(s.const));
  };
  for (const s of schemasAt(kind, path)) {
    take(s);
    if (s.items) for (const i of alternatives(s.items, root)) take(i);
  }
  return [...out];
}

/** The kinds a document may be. */
export const DOCUMENT_KINDS: readonly string[] = KINDS;
