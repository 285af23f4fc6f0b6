/**
 * CRC-32C (Castagnoli) of record batches, by hash-wasm's WebAssembly CRC-32 with the Castagnoli polynomial:
 * about four times faster than kafkajs's JavaScript table loop (0.6 against 2.5 ms per MB measured here), and the
 * same values (tests/kafka/crc32c_test.ts compares them with kafkajs's).
 */
import { createCRC32 } from "hash-wasm";

const CASTAGNOLI = 0x82f63b78;
const hasher = await createCRC32(CASTAGNOLI);

/** The CRC-32C of `bytes`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
  hasher.init();
  hasher.update(bytes);
  const d = hasher.digest("binary");
  return ((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0;
}
