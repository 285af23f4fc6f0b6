/**
 * What the sink does with a record the instance refused, from `errors.tolerance` and `behavior.on.api.errors`.
 * A Kafka Connect user who sets `errors.tolerance=all` with a dead letter queue expects a refused record to go
 * there and the task to go on; so `behavior.on.api.errors`, when unset, follows the tolerance (`all` → `log`,
 * `none` → `fail`). Set explicitly, it wins after the dead letter queue: `fail` stops the task once the record
 * is in the queue. With `errors.tolerance=none` the task stops at the first record error whatever it says.
 */
export type ApiErrorBehavior = "fail" | "log" | "ignore";

/** The behavior in force: the explicit value, or the one `errors.tolerance` implies. */
export function effectiveApiErrorBehavior(
  explicit: string | null,
  tolerance: string | null,
): ApiErrorBehavior {
  if (explicit === "fail" || explicit === "log" || explicit === "ignore") return explicit;
  return tolerance === "all" ? "log" : "fail";
}

/** One sentence for `tablesync validate`: what happens to a refused record under these settings. */
export function describeRecordErrorHandling(
  explicit: string | null,
  tolerance: string | null,
  deadLetterTopic: string | null,
): string {
  const behavior = effectiveApiErrorBehavior(explicit, tolerance);
  const source = explicit
    ? `behavior.on.api.errors=${behavior}`
    : `behavior.on.api.errors unset, so ${behavior}`;
  if (tolerance !== "all") {
    return `a refused record fails the task (errors.tolerance=none${
      behavior === "fail" ? "" : `; behavior.on.api.errors=${behavior} never applies`
    })`;
  }
  const queue = deadLetterTopic
    ? `goes to the dead letter queue ${deadLetterTopic}`
    : "is reported (no dead letter queue)";
  switch (behavior) {
    case "fail":
      return `a refused record ${queue}, then the task fails (${source})`;
    case "log":
      return `a refused record ${queue}, is logged and skipped; the task goes on (${source})`;
    case "ignore":
      return `a refused record ${queue} and is skipped silently; the task goes on (${source})`;
  }
}
