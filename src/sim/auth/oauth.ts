/**
 * `POST /oauth_token.do`: password, refresh_token and client_credentials grants, with the instance's
 * behaviour: form-encoded bodies only, `expires_in` 1799 for a 1800 s lifespan, a still-valid token is
 * returned again for repeated requests, client_credentials issues no refresh token, and every failure is
 * 401 `{"error_description":"access_denied","error":"server_error"}`. Expiry follows the instance clock.
 */
import type { SimOAuthClientSpec } from "../options.ts";
import { constantTimeEqual, type Principal, type UserDirectory } from "./users.ts";

interface IssuedToken {
  token: string;
  clientId: string;
  userName: string;
  expiresAtMs: number;
  kind: "access" | "refresh";
  grant: string;
}

export interface TokenResponse {
  status: number;
  body: Record<string, unknown>;
}

export const OAUTH_DENIED = { error_description: "access_denied", error: "server_error" };

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export class OAuthServer {
  #clients = new Map<string, Required<SimOAuthClientSpec>>();
  #tokens = new Map<string, IssuedToken>();
  #users: UserDirectory;
  #nowMs: () => number;

  constructor(users: UserDirectory, nowMs: () => number) {
    this.#users = users;
    this.#nowMs = nowMs;
  }

  addClient(client: Required<SimOAuthClientSpec>): void {
    this.#clients.set(client.clientId, client);
  }

  removeClient(clientId: string): boolean {
    for (const [k, t] of this.#tokens) if (t.clientId === clientId) this.#tokens.delete(k);
    return this.#clients.delete(clientId);
  }

  revokeAll(): void {
    this.#tokens.clear();
  }

  /** The principal of a valid, unexpired access token. */
  verifyBearer(token: string): Principal | undefined {
    const issued = this.#tokens.get(token);
    if (!issued || issued.kind !== "access") return undefined;
    if (issued.expiresAtMs <= this.#nowMs()) {
      this.#tokens.delete(token);
      return undefined;
    }
    return this.#users.principal(issued.userName, "bearer", issued.clientId);
  }

  /** Handles a token request; `form` is undefined when the body was not form-encoded. */
  handle(form: URLSearchParams | undefined): TokenResponse & { clientId?: string; userName?: string } {
    const denied = { status: 401, body: OAUTH_DENIED };
    if (!form) return denied;
    const client = this.#clients.get(form.get("client_id") ?? "");
    if (!client || !constantTimeEqual(client.clientSecret, form.get("client_secret") ?? "")) return denied;
    const grant = form.get("grant_type");
    const clientId = client.clientId;
    if (grant === "password") {
      const userName = form.get("username") ?? "";
      if (!this.#users.verify(userName, form.get("password") ?? "")) return { ...denied, clientId };
      return { ...this.#issue(client, userName, grant, true), clientId, userName };
    }
    if (grant === "refresh_token") {
      const refresh = this.#tokens.get(form.get("refresh_token") ?? "");
      if (
        !refresh || refresh.kind !== "refresh" || refresh.clientId !== clientId ||
        refresh.expiresAtMs <= this.#nowMs() || !this.#users.has(refresh.userName)
      ) return { ...denied, clientId };
      const access = this.#current(clientId, refresh.userName, grant) ??
        this.#store(client, refresh.userName, "access", grant, client.accessTokenLifespanSeconds);
      return {
        status: 200,
        body: this.#body(access, refresh),
        clientId,
        userName: refresh.userName,
      };
    }
    if (grant === "client_credentials") {
      const user = client.applicationUser;
      if (!user || !this.#users.has(user)) return { ...denied, clientId };
      return { ...this.#issue(client, user, grant, false), clientId, userName: user };
    }
    return { ...denied, clientId };
  }

  #issue(
    client: Required<SimOAuthClientSpec>,
    userName: string,
    grant: string,
    withRefresh: boolean,
  ): TokenResponse {
    // Requests within a token's lifetime get the current token back, as on the instance.
    const access = this.#current(client.clientId, userName, grant) ??
      this.#store(client, userName, "access", grant, client.accessTokenLifespanSeconds);
    const refresh = withRefresh
      ? this.#store(client, userName, "refresh", grant, client.refreshTokenLifespanSeconds)
      : undefined;
    return { status: 200, body: this.#body(access, refresh) };
  }

  #current(clientId: string, userName: string, grant: string): IssuedToken | undefined {
    const now = this.#nowMs();
    for (const t of this.#tokens.values()) {
      if (
        t.kind === "access" && t.clientId === clientId && t.userName === userName && t.grant === grant &&
        t.expiresAtMs > now
      ) {
        return t;
      }
    }
    return undefined;
  }

  #store(
    client: Required<SimOAuthClientSpec>,
    userName: string,
    kind: "access" | "refresh",
    grant: string,
    lifespanSeconds: number,
  ): IssuedToken {
    const issued: IssuedToken = {
      token: randomToken(),
      clientId: client.clientId,
      userName,
      expiresAtMs: this.#nowMs() + lifespanSeconds * 1000,
      kind,
      grant,
    };
    this.#tokens.set(issued.token, issued);
    return issued;
  }

  #body(access: IssuedToken, refresh: IssuedToken | undefined): Record<string, unknown> {
    const remaining = Math.max(0, Math.floor((access.expiresAtMs - this.#nowMs()) / 1000) - 1);
    const body: Record<string, unknown> = { access_token: access.token };
    if (refresh) body.refresh_token = refresh.token;
    body.scope = "useraccount";
    body.token_type = "Bearer";
    body.expires_in = remaining;
    return body;
  }
}
