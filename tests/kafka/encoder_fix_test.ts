import { assertEquals } from "../support/assert.ts";
import { originalEncoderMethods } from "../../src/kafka/encoder_fix.ts";
import EncoderModule from "kafkajs/src/protocol/encoder.js";
import RecordModule from "kafkajs/src/protocol/recordBatch/record/v0/index.js";

// deno-lint-ignore no-explicit-any
const Encoder = EncoderModule as any;
// deno-lint-ignore no-explicit-any
const Record = RecordModule as any;

/** Runs `write` with the patched methods and with kafkajs's originals; both must give the same bytes. */
function bothWays(write: (e: any) => void): [number[], number[]] {
  const patched = new Encoder(1);
  write(patched);
  const original = new Encoder(1);
  const saved = {
    writeUVarInt: Encoder.prototype.writeUVarInt,
    writeVarLong: Encoder.prototype.writeVarLong,
    ensureAvailable: Encoder.prototype.ensureAvailable,
  };
  Object.assign(Encoder.prototype, originalEncoderMethods);
  try {
    write(original);
  } finally {
    Object.assign(Encoder.prototype, saved);
  }
  return [[...patched.buffer], [...original.buffer]];
}

const INTS = [
  0,
  1,
  -1,
  63,
  64,
  -64,
  -65,
  127,
  128,
  300,
  -300,
  16383,
  16384,
  2 ** 20,
  -(2 ** 20),
  2 ** 30,
  2 ** 31 - 1,
  -(2 ** 31),
];

Deno.test("encoder fix: varints and small varlongs give kafkajs's own bytes", () => {
  for (const v of INTS) {
    const [a, b] = bothWays((e) => e.writeVarInt(v));
    assertEquals(a, b, `varint ${v}`);
    const [c, d] = bothWays((e) => e.writeVarLong(v));
    assertEquals(c, d, `varlong ${v}`);
  }
});

Deno.test("encoder fix: large and non-number varlongs still take kafkajs's path", () => {
  for (const v of [2 ** 31, -(2 ** 31) - 1, 2 ** 45, Date.now(), "1700000000000", 17n]) {
    const [a, b] = bothWays((e) => e.writeVarLong(v));
    assertEquals(a, b, `varlong ${String(v)}`);
  }
});

Deno.test("encoder fix: a whole record with headers encodes to the same bytes", () => {
  const value = new TextEncoder().encode(JSON.stringify({ sys_id: "a".repeat(32), text: "é".repeat(900) }));
  const record = {
    offsetDelta: 4711,
    timestampDelta: 12_345,
    key: new TextEncoder().encode("abc"),
    value,
    headers: { "svc.table": "incident", "svc.extracted_at": new Uint8Array([1, 2, 3]) },
  };
  const [a, b] = bothWays((e) => e.writeEncoder(Record(record)));
  assertEquals(a, b);
});
