/** Basic and bearer authentication of an API request; records what was tried in the journal entry. */
import type { JournalEntry } from "../journal.ts";
import type { SimState } from "../state.ts";
import type { Principal } from "../auth/users.ts";

export function authenticate(state: SimState, request: Request, entry: JournalEntry): Principal | undefined {
  const header = request.headers.get("authorization") ?? "";
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const credential = header.slice(space + 1).trim();
  if (scheme === "basic") {
    entry.authKind = "basic";
    let decoded = "";
    try {
      decoded = atob(credential);
    } catch {
      return undefined;
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return undefined;
    const principal = state.users.verify(decoded.slice(0, colon), decoded.slice(colon + 1));
    entry.principal = principal?.userName;
    return principal;
  }
  if (scheme === "bearer") {
    entry.authKind = "bearer";
    const principal = state.oauth.verifyBearer(credential);
    entry.principal = principal?.userName;
    entry.clientId = principal?.clientId;
    return principal;
  }
  return undefined;
}
