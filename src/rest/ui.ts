/**
 * `GET /ui`: serves the status page (ui_page.ts). A Content-Security-Policy allows exactly the page's own inline
 * script and style (by hash) and requests to this listener, so the page can load nothing from elsewhere.
 */
import type { Router } from "./router.ts";
import { renderUiPage, UI_SCRIPT, UI_STYLE } from "./ui_page.ts";

const UI_PATH = /^\/ui\/?$/;

/** The page is public (it holds no data); everything it shows comes from requests that carry the token. */
export function isPublicPath(method: string, url: URL): boolean {
  return (method === "GET" || method === "HEAD") && UI_PATH.test(url.pathname);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

let page: Promise<{ html: string; policy: string }> | null = null;

function built(): Promise<{ html: string; policy: string }> {
  page ??= (async () => {
    const policy = [
      "default-src 'none'",
      `script-src 'sha256-${await sha256(UI_SCRIPT)}'`,
      `style-src 'sha256-${await sha256(UI_STYLE)}'`,
      "connect-src 'self'",
      "img-src data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; ");
    return { html: renderUiPage(), policy };
  })();
  return page;
}

export function uiRoutes(router: Router): void {
  router.add("GET", "/ui", async () => {
    const { html, policy } = await built();
    return new Response(html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": policy,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
      },
    });
  });
}
