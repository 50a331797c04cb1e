/**
 * A text quoted back to its writer, shortened: a message that names what was refused
 * (an unknown key, say) must not grow with it. A 250,000-character key came back whole in
 * every finding that named it, half a megabyte of reply for one mistake.
 */

/** The longest text quoted whole. */
export const SHORT_TEXT_MAX = 64;

/** `text` when at most SHORT_TEXT_MAX characters; else its start, an ellipsis and how long it was. */
export function shortText(text: string): string {
  if (text.length <= SHORT_TEXT_MAX) return text;
  // Never cut a surrogate pair in half: the shortened text stays valid UTF-16.
  let end = SHORT_TEXT_MAX - 16;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length.toLocaleString('en-US')} characters)`;
}
