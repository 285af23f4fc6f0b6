import { Buffer } from "node:buffer";
import { assertEquals } from "../support/assert.ts";
import { crc32c, crc32cReady } from "../../src/kafka/crc32c.ts";
import kafkajsCrc32CModule from "kafkajs/src/protocol/recordBatch/crc32C/index.js";

const kafkajsCrc32C = kafkajsCrc32CModule as unknown as (buffer: Buffer) => number;

Deno.test("crc32c: the values of kafkajs's CRC-32C, for every length and offset", async () => {
  assertEquals(await crc32cReady, true, "the WebAssembly hasher loads");
  const bytes = Buffer.allocUnsafe(200_003);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (Math.imul(i, 2654435761) >>> 24) & 0xff;
  for (const length of [0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 100, 4095, 4096, 65_537, 200_000]) {
    for (const offset of [0, 1, 3]) {
      const view = bytes.subarray(offset, offset + length);
      assertEquals(crc32c(view), kafkajsCrc32C(view), `length ${length}, offset ${offset}`);
    }
  }
  // The check value of CRC-32C (RFC 3720): "123456789".
  assertEquals(crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
});
