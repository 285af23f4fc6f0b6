/**
 * The status page (`GET /ui`): one self-contained HTML document, no build step, nothing loaded from elsewhere.
 * The server renders it whole (connectors, tasks, tables and numbers), so curl, a text browser or a page with
 * script off shows everything; with script off it reloads itself every 10 s (a `<noscript>` meta refresh) and
 * has a reload link. With script on, ui_script.ts refreshes the content in place and runs the buttons.
 *
 * With `rest.auth.token` set, the content is rendered only for a request that carries the token
 * (`Authorization: Bearer`); otherwise the page shows the token form and its script sends the token.
 */
import { UI_SCRIPT } from "./ui_script.ts";
import { UI_STYLE } from "./ui_style.ts";

export { UI_SCRIPT, UI_STYLE };

const NO_SCRIPT_RELOAD_SECONDS = 10;

/** `content` is renderContent's HTML, or null when the request lacks the token. */
export function renderUiPage(content: string | null): string {
  const shown = content ??
    `<p class="muted">This daemon requires its REST API token (rest.auth.token). Enter it above (the page's ` +
      `script sends it with every request), or send it yourself: ` +
      `<code>curl -H "Authorization: Bearer &lt;token&gt;" …/ui</code>.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_RELOAD_SECONDS}"></noscript>
<title>tablesync status</title>
<link rel="icon" href="data:,">
<style>${UI_STYLE}</style>
</head>
<body>
<header><h1>tablesync</h1><a href="/ui" id="reload">reload</a>
<noscript><span class="muted">script is off: this page reloads every ${NO_SCRIPT_RELOAD_SECONDS} s</span></noscript></header>
<p id="problem" role="alert"></p>
<p id="notice" role="status"></p>
<form id="login"${content === null ? "" : " hidden"}>
<label>REST API token (rest.auth.token): <input id="token" type="password" autocomplete="off"></label>
<button type="submit">Show</button>
</form>
<main id="content">
${shown}
</main>
<script>${UI_SCRIPT}</script>
</body>
</html>
`;
}
