/** The fields an encoded query names, for the dictionary check before it is sent. */
import { assertEquals } from "../support/assert.ts";
import { queryFields } from "../../src/instance/query_fields.ts";

Deno.test("queryFields: every condition's field, dot-walks by their first segment, keywords skipped", () => {
  assertEquals(
    queryFields("active=true^priorityIN1,2^ORcaller_id.nameSTARTSWITHa^NQu_flagISEMPTY^EQ"),
    ["active", "priority", "caller_id", "u_flag"],
  );
  assertEquals(queryFields("short_descriptionLIKEdisk^ORDERBYnumber"), ["short_description"]);
  assertEquals(queryFields(""), []);
  assertEquals(queryFields("sys_updated_on>=javascript:gs.daysAgoStart(1)"), ["sys_updated_on"]);
});
