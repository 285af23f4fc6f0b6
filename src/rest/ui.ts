/**
 * `GET /ui`: the status page, rendered on the server (ui_page.ts around ui_html.ts), and `GET /ui/content`, the
 * same content alone for the page's script to refresh it in place. A Content-Security-Policy allows exactly
 * the page's own inline script and style (by hash) and requests to this listener, so the page can load
 * nothing from elsewhere.
 */
import { esc } from "./ui_format.ts";
import type { Herder } from "../runtime/herder.ts";
import type { Router } from "./router.ts";
import { renderUiPage, UI_SCRIPT, UI_STYLE } from "./ui_page.ts";
import { renderContent } from "./ui_html.ts";
import { uiModel } from "./ui_model.ts";
import type { ThroughputHistory } from "./ui_history.ts";

const UI_PATH = /^\/ui\/?$/;

/**
 * The page is public so that a browser can load it and ask for the token; it shows data only to a request
 * that carries the token (see `uiRoutes`). `/ui/content` is not public.
 */
export function isPublicPath(method: string, url: URL): boolean {
  return (method === "GET" || method === "HEAD") && UI_PATH.test(url.pathname);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

let policy: Promise<string> | null = null;

function contentSecurityPolicy(): Promise<string> {
  policy ??= (async () =>
    [
      "default-src 'none'",
      `script-src 'sha256-${await sha256(UI_SCRIPT)}'`,
      `style-src 'sha256-${await sha256(UI_STYLE)}'`,
      "connect-src 'self'",
      "img-src data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "))();
  return policy;
}

export interface UiOptions {
  herder: Herder;
  /** `rest.auth.token`, when set. */
  authToken?: string | null;
  /** The throughput samples behind rates and charts (the daemon keeps them); without it, none are shown. */
  uiHistory?: ThroughputHistory;
  /** Whether a request carries the token (the server's own check). */
  authorized: (request: Request, token: string) => boolean;
}

export function uiRoutes(router: Router, options: UiOptions): void {
  const content = () => {
    const now = Date.now();
    return renderContent(uiModel(options.herder, options.uiHistory, now), now);
  };
  router.add("GET", "/ui", async (request) => {
    const allowed = !options.authToken || options.authorized(request, options.authToken);
    return htmlResponse(renderUiPage(allowed ? content() : null), await contentSecurityPolicy());
  });
  router.add("GET", "/ui/content", async () => htmlResponse(content(), await contentSecurityPolicy()));
}

/**
 * `GET /ui` while the worker starts (waiting for Kafka): the page says so instead of answering JSON; its script
 * keeps asking for the content and shows it once the worker serves it. It holds no data, so no token is needed.
 */
export async function startingUiPage(message: string): Promise<Response> {
  const page = renderUiPage(`<p class="muted" id="starting">${esc(message)}</p>`);
  return htmlResponse(page, await contentSecurityPolicy(), 503);
}

function htmlResponse(html: string, policy: string, status = 200): Response {
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policy,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}
