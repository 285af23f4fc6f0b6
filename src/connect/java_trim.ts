/** Java's `String.trim()`, which Kafka applies before reading numbers and the tokens of value strings. */

/** Java's `String.trim()`: strips characters up to U+0020 (control characters included) only. */
export function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/** Java's `text.trim().isEmpty()`. */
export function isBlank(text: string): boolean {
  return javaTrim(text).length === 0;
}
