/**
 * Error classes of the Connect data layer.
 *
 * Only errors that callers branch on get a class: the runtime's error handler tolerates `DataException`
 * (thrown by converters and transforms) per `errors.tolerance`, and the config layer reports
 * `ConfigException` messages verbatim through the validate endpoint.
 */
import { ConfigError } from "../common/config_error.ts";

/**
 * Kafka's `org.apache.kafka.connect.errors.DataException`: a record's data does not fit its schema or cannot be
 * converted. Stages KEY_CONVERTER, VALUE_CONVERTER, HEADER_CONVERTER and TRANSFORMATION tolerate it when
 * `errors.tolerance=all`.
 */
export class DataException extends Error {
  /** Kafka's class name, for the `__connect.errors.exception.class.name` DLQ header and error logs. */
  readonly javaClassName: string = "org.apache.kafka.connect.errors.DataException";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DataException";
  }
}

/** Kafka's `SchemaBuilderException` (a `DataException`): an invalid `SchemaBuilder` call. */
export class SchemaBuilderException extends DataException {
  override readonly javaClassName: string = "org.apache.kafka.connect.errors.SchemaBuilderException";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SchemaBuilderException";
  }
}

/**
 * Kafka's `org.apache.kafka.common.config.ConfigException` for converter and transform settings, Connect's name
 * kept for parity (its `name` and `javaClassName` are Kafka's); a `ConfigError` like every room's. The message format
 * `Invalid value <v> for configuration <name>: <reason>` is Kafka's own, so messages read the same as in Connect.
 */
export class ConfigException extends ConfigError {
  readonly javaClassName: string = "org.apache.kafka.common.config.ConfigException";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigException";
  }

  /** Builds Kafka's standard message for a property whose value is rejected. */
  static invalidValue(name: string, value: unknown, reason: string): ConfigException {
    return new ConfigException(`Invalid value ${String(value)} for configuration ${name}: ${reason}`);
  }
}
