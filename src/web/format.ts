/** How numbers and times read in the web app. */

/** GPUs: whole numbers as they are, a shared GPU's fraction to two places (0.5). */
export function gpus(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(2).replace(/0$/, '');
}

/** `n thing` / `n things`. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** An ISO time as `2026-11-20 12:00 UTC` (the policy's times are UTC; the snapshot's clock is not the browser's). */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Hours as `1 h`, `35 min`, `2.5 h`. */
export function hours(h: number): string {
  if (h < 1) return `${Math.round(h * 60)} min`;
  return `${Number.isInteger(h) ? h : h.toFixed(1)} h`;
}

/** GPU indices as ranges: [0,1,2,3,6] → `0-3, 6`. */
export function ranges(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** A finding's place: `file:line:col`, or the field path of a request's job. */
export function findingPlace(f: { file: string; line: number; column: number; path?: string }): string {
  if (f.file === 'request') return f.path ? `request: ${f.path}` : 'request';
  return f.line > 0 ? `${f.file}:${f.line}:${f.column}` : f.file;
}
