/**
 * The group leader's assignment of work units (tasks, or connectors) to members: balanced, sticky and
 * incremental, like Kafka Connect's incremental cooperative assignor (KIP-415).
 *
 * - Balanced: member loads differ by at most one unit once a unit that must move has moved.
 * - Sticky: a member keeps every unit it owns up to its fair share; only the excess moves, so a joining member
 *   takes a few units from each of the others and a leaving member's units spread over the rest.
 * - No overlap: a unit owned by a member present in this round is never given to another member in the same
 *   round. It is revoked (left out of its owner's assignment); the owner stops it and rejoins, and the next round
 *   finds it free. A unit whose owner is not in the round (it left or died) is free at once.
 */

export interface MemberOwnership {
  memberId: string;
  /** Units this member runs now, as it reported in its join metadata. */
  owned: readonly string[];
}

/**
 * Each member's units for this round (every member has an entry). A member's units it owned but does not get
 * are revoked. Units that are revoked from one member go to nobody in this round.
 */
export function assignUnits(
  units: readonly string[],
  members: readonly MemberOwnership[],
): Map<string, string[]> {
  const all = new Set(units);
  const ordered = [...members].sort((a, b) => a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0);
  const result = new Map<string, string[]>(ordered.map((m) => [m.memberId, []]));
  if (ordered.length === 0) return result;

  // What each member keeps: the units it owns that still exist, each claimed once.
  const claimed = new Set<string>();
  const kept = new Map<string, string[]>();
  for (const { memberId, owned } of ordered) {
    const mine = [...new Set(owned)].filter((u) => all.has(u) && !claimed.has(u)).sort();
    for (const u of mine) claimed.add(u);
    kept.set(memberId, mine);
  }

  // Fair shares: the `extra` most loaded members may hold one unit more, so as few units as possible move.
  const base = Math.floor(all.size / ordered.length);
  const extra = all.size % ordered.length;
  const byLoad = [...ordered].sort((a, b) => kept.get(b.memberId)!.length - kept.get(a.memberId)!.length);
  const share = new Map(byLoad.map((m, i) => [m.memberId, base + (i < extra ? 1 : 0)]));

  // Over-share members give up their excess (the highest unit ids); those units wait for the next round.
  const moving = new Set<string>();
  for (const { memberId } of ordered) {
    const mine = kept.get(memberId)!;
    const limit = share.get(memberId)!;
    for (const u of mine.splice(limit)) moving.add(u);
  }

  // Free units (new, or their owner is gone) go to the least loaded members below their share.
  const free = [...all].filter((u) => !claimed.has(u)).sort();
  for (const u of free) {
    const target = ordered
      .filter((m) => kept.get(m.memberId)!.length < share.get(m.memberId)!)
      .sort((a, b) => kept.get(a.memberId)!.length - kept.get(b.memberId)!.length)[0] ??
      // Shares are computed over every unit, so a slot exists unless units are still moving; then any member.
      [...ordered].sort((a, b) => kept.get(a.memberId)!.length - kept.get(b.memberId)!.length)[0];
    kept.get(target.memberId)!.push(u);
  }
  for (const [memberId, mine] of kept) result.set(memberId, mine.sort());
  return result;
}

/** Units a member owned but was not given: it must stop them before the group can hand them on. */
export function revokedUnits(owned: readonly string[], assigned: readonly string[]): string[] {
  const keep = new Set(assigned);
  return owned.filter((u) => !keep.has(u));
}
