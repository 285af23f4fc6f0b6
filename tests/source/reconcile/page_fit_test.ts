/** Whether a reconcile page fits before the next poll (src/source/reconcile/page_fit.ts). */
import { assert, assertEquals } from "../../support/assert.ts";
import { PageFit } from "../../../src/source/reconcile/page_fit.ts";

Deno.test("a page fits when one and a half of the last page's time is left", () => {
  const fit = new PageFit(30_000);
  assert(fit.fits(0, 0), "before any page: anything fits");
  fit.observed(2000, 1000);
  assert(fit.fits(3000, 1000));
  assert(!fit.fits(2999, 1000));
});

Deno.test("a page slower than the poll interval fits again after waiting: the estimate halves every half-life", () => {
  const fit = new PageFit(30_000);
  fit.observed(8000, 0);
  const interval = 5000;
  assert(!fit.fits(interval, 0), "an 8 s page does not fit a 5 s wait");
  assertEquals(fit.estimateMs(30_000), 4000);
  assert(!fit.fits(interval, 30_000), "4 s × 1.5 is still more than 5 s");
  assertEquals(fit.estimateMs(60_000), 2000);
  assert(fit.fits(interval, 60_000), "after a minute it is tried again");
});
