/**
 * OAuth2 bearer tokens from the instance token endpoint (`POST {svc.url}/oauth_token.do`, form-encoded), with
 * the client_credentials or password grant. Only the standard `access_token` (and `expires_in`, when present)
 * is read; no custom header is sent; `scope` only when configured.
 *
 * Tokens are cached per process realm, keyed by the token URL and the credentials, so every connector and
 * client using the same credentials against the same instance shares one token. A token is refreshed
 * shortly before it expires; concurrent callers share a single token request.
 */
import { logger } from "../../observability/log.ts";
import { registerSecret } from "../../observability/redact.ts";
import { InstanceHttpError } from "../errors.ts";
import type { OAuthSettings } from "../settings.ts";
import type { Authenticator } from "./authenticator.ts";
import { InstanceHtmlPageError, isHtmlPage } from "../html_page.ts";

const log = logger("instance");

/** Posts a form to the token endpoint (through the client's permits and retries) and returns the response. */
export type FormPoster = (url: string, form: URLSearchParams) => Promise<{ status: number; body: string }>;

interface CachedToken {
  accessToken: string | null;
  /** Date.now() after which the token is refreshed before use. */
  refreshAt: number;
  pending: Promise<string> | null;
}

/** Tokens per (token URL, grant, credentials) in this realm. */
const tokenCache = new Map<string, CachedToken>();

/** Refresh this long before expiry, at most: a minute, or a tenth of a short lifetime. */
function refreshMarginMs(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 10);
}

export class OAuthAuthenticator implements Authenticator {
  private readonly key: string;
  private readonly tokenUrl: string;

  constructor(private readonly options: OAuthSettings, origin: string, private readonly post: FormPoster) {
    registerSecret(options.clientSecret);
    registerSecret(options.password);
    this.tokenUrl = options.tokenUrl ?? `${origin}/oauth_token.do`;
    // Secrets are part of the key so that rotated credentials never reuse an old token; the key is never logged.
    this.key = JSON.stringify([
      this.tokenUrl,
      options.grantType,
      options.clientId,
      options.clientSecret,
      options.scope,
      options.grantType === "password" ? options.username : null,
      options.grantType === "password" ? options.password : null,
    ]);
  }

  async authorization(signal?: AbortSignal): Promise<string> {
    return `Bearer ${await abortable(this.token(), signal)}`;
  }

  refreshAfter401(used: string): boolean {
    const entry = tokenCache.get(this.key);
    if (entry && `Bearer ${entry.accessToken}` === used) {
      entry.accessToken = null;
      entry.refreshAt = 0;
    }
    return true;
  }

  /** The shared token request is not tied to one caller's signal: another caller may still want it. */
  private token(): Promise<string> {
    let entry = tokenCache.get(this.key);
    if (!entry) {
      entry = { accessToken: null, refreshAt: 0, pending: null };
      tokenCache.set(this.key, entry);
    }
    if (entry.accessToken && Date.now() < entry.refreshAt) return Promise.resolve(entry.accessToken);
    if (!entry.pending) {
      const target = entry;
      target.pending = this.requestToken().then(
        ({ accessToken, lifetimeMs }) => {
          target.accessToken = accessToken;
          target.refreshAt = lifetimeMs === null
            ? Infinity
            : Date.now() + lifetimeMs - refreshMarginMs(lifetimeMs);
          target.pending = null;
          return accessToken;
        },
        (error) => {
          target.pending = null;
          throw error;
        },
      );
    }
    return entry.pending!;
  }

  private async requestToken(): Promise<{ accessToken: string; lifetimeMs: number | null }> {
    const { options } = this;
    const form = new URLSearchParams({
      grant_type: options.grantType,
      client_id: options.clientId,
      client_secret: options.clientSecret,
    });
    if (options.grantType === "password") {
      form.set("username", options.username ?? "");
      form.set("password", options.password ?? "");
    }
    if (options.scope !== null) form.set("scope", options.scope);

    const started = Date.now();
    const { status, body } = await this.post(this.tokenUrl, form);
    const label = { method: "POST", path: new URL(this.tokenUrl).pathname };
    if (status !== 200) {
      throw new InstanceHttpError(
        label,
        status,
        body,
        `OAuth token request refused (check svc.oauth.client.id, svc.oauth.client.secret` +
          `${
            options.grantType === "password" ? ", svc.auth.username, svc.auth.password" : ""
          } and the grant type)`,
      );
    }
    // A login or SSO page in front of the instance: transient, never "a token response that is not JSON".
    if (isHtmlPage(null, body)) throw new InstanceHtmlPageError(label, status, 1);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new InstanceHttpError(label, status, body, "token response is not JSON");
    }
    const accessToken = parsed.access_token;
    if (typeof accessToken !== "string" || accessToken === "") {
      throw new InstanceHttpError(label, status, "", "token response has no access_token");
    }
    registerSecret(accessToken);
    if (typeof parsed.refresh_token === "string") registerSecret(parsed.refresh_token);
    // Absent expires_in: trusted until a 401. 0 (a still-valid token handed out again near its end): used for
    // the requests already waiting, then asked for again.
    const expiresIn = parsed.expires_in === undefined || parsed.expires_in === null
      ? NaN
      : Number(parsed.expires_in);
    // The lifetime counts from when we asked, so network time never makes us trust a token too long.
    const lifetimeMs = Number.isFinite(expiresIn) && expiresIn >= 0
      ? Math.max(0, expiresIn * 1000 - (Date.now() - started))
      : null;
    log.debug(
      { grant: options.grantType, expiresInSeconds: Number.isFinite(expiresIn) ? expiresIn : null },
      "obtained OAuth token",
    );
    return { accessToken, lifetimeMs };
  }
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Forgets every cached token (tests only). */
export function clearTokenCache(): void {
  tokenCache.clear();
}
