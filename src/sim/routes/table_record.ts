/** Single-record routes: GET/PATCH/PUT/DELETE /table/<t>/<sys_id> and POST /table/<t>. */
import { deleteAudited } from "../store/deletion_audit.ts";
import { errorBody, Errors } from "../http/responses.ts";
import { parseFieldList, RowRenderer } from "../http/serialize.ts";
import { applyBusinessRules } from "../store/business_rules.ts";
import { DuplicateSysIdError, type TableStore, type WriteContext } from "../store/table_store.ts";
import type { RowSource } from "../store/row_source.ts";
import { type ApiRequest, type ApiResponse, bodyOf, displayMode, flag, linkBase } from "./request.ts";

function renderOne(req: ApiRequest, source: RowSource, row: number): string {
  const renderer = new RowRenderer(req.state.db, source, {
    display: displayMode(req.params),
    excludeReferenceLink: flag(req.params, "sysparm_exclude_reference_link"),
    fields: parseFieldList(req.params.get("sysparm_fields")),
    linkBase: linkBase(req),
    viewer: req.viewer,
  });
  return `{"result":${renderer.render(row)}}`;
}

function notFound(req: ApiRequest): ApiResponse {
  return { status: 404, headers: req.headers, body: bodyOf(errorBody(...Errors.noRecord)) };
}

function visibleRow(req: ApiRequest, source: RowSource): number {
  const row = source.rowBySysId(req.sysId ?? "");
  if (row < 0) return -1;
  return req.faults.hidden?.(req.sysId!) ? -1 : row;
}

export function getRecord(req: ApiRequest, source: RowSource): ApiResponse {
  const row = visibleRow(req, source);
  if (row < 0) return notFound(req);
  req.entry.rowsReturned = 1;
  req.state.counters.rowsReturned++;
  return { status: 200, headers: req.headers, body: bodyOf(renderOne(req, source, row)) };
}

/** Reads the JSON body; strings are kept, other scalars stringified, nested values rejected. */
async function readBody(req: ApiRequest): Promise<Record<string, string> | ApiResponse> {
  let parsed: unknown;
  const text = await req.request.text();
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
  } catch (e) {
    return invalidBody(req, `The payload is not valid JSON: ${(e as Error).message}`);
  }
  // A list posts only its first record, as the instance does.
  if (Array.isArray(parsed)) parsed = parsed[0] ?? {};
  if (typeof parsed !== "object" || parsed === null) {
    return invalidBody(req, "The payload must be a JSON object");
  }
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (v === null) values[k] = "";
    else if (typeof v === "object") {
      // {"value": "..."} objects (as read with display_value=all or links) are accepted by their value.
      const inner = (v as Record<string, unknown>).value;
      if (typeof inner === "string") values[k] = inner;
      else return invalidBody(req, `Field ${k} must be a string value`);
    } else values[k] = String(v);
  }
  return values;
}

function invalidBody(req: ApiRequest, detail: string): ApiResponse {
  return {
    status: 400,
    headers: req.headers,
    body: bodyOf(errorBody("Exception while reading request", detail)),
  };
}

function readOnlyView(req: ApiRequest, operation: string): ApiResponse {
  return {
    status: 403,
    headers: req.headers,
    body: bodyOf(
      errorBody("Operation Failed", `ACL Exception ${operation} Failed due to security constraints`),
    ),
  };
}

function writeContext(req: ApiRequest): WriteContext {
  return {
    nowSeconds: req.state.clock.nowSeconds(),
    user: req.principal.userName,
    suppressAutoSysFields: flag(req.params, "sysparm_suppress_auto_sys_field"),
    newSysId: () => req.state.ids.hex32(),
  };
}

function written(req: ApiRequest, status: number, source: RowSource, row: number): ApiResponse {
  req.entry.rowsReturned = 1;
  if ((req.request.headers.get("x-no-response-body") ?? "").toLowerCase() === "true") {
    return { status, headers: req.headers };
  }
  return { status, headers: req.headers, body: bodyOf(renderOne(req, source, row)) };
}

export async function insertRecord(
  req: ApiRequest,
  source: RowSource,
  store?: TableStore,
): Promise<ApiResponse> {
  if (!store) return readOnlyView(req, "Insert");
  const values = await readBody(req);
  if ("status" in values && "headers" in values) return values as ApiResponse;
  const verdict = req.state.writeRules.judge(
    store,
    "insert",
    applyBusinessRules(store, values as Record<string, string>),
  );
  if (verdict.refused) return refusedWrite(req, verdict.refused);
  let row: number;
  try {
    row = store.insert(verdict.values, writeContext(req));
  } catch (e) {
    if (e instanceof DuplicateSysIdError) {
      return {
        status: 403,
        headers: req.headers,
        body: bodyOf(errorBody("Operation Failed", `Error during insert of ${store.name} (${e.message})`)),
      };
    }
    throw e;
  }
  const sysId = store.reader("sys_id")!.get(row);
  req.headers.set("location", `${linkBase(req)}${store.name}/${sysId}`);
  return written(req, 201, source, row);
}

export async function updateRecord(
  req: ApiRequest,
  source: RowSource,
  store?: TableStore,
): Promise<ApiResponse> {
  if (!store) return readOnlyView(req, "Update");
  const row = visibleRow(req, source);
  if (row < 0) return notFound(req);
  const values = await readBody(req);
  if ("status" in values && "headers" in values) return values as ApiResponse;
  const clear = req.method === "PUT" && req.state.settings.putClearsOmittedFields;
  const verdict = req.state.writeRules.judge(
    store,
    "update",
    applyBusinessRules(store, values as Record<string, string>, row),
    row,
  );
  if (verdict.refused) return refusedWrite(req, verdict.refused);
  store.update(row, verdict.values, writeContext(req), clear);
  return written(req, 200, source, row);
}

/** A write a business rule, data policy or the quota refused: nothing stored. */
function refusedWrite(req: ApiRequest, refused: { status: number; body: string }): ApiResponse {
  return { status: refused.status, headers: req.headers, body: bodyOf(refused.body) };
}

export function deleteRecord(req: ApiRequest, source: RowSource, store?: TableStore): ApiResponse {
  if (!store) return readOnlyView(req, "Delete");
  const row = visibleRow(req, source);
  if (row < 0) return notFound(req);
  deleteAudited(req.state.db, store, row, writeContext(req));
  req.headers.delete("content-type");
  return { status: 204, headers: req.headers };
}
