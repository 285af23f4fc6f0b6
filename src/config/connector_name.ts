/**
 * The checks a connector name passes, as Kafka Connect makes them, plus two of ours that keep every name
 * addressable as one path segment. Made when a connector is created over REST (runtime/herder/connector_name.ts)
 * and when a config file declares it (load.ts), so `tablesync validate` and `run` refuse what REST refuses:
 * - not empty or blank (Connect trims the name of a POST; `NonEmptyStringWithoutControlChars`);
 * - no ISO control characters (U+0000–U+001F, U+007F–U+009F; Connect's `Character.isISOControl`);
 * - at most 249 characters: Kafka's topic name limit (`Topic.MAX_NAME_LENGTH`), since a connector's name goes into
 *   Kafka names and keys (`connect-<name>`, config and status topic keys) and commonly into topic names;
 * - no `/` (Connect refused it before KAFKA-4930 too) and not `.` or `..`, which URL paths resolve away: such a
 *   connector could never be addressed as `/connectors/<name>`.
 */

export const MAX_CONNECTOR_NAME_LENGTH = 249;

/** What is wrong with `name` as a connector name, or null when nothing is. */
export function connectorNameProblem(name: string): string | null {
  if (name.trim() === "") return "Connector name may not be empty or blank";
  const controls = [...name].filter((c) => isIsoControl(c.codePointAt(0)!));
  if (controls.length > 0) {
    const codes = controls.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
    return `Connector name may not contain ISO control characters, found ${[...new Set(codes)].join(", ")}`;
  }
  if (name.length > MAX_CONNECTOR_NAME_LENGTH) {
    return `Connector name is ${name.length} characters long; at most ${MAX_CONNECTOR_NAME_LENGTH} are allowed`;
  }
  if (name.includes("/")) return "Connector name may not contain '/'";
  if (name === "." || name === "..") return `Connector name may not be '${name}'`;
  return null;
}

/** `Invalid value "<name>" for configuration name: <problem>` (Connect's wording), or null for a good name. */
export function connectorNameError(name: string): string | null {
  const problem = connectorNameProblem(name);
  return problem === null ? null : `Invalid value ${shown(name)} for configuration name: ${problem}`;
}

function isIsoControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

/** The name as JSON, cut short when long, with every control character escaped (JSON leaves U+007F–U+009F). */
function shown(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)
    .replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
