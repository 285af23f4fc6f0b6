/**
 * Kafka's murmur2 key hash (the Java client's `Utils.murmur2`, which its default partitioner uses), in 32-bit
 * integer arithmetic. kafkajs computes the same value with a 64-bit Long object per step, several allocations per
 * byte quartet of every key; this gives the same partitions without them (tests/kafka/murmur2_test.ts compares
 * both on many keys).
 */
const SEED = 0x9747b28c | 0;
const M = 0x5bd1e995;

export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const at = i * 4;
    let k = data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  switch (length & 3) {
    case 3:
      h ^= data[tail + 2] << 16;
    // falls through
    case 2:
      h ^= data[tail + 1] << 8;
    // falls through
    case 1:
      h ^= data[tail];
      h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h;
}
