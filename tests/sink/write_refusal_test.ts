/** A 403 named by the instance's words; the retriable classes of the writes-by-class metric. */
import { assertEquals } from "../support/assert.ts";
import { isQuotaCancelled, refusalOf, retriableClassOf } from "../../src/sink/write_refusal.ts";
import { InstanceRetriableError } from "../../src/instance/errors.ts";
import { InstanceHtmlPageError } from "../../src/instance/html_page.ts";

const LABEL = { method: "PATCH", path: "/api/now/table/incident/a" };

Deno.test("403: business rule abort with its name, data policy with its fields, anything else acl_denied", () => {
  assertEquals(
    refusalOf(
      403,
      "acl_denied",
      "Operation Failed: Operation against file 'incident' was aborted by Business Rule 'Block VIP^0c8e'. " +
        "Business Rule Stack:Block VIP",
    ),
    { classification: "business_rule_abort", explanation: 'business rule "Block VIP" aborted it' },
  );
  assertEquals(
    refusalOf(
      403,
      "acl_denied",
      "Operation Failed: Data Policy Exception: \n\tThe following fields are mandatory: Resolution code, Close notes",
    ),
    {
      classification: "data_policy",
      explanation: "a data policy makes mandatory: Resolution code, Close notes",
    },
  );
  assertEquals(
    refusalOf(403, "acl_denied", "Operation Failed: ACL Exception Update Failed due to security constraints"),
    { classification: "acl_denied", explanation: null },
  );
  assertEquals(refusalOf(404, "not_found", "No Record found"), {
    classification: "not_found",
    explanation: null,
  });
});

Deno.test("retriable classes: HTML page, quota cancellation, 429, anything else a server error", () => {
  assertEquals(retriableClassOf(new InstanceHtmlPageError(LABEL, 200, 1)), "not_api");
  const cancelled = new InstanceRetriableError(
    LABEL,
    200,
    1,
    "the instance cut the response off: Transaction cancelled: maximum execution time exceeded",
  );
  assertEquals([isQuotaCancelled(cancelled), retriableClassOf(cancelled)], [true, "quota_cancelled"]);
  assertEquals(retriableClassOf(new InstanceRetriableError(LABEL, 429, 5, "rate limited")), "rate_limited");
  assertEquals(retriableClassOf(new InstanceRetriableError(LABEL, 503, 5, "unavailable")), "server_error");
});
