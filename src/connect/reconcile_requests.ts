/**
 * Asking a source task to start a table's reconcile pass now (`POST /connectors/<n>/tables/<alias>/reconcile`):
 * the REST API in the main thread broadcasts the request; every source task listens in its worker and the one
 * whose connector has that alias starts a pass at its next idle moment. A broadcast channel keeps the request
 * out of the runtime's worker protocol: only the two ends know it.
 */
const CHANNEL = "tablesync-reconcile-requests";

export interface ReconcileRequest {
  readonly connector: string;
  readonly alias: string;
}

export function requestReconcile(request: ReconcileRequest): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(request);
  channel.close();
}

/** Calls `handle` with each request until the returned function is called. */
export function listenForReconcileRequests(handle: (request: ReconcileRequest) => void): () => void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent<ReconcileRequest>) => {
    const r = event.data;
    if (typeof r?.connector === "string" && typeof r?.alias === "string") handle(r);
  };
  return () => channel.close();
}
