/**
 * Plain scalars the two YAML readers resolve differently. js-yaml (the fast paths) keeps a
 * number past the range of a double (`1e400`, 400 digits, a long hex) as the string it is
 * written as; the yaml library (the positioned path) reads it as infinity. The fast paths
 * decline a text holding one (the subset reader per plain scalar with this check, js-yaml's
 * path on the text: policy/fast-parse.ts), so every path gives the value the positioned
 * parse gives, and the schema's finding says the number is not finite rather than "must be
 * a number".
 */

/** The YAML 1.2 core schema's int (decimal, `0o` octal, `0x` hex) and float forms (`.inf` and `.nan` aside: both readers agree on them). */
const CORE_NUMBER = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** Whether a plain scalar js-yaml resolved to the string `s` is a number to the yaml library (so the readers disagree). */
export function numberLeftAsText(s: string): boolean {
  const c = s.charCodeAt(0);
  // Every core number starts with a digit, a sign or a dot: most strings are ruled out by their first character.
  return ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) && CORE_NUMBER.test(s);
}
