/**
 * The cookies of an instance session, as captured on Basic-auth responses (instance-limits.md §3): `JSESSIONID`,
 * `glide_session_store` (Max-Age 1800), `glide_user_route` (the node) and the load balancer's affinity cookie
 * `BIGipServerpool_<instance>` (the node too: the balancer pins a client that sends it).
 */

/** Names and values of a Cookie request header. */
export function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** One Set-Cookie value; `secure` on HTTPS only, so a strict cookie jar keeps it over plain HTTP too. */
export function setCookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const age = maxAgeSeconds === undefined ? "" : `; Max-Age=${maxAgeSeconds}`;
  return `${name}=${value}${age}; Path=/; HttpOnly${secure ? "; Secure; SameSite=None" : ""}`;
}

/** The balancer's cookie value for node `index`: BIG-IP's encoding of the member's IPv4 address and port. */
export function balancerValue(index: number): string {
  const ip = [10, 0, 0, index + 1];
  const address = ip[0] + ip[1] * 256 + ip[2] * 65536 + ip[3] * 16777216;
  const port = 16398; // 8 × 256 + 64 ⇒ big-endian 0x4000 swapped, as BIG-IP writes ports.
  return `${address}.${port}.0000`;
}
