/** A connector created over REST gets a name Kafka Connect would accept (config/connector_name.ts), else a 400. */
import { connectorNameError } from "../../config/connector_name.ts";
import { ConnectRestError } from "./connect_rest_error.ts";

export function checkConnectorName(name: string): void {
  const error = connectorNameError(name);
  if (error) throw new ConnectRestError(400, error);
}
