/**
 * The error a transform chain throws when a transformation or its predicate fails on a record. The runtime's
 * error handler branches on it: the stage is always `TRANSFORMATION` (tolerated under `errors.tolerance=all`),
 * `className` is the executing class for error logs and the `__connect.errors.class.name` DLQ header, and
 * `javaClassName` is the underlying exception's class for `__connect.errors.exception.class.name`.
 */
export class TransformationError extends Error {
  readonly stage = "TRANSFORMATION";

  constructor(readonly alias: string, readonly className: string, override readonly cause: unknown) {
    super(`Transformation '${alias}' (${className}) failed: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = "TransformationError";
  }

  /** The Java class name of the underlying exception (our errors carry it; anything else reports as Kafka's). */
  get javaClassName(): string {
    const own = (this.cause as { javaClassName?: unknown })?.javaClassName;
    return typeof own === "string" ? own : "org.apache.kafka.connect.errors.DataException";
  }
}
