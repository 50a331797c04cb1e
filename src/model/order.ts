/** Orderings that do not depend on the machine's locale: the same input sorts the same everywhere. */

/** Compares strings by UTF-16 code units (what `<` does), never by locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
