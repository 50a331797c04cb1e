/** The shipped example policies (policies/<name>), read as the CLI reads a folder. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InputFile } from '../../src/policy/parse/source-doc.js';

/** The YAML files of policies/<name>, sorted by name. */
export function shippedBundle(name: string): InputFile[] {
  const dir = join('policies', name);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}
