/**
 * The one family of configuration errors: a setting that cannot work as given, found while loading the config
 * file or when a room reads its settings (Kafka client, instance client, offset store, converters and
 * transforms, source, sink). Each room's error extends `ConfigError`, so a caller branches on
 * `instanceof ConfigError` whatever room found the problem. It lives here, the lowest room every other room may
 * import. The message names the property and, where it helps, what to do.
 */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
