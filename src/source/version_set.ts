/**
 * A bounded set of row version keys (`timestamp|sys_id|sys_mod_count`) in insertion order, the oldest dropped
 * once `capacity` are held: the storage of the dedup cache and the overlap ledger.
 *
 * Keys are held packed (version_key.ts: six 32-bit words each) in typed arrays: a ring of entries in insertion
 * order and an open-addressing hash table (linear probing, load at most one half) of ring places. Lookups
 * compare the whole packed key, so a hash collision only costs a probe; a key that does not pack exactly is
 * kept as its string in a Map instead, with the same order and bound. As strings in a Set, a full window of
 * 50,000 took about 5 MB of V8 heap per table (and the ledger's Map of versions and cursors twice that), all of
 * it traced by every full collection; packed, about 2 MB of ArrayBuffers.
 *
 * The ring grows by doubling up to twice the capacity: deleted entries leave dead places behind, and once the
 * ring is full of them it is compacted (at least `capacity` places freed per compaction: amortised O(1)).
 * Evicting the oldest is a step along the ring, never a scan of a Set's deleted entries (see dedup_cache.ts).
 */
import {
  hashPacked,
  PACKED_WORDS,
  packedEpochMs,
  packVersionKey,
  samePacked,
  unpackVersionKey,
} from "./version_key.ts";

/** A ring place's state. */
const EMPTY = 0; // never used, or its entry evicted or deleted
const PACKED = 1;
const AS_STRING = 2;

/** Ring places before the first growth (fewer when twice the capacity is less). */
const INITIAL_PLACES = 256;

/** A key kept as its string, with its detail. */
interface StringEntry<T> {
  readonly key: string;
  readonly detail: T | undefined;
}

export class VersionSet<T = never> {
  /** Packed keys, PACKED_WORDS per ring place. */
  #words: Uint32Array;
  #state: Uint8Array;
  /** Hash table of ring place + 1 (0: free); its length a power of two, at least twice the ring's. */
  #slots: Int32Array;
  /** Keys kept as strings: key → ring place, and ring place → entry. */
  readonly #stringPlace = new Map<string, number>();
  readonly #stringAt = new Map<number, StringEntry<T>>();
  /** The oldest used place; places used from there (live or dead); live entries. */
  #head = 0;
  #used = 0;
  #size = 0;
  /** A key packed for a lookup, kept for the add that usually follows with the same key. */
  readonly #scratch = new Uint32Array(PACKED_WORDS);
  #scratchKey: string | null = null;
  #scratchPacked = false;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`version set capacity must be at least 1, got ${capacity}`);
    const places = Math.min(INITIAL_PLACES, 2 * capacity);
    this.#words = new Uint32Array(places * PACKED_WORDS);
    this.#state = new Uint8Array(places);
    this.#slots = new Int32Array(slotCount(places));
  }

  get size(): number {
    return this.#size;
  }

  has(key: string): boolean {
    return this.#placeOf(key) >= 0;
  }

  /**
   * Adds `key` as the newest entry, evicting the oldest when `capacity` are held; false (nothing changed) when it
   * is held already. A `detail` is kept with the key and handed back by `forEach`; a key with a detail is kept
   * as its string.
   */
  add(key: string, detail?: T): boolean {
    if (this.#placeOf(key) >= 0) return false;
    // #placeOf left `key` packed in the scratch words, if it packs.
    const packed = detail === undefined && this.#scratchPacked;
    if (this.#size === this.capacity) this.#evictOldest();
    if (this.#used === this.#state.length) this.#makeRoom();
    const place = (this.#head + this.#used) % this.#state.length;
    this.#used++;
    this.#size++;
    if (packed) {
      this.#words.set(this.#scratch, place * PACKED_WORDS);
      this.#state[place] = PACKED;
      this.#insertSlot(place);
    } else {
      this.#state[place] = AS_STRING;
      this.#stringPlace.set(key, place);
      this.#stringAt.set(place, { key, detail });
    }
    return true;
  }

  /** Removes `key`; false when it is not held. */
  delete(key: string): boolean {
    const place = this.#placeOf(key);
    if (place < 0) return false;
    this.#drop(place);
    return true;
  }

  /**
   * Every key (and its detail, if any) from the oldest to the newest; packed keys whose timestamp lies before
   * `fromEpochMs` are skipped without being spelled out (keys kept as strings are all visited).
   */
  forEach(visit: (key: string, detail: T | undefined) => void, fromEpochMs = -Infinity): void {
    const places = this.#state.length;
    for (let i = 0; i < this.#used; i++) {
      const place = (this.#head + i) % places;
      const state = this.#state[place];
      if (state === PACKED) {
        const at = place * PACKED_WORDS;
        if (packedEpochMs(this.#words, at) >= fromEpochMs) {
          visit(unpackVersionKey(this.#words, at), undefined);
        }
      } else if (state === AS_STRING) {
        const entry = this.#stringAt.get(place)!;
        visit(entry.key, entry.detail);
      }
    }
  }

  /** The ring place of `key`, or -1. */
  #placeOf(key: string): number {
    if (this.#packScratch(key)) {
      const place = this.#findPacked();
      if (place >= 0) return place;
    }
    // A packable key given with a detail is kept as a string too. An empty Map costs no string hashing.
    return this.#stringPlace.size === 0 ? -1 : this.#stringPlace.get(key) ?? -1;
  }

  /** Removes the live entry at `place`, leaving a dead place in the ring. */
  #drop(place: number): void {
    if (this.#state[place] === PACKED) this.#removeSlot(place);
    else {
      this.#stringPlace.delete(this.#stringAt.get(place)!.key);
      this.#stringAt.delete(place);
    }
    this.#state[place] = EMPTY;
    this.#size--;
  }

  /** Packs `key` into the scratch words (unless they hold it already); whether it packs. */
  #packScratch(key: string): boolean {
    if (key !== this.#scratchKey) {
      this.#scratchPacked = packVersionKey(key, this.#scratch, 0);
      this.#scratchKey = key;
    }
    return this.#scratchPacked;
  }

  /** The ring place holding the scratch key, or -1. */
  #findPacked(): number {
    const mask = this.#slots.length - 1;
    for (let slot = hashPacked(this.#scratch, 0) & mask;; slot = (slot + 1) & mask) {
      const place = this.#slots[slot] - 1;
      if (place < 0) return -1;
      if (samePacked(this.#words, place * PACKED_WORDS, this.#scratch, 0)) return place;
    }
  }

  #insertSlot(place: number): void {
    const mask = this.#slots.length - 1;
    let slot = hashPacked(this.#words, place * PACKED_WORDS) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = place + 1;
  }

  /** Takes `place` out of the hash table, shifting back the entries after it (no tombstones). */
  #removeSlot(place: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let hole = hashPacked(this.#words, place * PACKED_WORDS) & mask;
    while (slots[hole] !== place + 1) hole = (hole + 1) & mask;
    for (let next = (hole + 1) & mask; slots[next] !== 0; next = (next + 1) & mask) {
      const home = hashPacked(this.#words, (slots[next] - 1) * PACKED_WORDS) & mask;
      // The entry at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      slots[hole] = slots[next];
      hole = next;
    }
    slots[hole] = 0;
  }

  /** Drops the oldest live entry (dead places before it are skipped). */
  #evictOldest(): void {
    const places = this.#state.length;
    while (this.#state[this.#head] === EMPTY) {
      this.#head = (this.#head + 1) % places;
      this.#used--;
    }
    this.#drop(this.#head);
    this.#head = (this.#head + 1) % places;
    this.#used--;
  }

  /** The ring is full: doubles it (up to twice the capacity), else drops its dead places. */
  #makeRoom(): void {
    const places = Math.min(2 * this.#state.length, 2 * this.capacity);
    const words = new Uint32Array(places * PACKED_WORDS);
    const state = new Uint8Array(places);
    const strings = new Map(this.#stringAt);
    this.#stringPlace.clear();
    this.#stringAt.clear();
    let used = 0;
    for (let i = 0; i < this.#used; i++) {
      const old = (this.#head + i) % this.#state.length;
      if (this.#state[old] === EMPTY) continue;
      state[used] = this.#state[old];
      if (this.#state[old] === PACKED) {
        words.set(this.#words.subarray(old * PACKED_WORDS, (old + 1) * PACKED_WORDS), used * PACKED_WORDS);
      } else {
        const entry = strings.get(old)!;
        this.#stringPlace.set(entry.key, used);
        this.#stringAt.set(used, entry);
      }
      used++;
    }
    this.#words = words;
    this.#state = state;
    this.#head = 0;
    this.#used = used;
    this.#slots = new Int32Array(slotCount(places));
    for (let place = 0; place < used; place++) if (state[place] === PACKED) this.#insertSlot(place);
  }
}

/** Hash slots for `places` ring places: a power of two, at least twice as many. */
function slotCount(places: number): number {
  return 2 ** Math.ceil(Math.log2(2 * places));
}
