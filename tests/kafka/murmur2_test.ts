import { Buffer } from "node:buffer";
import { Partitioners } from "kafkajs";
import { assertEquals } from "../support/assert.ts";
import { murmur2 } from "../../src/kafka/murmur2.ts";
import { pinningPartitioner } from "../../src/kafka/producer.ts";
import kafkajsMurmur2Module from "kafkajs/src/producer/partitioners/default/murmur2.js";

const kafkajsMurmur2 = kafkajsMurmur2Module as unknown as (key: Buffer) => number;

/** Deterministic pseudo-random bytes (xorshift). */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed | 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

Deno.test("murmur2: kafkajs's (Java's) hash for keys of every length and byte", () => {
  for (let length = 0; length < 70; length++) {
    for (let seed = 1; seed < 40; seed++) {
      const key = bytes(length, seed * 7919 + length);
      assertEquals(murmur2(key), kafkajsMurmur2(key), `length ${length}, seed ${seed}`);
    }
  }
  // Known values of the Java client (Utils.murmur2 of UTF-8 strings).
  assertEquals(murmur2(Buffer.from("21")), -973932308);
  assertEquals(murmur2(Buffer.from("foobar")), -790332482);
  assertEquals(murmur2(Buffer.from("a-little-bit-long-string")), -985981536);
});

Deno.test("pinning partitioner: the partitions kafkajs's default partitioner chooses, pinned on the message", () => {
  const ours = pinningPartitioner();
  const theirs = Partitioners.DefaultPartitioner();
  for (const partitions of [1, 3, 48, 100]) {
    const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 1 }));
    for (let i = 0; i < 500; i++) {
      const key = i % 2 === 0 ? bytes(i % 40, i + 1) : Buffer.from(`sys-id-${i}`.padEnd(32, "0"));
      const message = { key, value: null };
      const chosen = ours({ topic: "t", partitionMetadata, message } as never);
      assertEquals(chosen, theirs({ topic: "t", partitionMetadata, message: { key, value: null } } as never));
      assertEquals((message as { partition?: number }).partition, chosen);
    }
  }
});
