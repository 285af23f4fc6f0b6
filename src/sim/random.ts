/** Seeded pseudo-random numbers (mulberry32): the same seed always generates the same data and faults. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** 32 lower-case hex characters, the shape of a sys_id. */
  hex32(): string {
    let out = "";
    for (let i = 0; i < 4; i++) out += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, "0");
    return out;
  }
}

/** Stable 32-bit hash of a string (FNV-1a), for deterministic per-row decisions such as ACL hiding. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
