/**
 * Parsing of the quantities policies write: cpu (`8`, `500m`), memory (`768Gi`,
 * `512Mi`, bytes), durations (`30m`, `1h30m`) and times (ISO 8601). Each parser returns
 * `undefined` for text it does not accept so that the caller can raise a located finding.
 */

const CPU = /^(\d+(?:\.\d+)?)(m?)$/;
const MEMORY = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|K|M|G|T|P)?$/;
const MEMORY_FACTOR_BYTES: Record<string, number> = {
  '': 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
};
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** cpu → millicores (rounded up: a request never shrinks by parsing). */
export function parseCpu(value: unknown): number | undefined {
  if (typeof value === 'number') return value >= 0 && Number.isFinite(value * 1000) ? Math.ceil(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const m = CPU.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const milli = m[2] === 'm' ? Math.ceil(n) : Math.ceil(n * 1000);
  return Number.isFinite(milli) ? milli : undefined;
}

/** memory → MiB (rounded up). A bare number is bytes, as in Kubernetes. */
export function parseMemory(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') text = String(value);
  else if (typeof value === 'string') text = value.trim();
  else return undefined;
  const m = MEMORY.exec(text);
  if (!m) return undefined;
  const bytes = Number(m[1]) * MEMORY_FACTOR_BYTES[m[2] ?? '']!; // the regex admits only the table's suffixes
  return Number.isFinite(bytes) ? Math.ceil(bytes / 2 ** 20) : undefined;
}

/** duration (`30m`, `1h30m`, `2d`, `45s`) → milliseconds; zero is refused. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DURATION.exec(value.trim());
  if (!m || value.trim() === '') return undefined;
  const [d = 0, h = 0, min = 0, s = 0] = m.slice(1).map((x) => Number(x ?? 0));
  const ms = (((d * 24 + h) * 60 + min) * 60 + s) * 1000;
  return ms > 0 ? ms : undefined;
}

const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 time → epoch milliseconds. A time without zone is read as UTC. */
export function parseTime(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value !== 'string' || !ISO.test(value.trim())) return undefined;
  let text = value.trim().replace(' ', 'T');
  if (/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text += 'Z';
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

/** A duration in ms as people read it: `1h30m`, `24h0m1s`; never rounded, so two different durations never print alike. */
export function formatDuration(ms: number): string {
  const totalSec = Math.round(ms / 1000);
  const h = Math.floor(totalSec / 3600);
  const m = Math.floor((totalSec % 3600) / 60);
  const sec = totalSec % 60;
  if (sec) return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${sec}s`;
  if (h && m) return `${h}h${m}m`;
  if (h) return `${h}h`;
  return `${m}m`;
}
