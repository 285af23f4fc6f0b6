/**
 * The one error type the REST API maps to a response: Kafka Connect's `{error_code, message}` with the HTTP
 * status. The herder throws it for conditions an operator caused (unknown connector, bad config, wrong state).
 */
import { redact } from "../../observability/redact.ts";

export class ConnectRestError extends Error {
  constructor(readonly status: number, message: string) {
    super(redact(message));
    this.name = "ConnectRestError";
  }

  static notFound(name: string): ConnectRestError {
    return new ConnectRestError(404, `Connector ${name} not found`);
  }
}
