/**
 * Kafka's `SingleFieldPath` (KIP-821): how ExtractField's `field` names a field, per `field.syntax.version`.
 *
 * - `V1` (default): the whole text is one top-level field name, dots included.
 * - `V2`: dots separate nested steps (`a.b.c`); a step wrapped in backticks may contain dots
 *   (`` `foo.bar`.baz ``), and a backslash escapes a backtick that would otherwise close the step.
 *   An unclosed backtick is a `ConfigException`.
 */
import type { Field, Schema } from "../schema.ts";
import type { Struct } from "../struct.ts";
import { TransformConfigException } from "./config.ts";
import { mapGet, requireMapOrNull, requireStructOrNull, type SchemalessMap } from "./support.ts";
import type { ConfigKeyDef } from "./config.ts";

export type FieldSyntaxVersion = "V1" | "V2";

export const FIELD_SYNTAX_VERSION_DEF: ConfigKeyDef = {
  name: "field.syntax.version",
  type: "STRING",
  default: "V1",
  validValues: ["V1", "V2"],
  caseInsensitive: true,
  importance: "HIGH",
  documentation:
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are " +
    "limited to access the elements at the root level of the struct or map. If set to `V2`, the syntax will " +
    "support accessing nested elements. To access nested elements, dotted notation is used. If dots are already " +
    "included in the field name, then backtick pairs can be used to wrap field names containing dots. E.g. to " +
    'access the subfield `baz` from a field named "foo.bar" in a struct/map the following format can be used to ' +
    'access its elements: "`foo.bar`.baz".',
};

const BACKTICK = "`";
const DOT = ".";
const BACKSLASH = "\\";

function incompleteBacktick(path: string, at: number): never {
  throw new TransformConfigException(
    null,
    `Incomplete backtick pair in path: [${path}], consider adding a backslash before backtick at position ${at} ` +
      "to escape it",
  );
}

/** Splits a V2 path into its steps, following Kafka's parsing exactly (including its edge cases). */
function parseV2(path: string): string[] {
  const steps: string[] = [];
  let idx = 0;
  while (idx < path.length && idx >= 0) {
    if (path[idx] !== BACKTICK) {
      const start = idx;
      idx = path.indexOf(DOT, idx);
      if (idx >= 0) {
        steps.push(path.substring(start, idx));
        idx++;
      } else {
        steps.push(path.substring(start));
      }
      continue;
    }
    const backtickAt = idx;
    idx++;
    let field = "";
    let start = idx;
    while (true) {
      idx = path.indexOf(BACKTICK, idx);
      if (idx === -1) incompleteBacktick(path, backtickAt);
      const escaped = path[idx - 1] === BACKSLASH;
      if (idx >= path.length - 1) {
        if (escaped) incompleteBacktick(path, backtickAt);
        field += path.substring(start, idx);
        steps.push(field);
        idx++;
        break;
      }
      if (path[idx + 1] !== DOT) {
        idx++;
        continue;
      }
      if (escaped) {
        field += path.substring(start, idx - 1) + BACKTICK;
        idx++;
        start = idx;
        continue;
      }
      field += path.substring(start, idx);
      steps.push(field);
      idx += 2;
      break;
    }
  }
  if (path.length > 0 && path[path.length - 1] === DOT) steps.push("");
  return steps;
}

export class SingleFieldPath {
  readonly steps: readonly string[];

  constructor(readonly text: string, version: FieldSyntaxVersion) {
    this.steps = version === "V1" ? [text] : parseV2(text);
  }

  get #parents(): readonly string[] {
    return this.steps.slice(0, -1);
  }

  get #last(): string {
    return this.steps[this.steps.length - 1];
  }

  /** The field at this path in a struct schema, or null when any step is missing. */
  fieldFrom(schema: Schema | null): Field | null {
    if (schema === null) return null;
    let current = schema;
    for (const step of this.#parents) {
      if (current.type !== "STRUCT") return null;
      const field = current.field(step);
      if (field === null) return null;
      current = field.schema;
    }
    return current.type === "STRUCT" ? current.field(this.#last) : null;
  }

  /** The value at this path in a Struct, or null when any step is missing or null. */
  valueFromStruct(struct: Struct | null, replaceNullWithDefault: boolean): unknown {
    let current = struct;
    if (current === null) return null;
    for (const step of this.#parents) {
      if (current.schema.field(step) === null) return null;
      current = requireStructOrNull(current.get(step), "nested field access");
      if (current === null) return null;
    }
    if (current.schema.field(this.#last) === null) return null;
    return replaceNullWithDefault ? current.get(this.#last) : current.getWithoutDefault(this.#last);
  }

  /** The value at this path in a schemaless map, or null when any step is missing or null. */
  valueFromMap(map: SchemalessMap | null): unknown {
    let current = map;
    if (current === null) return null;
    for (const step of this.#parents) {
      current = requireMapOrNull(mapGet(current, step), "nested field access");
      if (current === null) return null;
    }
    return mapGet(current, this.#last);
  }
}

/** Kafka's `FieldSyntaxVersion.fromConfig` (case-insensitive). */
export function fieldSyntaxVersion(text: string | null): FieldSyntaxVersion {
  return (text ?? "V1").toUpperCase() === "V2" ? "V2" : "V1";
}
