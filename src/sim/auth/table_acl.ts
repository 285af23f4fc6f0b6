/**
 * Table-level read access: a table whose schema names `readRoles` (the audit tables) is readable by admins and by
 * users holding one of those roles; anyone else gets 403 with the instance's ACL error body.
 */
import type { TableSchema } from "../schema/fields.ts";
import type { Principal } from "./users.ts";
import { errorBody } from "../http/responses.ts";
import { type ApiResponse, bodyOf } from "../http/answer.ts";

export function readRefused(
  schema: TableSchema | undefined,
  principal: Principal,
  headers: Headers,
): ApiResponse | undefined {
  const roles = schema?.readRoles;
  if (!roles || principal.admin || principal.roles.some((r) => roles.includes(r))) return undefined;
  return {
    status: 403,
    headers,
    body: bodyOf(errorBody("Operation Failed", "ACL Exception Read Failed due to security constraints")),
  };
}
