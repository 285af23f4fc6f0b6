/**
 * A trust store cannot replace the runtime's public root certificates (Deno.createHttpClient's `caCerts` are
 * added to them), so validation refuses one unless svc.tls.truststore.public.roots=true accepts that.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { analyzeConnector } from "../../src/config/connector_config.ts";

function analyze(extra: Record<string, string>) {
  return analyzeConnector({
    name: "tls",
    "connector.class": "io.tablesync.TableSourceConnector",
    "svc.url": "https://dev1.service-now.com",
    "svc.auth.username": "u",
    "svc.auth.password": "p",
    "svc.tables": "inc",
    "svc.table.inc.name": "incident",
    "svc.table.inc.topic": "t",
    ...extra,
  }, { worker: {} });
}

Deno.test("a trust store is refused with a clear message unless the public roots are accepted", () => {
  const store = { "svc.tls.truststore.path": "/etc/trust.p12", "svc.tls.truststore.type": "PKCS12" };
  const refused = analyze(store).errors.get("svc.tls.truststore.path")?.join("\n") ?? "";
  assert(refused.includes("cannot replace the public root certificates"), refused);
  assert(refused.includes("svc.tls.truststore.public.roots=true"), refused);
  assertEquals([...analyze({ ...store, "svc.tls.truststore.public.roots": "true" }).errors], []);
  assertEquals([...analyze({}).errors], [], "no trust store: nothing to accept");
});
