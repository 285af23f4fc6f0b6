/**
 * The shapes the config layer hands to the rest of the daemon.
 *
 * A connector's raw config is Kafka Connect's flat string map. After parsing against the property
 * definitions (src/config/defs/), every defined property is present with its typed value or its
 * default, so consumers never repeat a default: they read `props["svc.http.max.concurrent.requests"]`.
 */

/** Connect's raw connector config: property name to string value, exactly as the user wrote it (placeholders unresolved). */
export type RawConfig = Record<string, string>;

/** A typed property value: INT/LONG/SHORT/DOUBLE → number, BOOLEAN → boolean, LIST → string[], others → string; null when unset. */
export type PropValue = string | number | boolean | string[] | null;

/** Parsed connector properties: every defined name with its typed value (default applied), plus undefined pass-through keys as strings. */
export type TypedProps = Readonly<Record<string, PropValue>>;
