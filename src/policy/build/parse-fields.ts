/**
 * Field parsers shared by the builders: priority ranges, quantities, durations and
 * times. Each returns undefined after recording a located finding, so a builder can
 * go on and report every problem of the file in one pass.
 */
import { MAX_PRIORITY, MIN_PRIORITY, type PriorityRange } from '../../model/priority.js';
import { parseCpu, parseMemory, parseTime } from '../../model/quantity.js';
import type { Resources } from '../../model/resources.js';
import type { Collector } from '../collector.js';
import { isRefusal, readDuration, shownValue, type Refusal } from '../parse/number-text.js';
import type { Doc, PathSeg } from '../parse/source-doc.js';

const RANGE = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/;

/** `4`, `"4"` or `"6-9"` → a range within 1..9. */
export function parseRange(c: Collector, sd: Doc, path: PathSeg[], value: number | string): PriorityRange | undefined {
  let lo: number;
  let hi: number;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      c.error(sd, path, 'policy/bad-range', `${String(value)} is not a priority`, 'write a whole number 1..9 or a range such as 6-9');
      return undefined;
    }
    lo = hi = value;
  } else {
    const m = RANGE.exec(value);
    if (!m) {
      c.error(sd, path, 'policy/bad-range', `"${value}" is not a priority or a range`, 'write a single priority (4) or an inclusive range with a hyphen (6-9)');
      return undefined;
    }
    lo = Number(m[1]);
    hi = m[2] === undefined ? lo : Number(m[2]);
  }
  if (lo < MIN_PRIORITY || hi > MAX_PRIORITY || lo > MAX_PRIORITY || hi < MIN_PRIORITY) {
    c.error(sd, path, 'policy/priority-out-of-range', `priority range ${lo === hi ? lo : `${lo}-${hi}`} is outside 1..9`, 'priorities run from 1 (least important) to 9 (most important)');
    return undefined;
  }
  if (lo > hi) {
    c.error(sd, path, 'policy/reversed-range', `range ${lo}-${hi} runs backwards`, `write it low to high: ${hi}-${lo}`);
    return undefined;
  }
  return { lo, hi };
}

/** cpu and memory quantities of a resources map; gpu is already an integer by schema. */
export function parseResources(c: Collector, sd: Doc, path: PathSeg[], input: { gpu: number; cpu?: number | string; memory?: number | string }): Resources | undefined {
  const out: Resources = { gpu: input.gpu };
  let ok = true;
  if (input.cpu !== undefined) {
    const v = parseCpu(input.cpu);
    if (v === undefined) {
      c.error(sd, [...path, 'cpu'], 'policy/bad-quantity', `cpu "${String(input.cpu)}" is not a quantity`, 'write cores (8, 0.5) or millicores (500m)');
      ok = false;
    } else out.cpu = v;
  }
  if (input.memory !== undefined) {
    const v = parseMemory(input.memory);
    if (v === undefined) {
      c.error(sd, [...path, 'memory'], 'policy/bad-quantity', `memory "${String(input.memory)}" is not a quantity`, 'write a size with a unit such as 768Gi or 512Mi (a bare number is bytes)');
      ok = false;
    } else out.memory = v;
  }
  return ok ? out : undefined;
}

/** A duration such as `30m` → ms, at most number-limits.ts's MAX_TIME_MS. */
export function parseDurationField(c: Collector, sd: Doc, path: PathSeg[], value: string): number | undefined {
  return placeRead(c, sd, path, value, readDuration(value), 'policy/bad-duration');
}

/**
 * The value a number-text.ts reader read from `value`, or, when it refused it, undefined
 * after a finding at `path`: `formCode` when the form is wrong, `policy/out-of-range` when
 * the value is past its limit (the message says the limit).
 */
export function placeRead(c: Collector, sd: Doc, path: PathSeg[], value: unknown, read: number | Refusal, formCode: string): number | undefined {
  if (!isRefusal(read)) return read;
  c.error(sd, path, read.pastLimit ? 'policy/out-of-range' : formCode, `${typeof value === 'string' ? `"${shownValue(value)}"` : String(value)} ${read.refused}`, read.hint);
  return undefined;
}

/** An ISO 8601 time → epoch ms. */
export function parseTimeField(c: Collector, sd: Doc, path: PathSeg[], value: string): number | undefined {
  const v = parseTime(value);
  if (v === undefined) c.error(sd, path, 'policy/bad-time', `"${value}" is not a time`, 'write an ISO 8601 time such as 2026-11-20T12:00:00Z');
  return v;
}
