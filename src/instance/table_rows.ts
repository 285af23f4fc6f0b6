/** Rows as the table API returns them, and reading the `{"result": …}` envelope. */

/**
 * One row: with display value `false` every field is a string, except reference fields with links, which are
 * `{ link, value }` objects; with `all`, every field is `{ value, display_value[, link] }`.
 */
export type TableRow = Record<string, unknown>;

/** The instance's error envelope `{"error":{"message","detail"},"status":"failure"}`, as one line. */
export function errorEnvelopeText(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message;
    const detail = parsed?.error?.detail;
    if (typeof message === "string") {
      return typeof detail === "string" && detail ? `${message}: ${detail}` : message;
    }
  } catch {
    // not the envelope
  }
  return "";
}
