/**
 * An HTML page where the API's JSON was expected is never a result: a hibernating developer instance, a login
 * page or an SSO provider in front of the instance answers one, reportedly with HTTP 200, to any call. Read as
 * a result it would be an empty page ("done"), a write that "succeeded" or a delete that "happened"; it is a
 * transient failure instead (the instance wakes up, the session is renewed), with one message that says what
 * to look at.
 */
import { InstanceRetriableError, type RequestLabel } from "./errors.ts";

export const HTML_PAGE_MESSAGE =
  "the instance answered an HTML page: hibernating, or a login or SSO page in front of it";

/** True for a body that is an HTML page (by its Content-Type, or by how it starts when the type is missing). */
export function isHtmlPage(contentType: string | null, body: Uint8Array | string): boolean {
  if (/\btext\/html\b|\bapplication\/xhtml/i.test(contentType ?? "")) return true;
  const text = typeof body === "string"
    ? body.slice(0, 512)
    : new TextDecoder().decode(body.subarray(0, 512));
  return /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text);
}

/** The answer was an HTML page and not the API: retriable, with HTTP_PAGE_MESSAGE. */
export class InstanceHtmlPageError extends InstanceRetriableError {
  constructor(request: RequestLabel, status: number, attempts: number) {
    super(request, status, attempts, HTML_PAGE_MESSAGE);
  }
}

/** Throws `InstanceHtmlPageError` when a response is an HTML page. */
export function refuseHtmlPage(
  response: { status: number; headers: Headers; body: Uint8Array; attempts: number },
  request: RequestLabel,
): void {
  if (isHtmlPage(response.headers.get("content-type"), response.body)) {
    throw new InstanceHtmlPageError(request, response.status, response.attempts);
  }
}
