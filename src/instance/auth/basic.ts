/** Basic authentication: the integration user's name and password on every request. */
import { registerSecret } from "../../observability/redact.ts";
import type { BasicAuthSettings } from "../settings.ts";
import type { Authenticator } from "./authenticator.ts";

export class BasicAuthenticator implements Authenticator {
  private readonly header: string;

  constructor(options: BasicAuthSettings) {
    registerSecret(options.password);
    const encoded = encodeBase64Utf8(`${options.username}:${options.password}`);
    registerSecret(encoded);
    this.header = `Basic ${encoded}`;
  }

  authorization(): Promise<string> {
    return Promise.resolve(this.header);
  }

  refreshAfter401(): boolean {
    return false;
  }
}

/** Base64 of the UTF-8 bytes (btoa alone would reject non-Latin-1 passwords). */
export function encodeBase64Utf8(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
