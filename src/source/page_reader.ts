/**
 * Reads one table's pages: waits for room in the task's page budget (page_budget.ts) for a page of what the last
 * one weighed, then asks the instance for the page the sweep names (sweep.ts), at the page size the table's
 * backoff allows (table_backoff.ts). The ticket settles to the bytes read; `done` gives the page's share back,
 * to be called once its records are queued.
 */
import type { TableClient } from "../instance/mod.ts";
import { wireDisplayValue } from "./display_value.ts";
import type { InstanceTimeSource } from "./instance_time.ts";
import type { PageBudget, PageTicket } from "./page_budget.ts";
import type { TableSettings } from "./settings.ts";
import type { PageRequest } from "./sweep.ts";
import type { TableBackoff } from "./table_backoff.ts";

/**
 * The projection sent: the configured fields plus the mod-count field (needed for the dedup version, prefixed in a
 * view like the other cursor fields); empty = all.
 */
export function projectionOf(fields: readonly string[], modCountField: string): string[] {
  if (fields.length === 0) return [];
  return fields.includes(modCountField) ? [...fields] : [...fields, modCountField];
}

export interface PageReaderOptions {
  readonly table: TableSettings;
  readonly client: TableClient;
  readonly clock: InstanceTimeSource;
  readonly backoff: TableBackoff;
  /** The task's bound on page bodies held at once; none = unbounded. */
  readonly pageBudget?: PageBudget;
  readonly signal: AbortSignal;
}

export class PageReader {
  readonly #o: PageReaderOptions;
  readonly #fields: string[];
  /** Body bytes per row asked for, of the last page read (what the next page is expected to weigh). */
  #bytesPerRow: number | null = null;

  constructor(o: PageReaderOptions) {
    this.#o = o;
    this.#fields = projectionOf(o.table.fields, o.table.modCountField);
  }

  /** The rows the next page asks for (the table's backoff may have lowered the batch size). */
  limit(): number {
    return this.#o.backoff.limit;
  }

  /**
   * Requests a sweep's page (`sweep.next`) once the page budget has room for it. `signal`: the task's, or one
   * that also ends a read ahead no longer wanted.
   */
  async read(request: PageRequest, signal: AbortSignal = this.#o.signal) {
    const limit = this.limit();
    const budget = this.#o.pageBudget;
    const ticket = budget
      ? await budget.acquire(
        this.#bytesPerRow === null ? budget.unknownPageBytes(limit) : Math.ceil(this.#bytesPerRow * limit),
        signal,
      )
      : null;
    try {
      return await this.#request(request, limit, ticket, signal);
    } catch (error) {
      ticket?.release();
      throw error;
    }
  }

  async #request(request: PageRequest, limit: number, ticket: PageTicket | null, signal: AbortSignal) {
    const t = this.#o.table;
    const page = await this.#o.client.listSliced(t.table, {
      query: request.query,
      count: request.count,
      limit,
      fields: this.#fields,
      displayValue: wireDisplayValue(t.displayValue),
      excludeReferenceLink: t.excludeReferenceLink,
      queryNoDomain: !t.queryDomain,
      queryCategory: t.queryCategory,
      coalesce: request.coalesce,
      signal,
    });
    const extractedAt = Date.now();
    ticket?.settle(page.bytes);
    this.#bytesPerRow = page.bytes / limit;
    this.#o.backoff.pageRead();
    this.#o.clock.observe(page.instanceTime);
    return { page, limit, extractedAt, done: () => ticket?.release() };
  }
}
