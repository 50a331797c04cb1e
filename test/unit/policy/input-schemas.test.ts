/**
 * Editor support (docs/policy-format.md, "Editor support"): one JSON Schema per kind ships
 * in schemas/input/, they are what `quotient schema --kind` prints (never stale), and a
 * real JSON Schema validator (ajv, draft 2020-12) accepts every shipped policy document
 * and refuses a broken one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KINDS, kindJsonSchema, policyJsonSchema } from '../../../src/policy/validate/schema.js';

const file = (name: string): unknown => JSON.parse(readFileSync(join('schemas/input', `${name}.json`), 'utf8'));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : n.endsWith('.yaml') ? [p] : [];
  });
}

describe('schemas/input', () => {
  it('holds one schema per kind and the whole-policy one, equal to what the code generates', () => {
    for (const kind of KINDS) expect(file(kind.toLowerCase()), kind).toEqual(JSON.parse(JSON.stringify(kindJsonSchema(kind))));
    expect(file('policy')).toEqual(JSON.parse(JSON.stringify(policyJsonSchema())));
  });

  it('validates every shipped policy document against its kind, and refuses a broken one', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validators = new Map(KINDS.map((k) => [k as string, ajv.compile(file(k.toLowerCase()) as object)]));
    let checked = 0;
    for (const f of yamlFiles('policies')) {
      for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) {
        const value = doc.toJS() as { kind?: string } | null;
        if (!value) continue;
        const validate = validators.get(value.kind ?? '');
        expect(validate, `${f}: kind ${value.kind}`).toBeDefined();
        expect(validate!(value), `${f}: ${JSON.stringify(validate!.errors)}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    const quotaTree = validators.get('QuotaTree')!;
    expect(quotaTree({ apiVersion: 'quotient.dev/v1', kind: 'QuotaTree', metadata: { name: 't' }, spec: { pool: { name: 'p' }, quotas: [{ name: 'A', mni: { gpu: 1 } }] } })).toBe(false);
  });
});
