/**
 * Standard base64 with padding (RFC 4648 §4), the variant Jackson uses for JSON binary values
 * (`MIME_NO_LINEFEEDS`) and Connect's `Values` uses for bytes.
 */
import { Buffer } from "node:buffer";

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** Decodes standard base64 (padding optional); null when the text is not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64_TEXT.test(text)) return null;
  return new Uint8Array(Buffer.from(text, "base64"));
}
