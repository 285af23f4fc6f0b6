import { assert, assertEquals } from "../../support/assert.ts";
import { assignUnits, type MemberOwnership, revokedUnits } from "../../../src/runtime/group/assignor.ts";

const units = (n: number) => Array.from({ length: n }, (_, i) => `t${String(i).padStart(2, "0")}`);

/**
 * Runs rebalance rounds as members do: each member keeps what it was given (revoked units stop), and rounds
 * repeat while some member revoked something. Checks after every round that no unit is owned twice.
 * Returns the final ownership and how many rounds it took.
 */
function converge(all: string[], start: MemberOwnership[]): { owned: Map<string, string[]>; rounds: number } {
  let members = start;
  for (let round = 1; round <= 5; round++) {
    const plan = assignUnits(all, members);
    const seen = new Set<string>();
    for (const list of plan.values()) {
      for (const u of list) {
        assert(!seen.has(u), `unit ${u} given twice in round ${round}`);
        seen.add(u);
      }
    }
    for (const m of members) {
      for (const u of plan.get(m.memberId)!) {
        const previous = members.find((o) => o.owned.includes(u));
        assert(
          previous === undefined || previous.memberId === m.memberId,
          `unit ${u} moved from ${previous?.memberId} to ${m.memberId} in one round (overlap)`,
        );
      }
    }
    const revoked = members.some((m) => revokedUnits(m.owned, plan.get(m.memberId)!).length > 0);
    members = members.map((m) => ({ memberId: m.memberId, owned: plan.get(m.memberId)! }));
    if (!revoked) return { owned: plan, rounds: round };
  }
  throw new Error("assignment did not converge in 5 rounds");
}

function assertBalancedAndComplete(all: string[], owned: Map<string, string[]>) {
  const loads = [...owned.values()].map((l) => l.length);
  assert(Math.max(...loads) - Math.min(...loads) <= 1, `unbalanced loads ${loads}`);
  assertEquals([...owned.values()].flat().sort(), [...all].sort());
}

Deno.test("fresh group: every unit on exactly one member, loads within one", () => {
  for (const [n, m] of [[5, 3], [12, 3], [2, 3], [0, 2], [7, 1]]) {
    const all = units(n);
    const members = Array.from({ length: m }, (_, i) => ({ memberId: `m${i}`, owned: [] }));
    const { owned, rounds } = converge(all, members);
    assertEquals(rounds, 1);
    assertBalancedAndComplete(all, owned);
  }
});

Deno.test("a joining member takes only its share, one from each other member, over two rounds", () => {
  const all = units(12);
  const three = converge(all, ["a", "b", "c"].map((memberId) => ({ memberId, owned: [] }))).owned;
  const before = [...three].map(([memberId, owned]) => ({ memberId, owned }));
  const { owned, rounds } = converge(all, [...before, { memberId: "d", owned: [] }]);
  assertEquals(rounds, 2);
  assertBalancedAndComplete(all, owned);
  const moved = before.reduce((n, m) => n + revokedUnits(m.owned, owned.get(m.memberId)!).length, 0);
  assertEquals(moved, 3);
  assertEquals(owned.get("d")!.length, 3);
});

Deno.test("a leaving member's units spread over the rest; the others keep all of theirs, in one round", () => {
  const all = units(8);
  const four = converge(all, ["a", "b", "c", "d"].map((memberId) => ({ memberId, owned: [] }))).owned;
  const survivors = ["a", "b", "c"].map((memberId) => ({ memberId, owned: four.get(memberId)! }));
  const { owned, rounds } = converge(all, survivors);
  assertEquals(rounds, 1);
  assertBalancedAndComplete(all, owned);
  for (const s of survivors) assert(s.owned.every((u) => owned.get(s.memberId)!.includes(u)));
});

Deno.test("units that no longer exist are dropped and a unit claimed twice is kept by one member only", () => {
  const { owned } = converge(["x", "y"], [
    { memberId: "a", owned: ["x", "gone"] },
    { memberId: "b", owned: ["x"] },
  ]);
  assertEquals(owned.get("a"), ["x"]);
  assertEquals(owned.get("b"), ["y"]);
});

Deno.test("an unbalanced group after a leave and a join converges to balance without overlap", () => {
  const all = units(10);
  const { owned } = converge(all, [
    { memberId: "a", owned: units(10) },
    { memberId: "b", owned: [] },
    { memberId: "c", owned: [] },
  ]);
  assertBalancedAndComplete(all, owned);
  assertEquals(owned.get("a")!.length, 4);
});
