/** A configuration problem found while loading or resolving config; its message names what and where. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
