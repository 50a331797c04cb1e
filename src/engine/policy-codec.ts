/**
 * The compiled-policy cache's encoding of a loaded policy (engine/policy-cache.ts): plain
 * data laid out by columns, so that V8's serialiser writes a few large typed arrays and
 * string lists instead of one object per node, job, pod and Source.
 *
 * A list of values is one column: each value's kind (undefined, null, number, string,
 * boolean, object, array, Source) in a byte array when they differ, and one part per
 * kind: numbers in a Float64Array, strings as a dictionary and indices, booleans in bytes,
 * objects as a table (their key orders, each key's values as a column), arrays as lengths
 * and one column of all their items, Sources as their recipes (policy/parse/source-doc.ts:
 * document, path, key or value). Key order, absent keys and keys holding undefined come
 * back as they were, so every rendering (JSON above all) is byte-identical.
 *
 * Anything else (a class instance, a Map, a function, a getter...) is refused with
 * `Unencodable`: the cache then stores nothing rather than something that reads back
 * different. What is not kept: identity (two fields holding one object decode as two
 * equal objects).
 */
import { restoreSource, sourceRecipe, type PathSeg, type SourceDoc } from '../policy/parse/source-doc.js';
import { parsePath } from '../policy/parse/source-doc.js';

/** Thrown when a value holds something the encoding does not keep. */
export class Unencodable extends Error {}

const U = 0; // undefined
const NUL = 1;
const NUM = 2;
const STR = 3;
const BOOL = 4;
const OBJ = 5;
const ARR = 6;
const SRC = 7;
const KINDS = 8;

/** A column of values (see the module's comment). */
export interface Column {
  n: number;
  /** Each value's kind, when they are not all one kind (`kind`). */
  kinds?: Uint8Array;
  kind?: number;
  num?: Float64Array;
  str?: { dict: string[]; at: Uint32Array };
  bool?: Uint8Array;
  obj?: Table;
  arr?: { lengths: Uint32Array; items: Column };
  src?: { doc: Uint32Array; path: { dict: string[]; at: Uint32Array }; key: Uint8Array; at: Array<[number, PathSeg[]]> };
}

/** Objects by columns: each distinct key order once, which one each object has, and every key's values. */
export interface Table {
  shapes: number[][];
  shape: Uint32Array;
  keys: string[];
  cols: Column[];
}

/** Where the documents Sources resolve in are: for each, its file (index into the files) and its index in the file. */
export interface DocRef {
  file: number;
  index: number;
}

/** Encodes values as a column; `docOf` numbers a Source's document (undefined: refuse). */
export class Encoder {
  readonly docs: DocRef[] = [];
  private readonly docIds = new Map<SourceDoc, number>();

  constructor(private readonly fileOf: (sd: SourceDoc) => number | undefined) {}

  column(values: readonly unknown[]): Column {
    const n = values.length;
    const kinds = new Uint8Array(n);
    const counts = new Uint32Array(KINDS);
    for (let i = 0; i < n; i++) {
      const k = kindOf(values[i]);
      kinds[i] = k;
      counts[k]!++;
    }
    const col: Column = { n };
    let distinct = 0;
    for (let k = 0; k < KINDS; k++) if (counts[k]! > 0) distinct++;
    if (distinct === 1) col.kind = kinds[0]!;
    else col.kinds = kinds;
    const of = (k: number): unknown[] => (distinct === 1 ? (values as unknown[]) : values.filter((_, i) => kinds[i] === k));
    if (counts[NUM]) col.num = Float64Array.from(of(NUM) as number[]);
    if (counts[STR]) col.str = strings(of(STR) as string[]);
    if (counts[BOOL]) col.bool = Uint8Array.from(of(BOOL) as boolean[], (b) => (b ? 1 : 0));
    if (counts[OBJ]) col.obj = this.table(of(OBJ) as Array<Record<string, unknown>>);
    if (counts[ARR]) {
      const arrays = of(ARR) as unknown[][];
      const lengths = new Uint32Array(arrays.length);
      const items: unknown[] = [];
      for (let i = 0; i < arrays.length; i++) {
        const a = arrays[i]!;
        lengths[i] = a.length;
        for (let j = 0; j < a.length; j++) {
          if (!(j in a)) throw new Unencodable('an array with a hole');
          items.push(a[j]);
        }
      }
      col.arr = { lengths, items: this.column(items) };
    }
    if (counts[SRC]) col.src = this.sources(of(SRC) as object[]);
    return col;
  }

  private table(rows: Array<Record<string, unknown>>): Table {
    const shapeIds = new Map<string, number>();
    const shapes: number[][] = [];
    const shape = new Uint32Array(rows.length);
    const keyIds = new Map<string, number>();
    const keys: string[] = [];
    const values: unknown[][] = [];
    // Rows of a list mostly share their keys with the row before: compared key by key first.
    let lastNames: string[] = [];
    let lastId = -1;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const names = Object.keys(row);
      let id: number | undefined = sameKeys(names, lastNames) ? lastId : undefined;
      const sig = id === undefined ? names.join('\u0000') : '';
      if (id === undefined) id = shapeIds.get(sig);
      if (id === undefined) {
        id = shapes.length;
        shapeIds.set(sig, id);
        shapes.push(
          names.map((k) => {
            let kid = keyIds.get(k);
            if (kid === undefined) {
              kid = keys.length;
              keyIds.set(k, kid);
              keys.push(k);
              values.push([]);
            }
            return kid;
          }),
        );
      }
      shape[i] = id;
      lastNames = names;
      lastId = id;
      const ids = shapes[id]!;
      for (let j = 0; j < names.length; j++) values[ids[j]!]!.push(row[names[j]!]);
    }
    return { shapes, shape, keys, cols: values.map((v) => this.column(v)) };
  }

  private sources(srcs: object[]): NonNullable<Column['src']> {
    const doc = new Uint32Array(srcs.length);
    const key = new Uint8Array(srcs.length);
    const paths: string[] = [];
    const at: Array<[number, PathSeg[]]> = [];
    for (let i = 0; i < srcs.length; i++) {
      const r = sourceRecipe(srcs[i]!)!;
      let id = this.docIds.get(r.sd);
      if (id === undefined) {
        const file = this.fileOf(r.sd);
        if (file === undefined) throw new Unencodable(`a Source in ${r.sd.file}, which is not one of the files read`);
        id = this.docs.length;
        this.docIds.set(r.sd, id);
        this.docs.push({ file, index: r.sd.index });
      }
      doc[i] = id;
      key[i] = r.wantKey ? 1 : 0;
      paths.push(r.path);
      // Most paths read back as their segments: only those that do not keep them.
      const back = parsePath(r.path);
      if (back.length !== r.at.length || back.some((s, j) => s !== r.at[j])) at.push([i, [...r.at]]);
    }
    return { doc, path: strings(paths), key, at };
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function kindOf(v: unknown): number {
  switch (typeof v) {
    case 'undefined':
      return U;
    case 'number':
      return NUM;
    case 'string':
      return STR;
    case 'boolean':
      return BOOL;
    case 'object': {
      if (v === null) return NUL;
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto === Object.prototype) return OBJ;
      if (proto === Array.prototype) return ARR;
      if (sourceRecipe(v)) return SRC;
      throw new Unencodable(`an object of class ${(proto as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'null'}`);
    }
    default:
      throw new Unencodable(`a ${typeof v}`);
  }
}

function strings(list: string[]): { dict: string[]; at: Uint32Array } {
  const ids = new Map<string, number>();
  const dict: string[] = [];
  const at = new Uint32Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    let id = ids.get(s);
    if (id === undefined) {
      id = dict.length;
      ids.set(s, id);
      dict.push(s);
    }
    at[i] = id;
  }
  return { dict, at };
}

/** Thrown when a column does not read as one the Encoder writes (a damaged or foreign entry that passed its checksum). */
export class Undecodable extends Error {}

/** Decodes columns; `docAt` gives the document a Source's DocRef names. */
export class Decoder {
  private readonly docCache: SourceDoc[] = [];

  constructor(
    private readonly docs: readonly DocRef[],
    private readonly docAt: (file: number, index: number) => SourceDoc,
  ) {}

  column(col: Column): unknown[] {
    const n = col.n;
    if (col.kind !== undefined) return this.part(col, col.kind, n);
    const kinds = col.kinds;
    if (!kinds || kinds.length !== n) throw new Undecodable('a column without kinds');
    const counts = new Uint32Array(KINDS);
    for (let i = 0; i < n; i++) counts[kinds[i]!]!++;
    const parts: unknown[][] = [];
    for (let k = 0; k < KINDS; k++) parts.push(counts[k] ? this.part(col, k, counts[k]!) : []);
    const next = new Uint32Array(KINDS);
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const k = kinds[i]!;
      const part = parts[k];
      if (!part) throw new Undecodable(`kind ${k}`);
      out[i] = part[next[k]!++];
    }
    return out;
  }

  private part(col: Column, kind: number, n: number): unknown[] {
    switch (kind) {
      case U:
        return new Array<unknown>(n).fill(undefined);
      case NUL:
        return new Array<unknown>(n).fill(null);
      case NUM:
        return check(Array.from(need(col.num)), n);
      case STR:
        return check(unstrings(need(col.str)), n);
      case BOOL:
        return check(
          Array.from(need(col.bool), (b) => b === 1),
          n,
        );
      case OBJ:
        return check(this.table(need(col.obj)), n);
      case ARR: {
        const { lengths, items } = need(col.arr);
        // Numbers alone (a pod's GPUs): each array filled from the Float64Array, without a copy of all of them first.
        const all: ArrayLike<unknown> = items.kind === NUM && items.num && items.num.length === items.n ? items.num : this.column(items);
        const out = new Array<unknown>(lengths.length);
        let at = 0;
        for (let i = 0; i < lengths.length; i++) {
          const len = lengths[i]!;
          if (at + len > all.length) throw new Undecodable('array lengths past their items');
          const a = new Array<unknown>(len);
          for (let j = 0; j < len; j++) a[j] = all[at + j];
          out[i] = a;
          at += len;
        }
        if (at !== all.length) throw new Undecodable('array lengths do not match their items');
        return check(out, n);
      }
      case SRC:
        return check(this.sources(need(col.src)), n);
      default:
        throw new Undecodable(`kind ${kind}`);
    }
  }

  private table(t: Table): Array<Record<string, unknown>> {
    // A column of numbers alone is read in place (its Float64Array), one of strings alone
    // through its dictionary (`dicts`): no copy of either.
    const dicts: Array<readonly string[] | undefined> = [];
    const cols: ArrayLike<unknown>[] = t.cols.map((c, k) => {
      if (c.kind === NUM && c.num && c.num.length === c.n) return c.num;
      if (c.kind === STR && c.str && c.str.at.length === c.n) {
        for (const i of c.str.at) if (i >= c.str.dict.length) throw new Undecodable('a string outside its dictionary');
        dicts[k] = c.str.dict;
        return c.str.at;
      }
      return this.column(c);
    });
    const next = new Uint32Array(cols.length);
    const builders = t.shapes.map((ids) => rowBuilder(t.keys, ids, cols.length, dicts));
    const out = new Array<Record<string, unknown>>(t.shape.length);
    for (let i = 0; i < t.shape.length; i++) {
      const build = builders[t.shape[i]!];
      if (!build) throw new Undecodable('an unknown shape');
      out[i] = build(cols, dicts, next);
    }
    for (let k = 0; k < cols.length; k++) if (next[k] !== cols[k]!.length) throw new Undecodable('a column longer or shorter than its rows');
    return out;
  }

  private sources(s: NonNullable<Column['src']>): unknown[] {
    const paths = unstrings(s.path);
    const at = new Map(s.at);
    const out = new Array<unknown>(s.doc.length);
    for (let i = 0; i < out.length; i++) {
      const d = s.doc[i]!;
      let sd = this.docCache[d];
      if (!sd) {
        const ref = this.docs[d];
        if (!ref) throw new Undecodable('a Source of an unknown document');
        sd = this.docCache[d] = this.docAt(ref.file, ref.index);
      }
      out[i] = restoreSource(sd, paths[i]!, at.get(i), s.key[i] === 1);
    }
    return out;
  }
}

type RowBuilder = (cols: ArrayLike<unknown>[], dicts: Array<readonly string[] | undefined>, next: Uint32Array) => Record<string, unknown>;

/** Builders by key list: a policy's tables share few shapes, and each is compiled once. */
const BUILDERS = new Map<string, RowBuilder>();

/**
 * Makes the objects of one shape: an object literal with the shape's keys in their order
 * (one hidden class, as the loader's own literals), each value the next of its column.
 * The keys are written as JSON string literals and the column numbers checked as
 * integers, so nothing an entry holds can be code; a shape with a key named __proto__
 * (which a literal would take for the prototype) is built key by key instead.
 */
function rowBuilder(keys: readonly string[], ids: readonly number[], columns: number, dicts: Array<readonly string[] | undefined>): RowBuilder {
  for (const id of ids) if (!Number.isInteger(id) || id < 0 || id >= columns || keys[id] === undefined) throw new Undecodable('a shape naming no column');
  const names = ids.map((id) => keys[id]!);
  if (names.includes('__proto__'))
    return (cols, d, next) => {
      const row: Record<string, unknown> = {};
      ids.forEach((id, j) => {
        const v = cols[id]![next[id]!++];
        Object.defineProperty(row, names[j]!, { value: d[id] ? d[id][v as number] : v, enumerable: true, writable: true, configurable: true });
      });
      return row;
    };
  const sig = ids.map((id, j) => `${id}${dicts[id] ? 's' : ''}:${names[j]}`).join('\u0000');
  let build = BUILDERS.get(sig);
  if (!build) {
    const fields = ids.map((id, j) => `${JSON.stringify(names[j])}: ${dicts[id] ? `d[${id}][c[${id}][n[${id}]++]]` : `c[${id}][n[${id}]++]`}`).join(', ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the literal's keys are JSON strings and its indices checked integers (above)
    build = new Function('c', 'd', 'n', `return { ${fields} };`) as RowBuilder;
    BUILDERS.set(sig, build);
  }
  return build;
}

function need<T>(v: T | undefined): T {
  if (v === undefined) throw new Undecodable('a missing part');
  return v;
}

function check<T>(values: T[], n: number): T[] {
  if (values.length !== n) throw new Undecodable('a part of the wrong length');
  return values;
}

function unstrings(s: { dict: string[]; at: Uint32Array }): string[] {
  const out = new Array<string>(s.at.length);
  for (let i = 0; i < out.length; i++) {
    const v = s.dict[s.at[i]!];
    if (v === undefined) throw new Undecodable('a string outside its dictionary');
    out[i] = v;
  }
  return out;
}
