/** Kafka Connect's error-handling stages (used in error logs and the `__connect.errors.stage` header). */
export type Stage =
  | "TASK_POLL"
  | "TASK_PUT"
  | "TRANSFORMATION"
  | "KEY_CONVERTER"
  | "VALUE_CONVERTER"
  | "HEADER_CONVERTER"
  | "KAFKA_PRODUCE"
  | "KAFKA_CONSUME";

/** Stages whose failures `errors.tolerance=all` may skip whatever the exception (Connect's TOLERABLE_EXCEPTIONS). */
export function toleratesAnyError(stage: Stage): boolean {
  return stage === "TRANSFORMATION" || stage === "KEY_CONVERTER" || stage === "VALUE_CONVERTER" ||
    stage === "HEADER_CONVERTER";
}

/** Kafka's Java class name of an error, for logs and DLQ headers. */
export function javaClassName(error: unknown): string {
  const named = error as { javaClassName?: unknown; name?: unknown };
  if (typeof named?.javaClassName === "string") return named.javaClassName;
  if (typeof named?.name === "string") return named.name;
  return "Error";
}
