/** Shared helpers of the instance client tests. */
import type { InstanceSettings } from "../../src/instance/settings.ts";
import type { TypedProps } from "../../src/common/props.ts";

/** Instance settings with small, test-friendly limits; override what a test is about. */
export function testSettings(
  url: string,
  overrides: {
    auth?: InstanceSettings["auth"];
    tls?: Partial<InstanceSettings["tls"]>;
    proxy?: InstanceSettings["proxy"];
    http?: Partial<InstanceSettings["http"]>;
    retry?: Partial<InstanceSettings["retry"]>;
  } = {},
): InstanceSettings {
  return {
    url,
    auth: overrides.auth ?? { type: "basic", username: "admin", password: "admin-Secret-1" },
    tls: { truststore: null, keystore: null, ...overrides.tls },
    proxy: overrides.proxy ?? null,
    http: {
      maxConcurrentRequests: 8,
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      maxResponseBytes: 64 * 1024 * 1024,
      userAgent: "tablesync/<version>",
      adaptiveThrottling: true,
      rateLimitPacing: true,
      rateLimitReserve: 0.5,
      ...overrides.http,
    },
    retry: {
      maxAttempts: 5,
      maxElapsedMs: 300_000,
      initialBackoffMs: 1,
      maxBackoffMs: 5,
      ...overrides.retry,
    },
  };
}

/** The properties as the config layer would hand them over (defaults applied), for `instanceSettingsFromProps`. */
export function defaultProps(overrides: Record<string, TypedProps[string]> = {}): TypedProps {
  return {
    "svc.url": "https://Dev12345.Service-Now.com/now/nav/ui/classic",
    "svc.auth.type": "basic",
    "svc.auth.username": "integration",
    "svc.auth.password": "p@ss-Word-42",
    "svc.oauth.token.url": null,
    "svc.oauth.grant.type": "client_credentials",
    "svc.oauth.client.id": null,
    "svc.oauth.client.secret": null,
    "svc.oauth.scope": null,
    "svc.tls.truststore.path": null,
    "svc.tls.truststore.password": null,
    "svc.tls.truststore.type": "JKS",
    "svc.tls.keystore.path": null,
    "svc.tls.keystore.password": null,
    "svc.tls.keystore.type": "JKS",
    "svc.http.proxy.url": null,
    "svc.http.proxy.username": null,
    "svc.http.proxy.password": null,
    "svc.http.max.concurrent.requests": 8,
    "svc.http.connect.timeout.ms": 10000,
    "svc.http.request.timeout.ms": 60000,
    "svc.http.max.response.bytes": 67108864,
    "svc.http.user.agent": "tablesync/0.1.0",
    "svc.http.adaptive.throttling": true,
    "svc.http.rate.limit.pacing": true,
    "svc.http.rate.limit.reserve": 0.5,
    "svc.retry.max.attempts": 5,
    "svc.retry.max.elapsed.ms": 300000,
    "svc.retry.initial.backoff.ms": 500,
    "svc.retry.max.backoff.ms": 30000,
    ...overrides,
  };
}

/** The tcp connect check replaced by a no-op, for msw tests (msw hosts do not exist). */
export const noConnectCheck = () => Promise.resolve();

/** A unique host name per test, so that permit pools (process-wide, per host) never leak between tests. */
export function uniqueHost(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}.example.test`;
}

/** Rejects with what `promise` rejects with, or fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}
