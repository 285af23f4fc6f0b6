/** Kafka's `DropHeaders`: removes every header whose key is listed in `headers`. */
import { ConnectHeaders } from "../headers.ts";
import { type ConfigKeyDef, nonEmptyList, TransformConfig } from "./config.ts";
import type { AnyRecord, Transformation } from "./types.ts";

export const DROP_HEADERS_CONFIG_DEF: readonly ConfigKeyDef[] = [
  {
    name: "headers",
    type: "LIST",
    importance: "HIGH",
    documentation: "The name of the headers to be removed.",
    validator: nonEmptyList,
  },
];

export class DropHeaders<R extends AnyRecord> implements Transformation<R> {
  #headers = new Set<string>();

  configure(props: Readonly<Record<string, string>>): void {
    this.#headers = new Set(new TransformConfig(DROP_HEADERS_CONFIG_DEF, props).getList("headers"));
  }

  apply(record: R): R {
    const kept = new ConnectHeaders([...record.headers].filter((h) => !this.#headers.has(h.key)));
    return record.newRecord({ headers: kept }) as R;
  }

  close(): void {}
}
