/**
 * Pages that are not the API but come back where an API answer was expected, with HTTP 200 and `text/html`:
 * a hibernating developer instance's "wake up your instance" page, and the login page (or an SSO provider's
 * redirect target) a session-less request lands on behind single sign-on.
 */
export type HtmlPage = "hibernating" | "login";

export const HTML_TYPE = "text/html;charset=UTF-8";

const PAGES: Record<HtmlPage, string> = {
  hibernating: `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Instance Hibernating page</title></head>
<body><div class="instance-hibernating"><h1>Your instance is hibernating</h1>
<p>Developer instances hibernate when idle. Sign in to the developer portal to wake your instance up.</p>
</div></body></html>
`,
  login: `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Log in | ServiceNow</title></head>
<body><form id="loginPage" action="login.do" method="post" name="loginform">
<input id="user_name" name="user_name" type="text"><input id="user_password" name="user_password" type="password">
<button id="sysverb_login" type="submit">Log in</button></form></body></html>
`,
};

export function htmlPage(page: HtmlPage): string {
  return PAGES[page];
}
