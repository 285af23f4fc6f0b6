/**
 * What a record asks the table to do (`svc.sink.operation.mode`):
 * - `key_value` (default): a key addresses the row by sys id (an update), no key creates, a null value deletes;
 * - `header`: the header named by `svc.sink.operation.header` says CREATE, UPDATE, UPSERT or DELETE;
 * - `fixed`: `svc.sink.operation.fixed` for every record.
 *
 * A null value is a delete in key_value mode and an error in the other modes unless the operation is DELETE.
 * Updates and deletes need a sys id from the key; an upsert without one is a create.
 */
import type { SinkRecord } from "../connect/record.ts";
import type { SinkInput } from "./input.ts";
import { MappingError } from "./record_error.ts";
import { headerText } from "./routing.ts";
import type { Operation, OperationSettings } from "./settings.ts";

const OPERATIONS: readonly Operation[] = ["create", "update", "upsert", "delete"];

export function resolveOperation(
  record: SinkRecord,
  input: SinkInput,
  sysId: string | null,
  settings: OperationSettings,
): Operation {
  const operation = requestedOperation(record, input, sysId, settings);
  if (input === null && operation !== "delete") {
    throw new MappingError(
      `the record value is null, which only a delete accepts (operation ${operation.toUpperCase()}, ${
        modeName(settings)
      })`,
    );
  }
  if ((operation === "update" || operation === "delete") && sysId === null) {
    throw new MappingError(
      `${operation.toUpperCase()} needs the row's sys id from the record key, and the record has none`,
    );
  }
  return operation === "upsert" && sysId === null ? "create" : operation;
}

function requestedOperation(
  record: SinkRecord,
  input: SinkInput,
  sysId: string | null,
  settings: OperationSettings,
): Operation {
  switch (settings.mode) {
    case "key_value":
      if (input === null) return "delete";
      return sysId === null ? "create" : "update";
    case "fixed":
      return settings.operation;
    case "header": {
      const text = headerText(record, settings.header);
      if (text === null) {
        throw new MappingError(`the record has no "${settings.header}" header naming its operation`);
      }
      const operation = OPERATIONS.find((o) => o === text.toLowerCase());
      if (operation === undefined) {
        throw new MappingError(
          `header "${settings.header}" says "${text}"; expected CREATE, UPDATE, UPSERT or DELETE`,
        );
      }
      return operation;
    }
  }
}

function modeName(settings: OperationSettings): string {
  return `svc.sink.operation.mode=${settings.mode}`;
}
