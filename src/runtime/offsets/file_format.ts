/**
 * The offsets file format (version 1), also documented in docs/offsets.md:
 *
 * ```json
 * {
 *   "format": "tablesync.source-offsets",
 *   "version": 1,
 *   "rows": [
 *     {"key":["jira-src",{"table":"incident"}],"value":{"sys_updated_on":"2024-10-01 12:00:00"}},
 *     {"key":["jira-src",{"table":"problem"}],"value":{"sys_updated_on":"2024-09-30 08:15:00"}}
 *   ]
 * }
 * ```
 *
 * One row per live offset, one row per line. `key` is Kafka Connect's offset key `["<connector>",{partition}]`
 * and `value` the offset map, each written compactly exactly as Connect's JsonConverter (schemas disabled)
 * writes them to `offset.storage.topic` (a key keeps the spelling it was first stored with), so
 * `jq -r '.rows[] | "\(.key|tojson)\t\(.value|tojson)"'` gives records that
 * `kcat -P -X partitioner=murmur2_random -K $'\t'` can produce into a Connect offsets topic as they are.
 * Deleted offsets have no row (the file is a snapshot, not a log).
 */
import { canonicalOffsetKey, parseOffsetKey } from "./offset_key.ts";
import type { OffsetRow } from "./offset_table.ts";
import type { SourceOffset, SourcePartition } from "../../connect/record.ts";
import { InvalidOffsetError, validateOffsetMap } from "./validation.ts";
import { isPlainObject } from "../../common/plain_object.ts";

const OFFSETS_FILE_FORMAT = "tablesync.source-offsets";
const OFFSETS_FILE_VERSION = 1;

/** The offsets file cannot be used. The daemon stops with this rather than starting over from empty offsets. */
export class CorruptOffsetsError extends Error {
  override name = "CorruptOffsetsError";
  constructor(readonly path: string, readonly problem: string) {
    super(
      `Offsets file ${path} is unusable: ${problem}. tablesync does not start over from empty offsets on its own: ` +
        `restore the file from a backup or fix it, or delete it to make every source connector start from its ` +
        `initial position.`,
    );
  }
}

/** A row of the file, validated. */
export interface FileRow {
  readonly connector: string;
  readonly partition: SourcePartition;
  readonly offset: SourceOffset;
}

/** Serialises the rows in the format above. */
export function encodeOffsetsFile(rows: Iterable<OffsetRow>): string {
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(`    {"key":${row.key},"value":${JSON.stringify(row.offset)}}`);
  }
  const header = `{\n  "format": ${
    JSON.stringify(OFFSETS_FILE_FORMAT)
  },\n  "version": ${OFFSETS_FILE_VERSION},\n`;
  if (lines.length === 0) return `${header}  "rows": []\n}\n`;
  return `${header}  "rows": [\n${lines.join(",\n")}\n  ]\n}\n`;
}

/**
 * Parses and validates the file's bytes. Throws CorruptOffsetsError naming `path` and the first problem found.
 * Rows with the same (canonical) key are allowed, the last one wins, and `duplicates` counts them.
 */
export function decodeOffsetsFile(bytes: Uint8Array, path: string): { rows: FileRow[]; duplicates: number } {
  const corrupt = (problem: string) => new CorruptOffsetsError(path, problem);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw corrupt("it is not valid UTF-8 text");
  }
  if (text.trim() === "") throw corrupt("it is empty");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw corrupt(`it is not valid JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(doc)) throw corrupt("the top level is not a JSON object");
  if (doc.format !== OFFSETS_FILE_FORMAT) {
    throw corrupt(
      `"format" is ${JSON.stringify(doc.format)}, expected ${JSON.stringify(OFFSETS_FILE_FORMAT)}`,
    );
  }
  if (doc.version !== OFFSETS_FILE_VERSION) {
    throw corrupt(
      `"version" is ${JSON.stringify(doc.version)}, this tablesync reads version ${OFFSETS_FILE_VERSION}`,
    );
  }
  if (!Array.isArray(doc.rows)) throw corrupt(`"rows" is not a JSON list`);

  const rows: FileRow[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  doc.rows.forEach((row: unknown, index: number) => {
    const where = `row ${index} of "rows"`;
    if (!isPlainObject(row)) throw corrupt(`${where} is not a JSON object`);
    if (!("key" in row) || !("value" in row)) throw corrupt(`${where} lacks "key" or "value"`);
    const key = parseOffsetKey(row.key);
    if (!key.ok) throw corrupt(`the key of ${where} is not a Connect offset key: ${key.problem}`);
    try {
      validateOffsetMap(key.partition, "source partition", key.connector);
      validateOffsetMap(row.value, "source offset", key.connector);
    } catch (error) {
      if (error instanceof InvalidOffsetError) throw corrupt(`${where}: ${error.message}`);
      throw error;
    }
    const canonical = canonicalOffsetKey(key.connector, key.partition);
    if (seen.has(canonical)) duplicates++;
    seen.add(canonical);
    rows.push({ connector: key.connector, partition: key.partition, offset: row.value });
  });
  return { rows, duplicates };
}
