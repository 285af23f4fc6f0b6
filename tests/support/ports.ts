/** Local TCP ports for tests: one that was free a moment ago (for a server to take, or for nobody to answer on). */

/** A port on 127.0.0.1 that was free when asked (another process may take it meanwhile: use it at once). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
