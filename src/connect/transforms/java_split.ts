/**
 * Java's `String.split(literal)`: like JS `split`, but trailing empty strings are removed, so `"a:"` gives
 * `["a"]` and `"a:b:"` gives `["a", "b"]`. Kafka parses `renames` and Cast's `spec` this way, and which entries
 * are valid depends on it.
 */
export function javaSplit(text: string, separator: string): string[] {
  if (text === "") return [""];
  const parts = text.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
