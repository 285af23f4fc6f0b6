import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { instanceSettingsFromProps } from "../../src/instance/settings.ts";
import { InstanceConfigError } from "../../src/instance/errors.ts";
import { parseInstanceUrl } from "../../src/instance/instance_url.ts";
import { redact } from "../../src/observability/redact.ts";
import { defaultProps } from "./_helpers.ts";
import type { TypedProps } from "../../src/common/props.ts";
import { VERSION } from "../../src/version.ts";

Deno.test("settings: basic auth and every limit are read from the spec's property names", () => {
  const settings = instanceSettingsFromProps(defaultProps({ "svc.http.max.concurrent.requests": 3 }));
  assertEquals(settings.auth, { type: "basic", username: "integration", password: "p@ss-Word-42" });
  assertEquals(settings.http, {
    maxConcurrentRequests: 3,
    connectTimeoutMs: 10000,
    requestTimeoutMs: 60000,
    maxResponseBytes: 67108864,
    userAgent: "tablesync/0.1.0",
    adaptiveThrottling: true,
    rateLimitPacing: true,
    rateLimitReserve: 0.5,
  });
  assertEquals(settings.retry, {
    maxAttempts: 5,
    maxElapsedMs: 300000,
    initialBackoffMs: 500,
    maxBackoffMs: 30000,
  });
  assertEquals(settings.proxy, null);
  assertEquals(settings.tls, { truststore: null, keystore: null });
});

Deno.test("settings: svc.http.requests.per.hour sets the host's request budget when given", () => {
  const settings = instanceSettingsFromProps(defaultProps({ "svc.http.requests.per.hour": 7200 }));
  assertEquals(settings.http.requestsPerHour, 7200);
  assertEquals(instanceSettingsFromProps(defaultProps({})).http.requestsPerHour, undefined);
});

Deno.test("settings: passwords are registered as secrets as soon as they are read", () => {
  instanceSettingsFromProps(defaultProps({
    "svc.auth.password": "first-Secret-xyz",
    "svc.http.proxy.url": "http://proxy:3128",
    "svc.http.proxy.username": "pu",
    "svc.http.proxy.password": "proxy-Secret-xyz",
    "svc.tls.keystore.path": "/k.p12",
    "svc.tls.keystore.password": "store-Secret-xyz",
  }));
  assertEquals(
    redact("a first-Secret-xyz b proxy-Secret-xyz c store-Secret-xyz"),
    "a [hidden] b [hidden] c [hidden]",
  );
});

Deno.test("settings: oauth2 client credentials and password grants", () => {
  const cc = instanceSettingsFromProps(defaultProps({
    "svc.auth.type": "oauth2",
    "svc.oauth.client.id": "cid",
    "svc.oauth.client.secret": "client-Secret-1",
    "svc.auth.username": null,
    "svc.auth.password": null,
  }));
  assertEquals(cc.auth, {
    type: "oauth2",
    grantType: "client_credentials",
    tokenUrl: null,
    clientId: "cid",
    clientSecret: "client-Secret-1",
    scope: null,
    username: null,
    password: null,
  });
  const pw = instanceSettingsFromProps(defaultProps({
    "svc.auth.type": "oauth2",
    "svc.oauth.grant.type": "password",
    "svc.oauth.client.id": "cid",
    "svc.oauth.client.secret": "client-Secret-1",
    "svc.oauth.scope": "useraccount",
  }));
  assert(pw.auth.type === "oauth2");
  assertEquals([pw.auth.grantType, pw.auth.username, pw.auth.scope], [
    "password",
    "integration",
    "useraccount",
  ]);
});

Deno.test("settings: missing credentials name the property", () => {
  assertThrows(
    () => instanceSettingsFromProps(defaultProps({ "svc.auth.password": null })),
    InstanceConfigError,
    "svc.auth.password is required for svc.auth.type=basic",
  );
  assertThrows(
    () =>
      instanceSettingsFromProps(defaultProps({
        "svc.auth.type": "oauth2",
        "svc.oauth.grant.type": "password",
        "svc.oauth.client.id": "cid",
        "svc.oauth.client.secret": "client-Secret-1",
        "svc.auth.username": null,
      })),
    InstanceConfigError,
    "svc.auth.username is required for the OAuth password grant",
  );
  assertThrows(
    () => instanceSettingsFromProps(defaultProps({ "svc.auth.type": "oauth2" })),
    InstanceConfigError,
    "svc.oauth.client.id is required",
  );
  assertThrows(
    () => instanceSettingsFromProps(defaultProps({ "svc.retry.max.attempts": "5" })),
    InstanceConfigError,
    "svc.retry.max.attempts must be a number",
  );
});

Deno.test("settings: key and trust stores", () => {
  const settings = instanceSettingsFromProps(defaultProps({
    "svc.tls.truststore.path": "/etc/trust.p12",
    "svc.tls.truststore.type": "PKCS12",
    "svc.tls.truststore.password": "trust-Secret-1",
  }));
  assertEquals(settings.tls.truststore, {
    path: "/etc/trust.p12",
    password: "trust-Secret-1",
    type: "PKCS12",
  });
  assertEquals(settings.tls.keystore, null);
});

Deno.test("instance url: only scheme, host and port are used; the host is lower-cased", () => {
  assertEquals(parseInstanceUrl("https://Dev12345.Service-Now.com/now/nav/ui?x=1#y"), {
    origin: "https://dev12345.service-now.com",
    host: "dev12345.service-now.com",
    hostname: "dev12345.service-now.com",
    port: 443,
    secure: true,
  });
  assertEquals(parseInstanceUrl("http://user:pw@127.0.0.1:8080/x").origin, "http://127.0.0.1:8080");
  assertEquals(parseInstanceUrl("http://127.0.0.1:8080").host, "127.0.0.1:8080");
  assertThrows(() => parseInstanceUrl("ftp://x"), InstanceConfigError, "https://");
  assertThrows(() => parseInstanceUrl("not a url"), InstanceConfigError, "not a valid URL");
});

Deno.test("settings: contract with the config layer's definitions (names, types, defaults)", async () => {
  const { CONNECTION_DEFS } = await import("../../src/config/defs/connection.ts");
  const { coerce } = await import("../../src/config/coerce.ts");
  const props: Record<string, TypedProps[string]> = {};
  for (const def of CONNECTION_DEFS) {
    const coerced = coerce(def, def.default ?? null);
    assert(coerced.ok, `${def.name} default does not coerce`);
    props[def.name] = coerced.value;
  }
  Object.assign(props, {
    "svc.url": "https://x.service-now.com",
    "svc.auth.username": "u",
    "svc.auth.password": "p-Secret-9",
  });
  const settings = instanceSettingsFromProps(props);
  assertEquals(settings.http.maxConcurrentRequests, 8);
  assertEquals(settings.http.connectTimeoutMs, 10000);
  assertEquals(settings.http.requestTimeoutMs, 60000);
  assertEquals(settings.http.maxResponseBytes, 67108864);
  assertEquals(settings.http.adaptiveThrottling, true);
  assertEquals(settings.retry, {
    maxAttempts: 5,
    maxElapsedMs: 300000,
    initialBackoffMs: 500,
    maxBackoffMs: 30000,
  });
  assertEquals(settings.auth.type, "basic");
  assert(
    settings.http.userAgent.includes(VERSION),
    `User-Agent carries the version: ${settings.http.userAgent}`,
  );
});
