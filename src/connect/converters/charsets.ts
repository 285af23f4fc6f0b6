/**
 * The Java character sets StringConverter's `converter.encoding` accepts, by their Java names and aliases
 * (case-insensitive): UTF-8 (`UTF8`), ISO-8859-1 (`latin1`), US-ASCII (`ASCII`), UTF-16, UTF-16BE, UTF-16LE.
 * Unencodable characters become `?` and undecodable bytes U+FFFD, as Java's `String` conversions do.
 */

export interface Charset {
  readonly name: string;
  encode(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

const utf8Decoder = new TextDecoder("utf-8");
const utf8Encoder = new TextEncoder();

function singleByte(name: string, max: number): Charset {
  return {
    name,
    encode: (text) =>
      Uint8Array.from(text, (c) => (c.charCodeAt(0) <= max && c.length === 1 ? c.charCodeAt(0) : 0x3f)),
    decode: (bytes) => Array.from(bytes, (b) => (b <= max ? String.fromCharCode(b) : "\ufffd")).join(""),
  };
}

function utf16(name: string, littleEndian: boolean, withBom: boolean): Charset {
  return {
    name,
    encode(text) {
      const offset = withBom ? 2 : 0;
      const bytes = new Uint8Array(offset + text.length * 2);
      const view = new DataView(bytes.buffer);
      if (withBom) view.setUint16(0, 0xfeff, false);
      for (let i = 0; i < text.length; i++) view.setUint16(offset + i * 2, text.charCodeAt(i), littleEndian);
      return bytes;
    },
    decode(bytes) {
      let le = littleEndian;
      let start = 0;
      if (withBom && bytes.length >= 2) {
        // Java's "UTF-16" decoder honours a byte-order mark and defaults to big-endian.
        if (bytes[0] === 0xfe && bytes[1] === 0xff) start = 2;
        else if (bytes[0] === 0xff && bytes[1] === 0xfe) [le, start] = [true, 2];
      }
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let out = "";
      for (let i = start; i + 1 < bytes.length; i += 2) out += String.fromCharCode(view.getUint16(i, le));
      if ((bytes.length - start) % 2 === 1) out += "\ufffd";
      return out;
    },
  };
}

const UTF_8: Charset = {
  name: "UTF-8",
  encode: (t) => utf8Encoder.encode(t),
  decode: (b) => utf8Decoder.decode(b),
};

const CHARSETS = new Map<string, Charset>([
  ["utf-8", UTF_8],
  ["utf8", UTF_8],
  ["iso-8859-1", singleByte("ISO-8859-1", 0xff)],
  ["iso8859_1", singleByte("ISO-8859-1", 0xff)],
  ["latin1", singleByte("ISO-8859-1", 0xff)],
  ["us-ascii", singleByte("US-ASCII", 0x7f)],
  ["ascii", singleByte("US-ASCII", 0x7f)],
  ["utf-16", utf16("UTF-16", false, true)],
  ["utf-16be", utf16("UTF-16BE", false, false)],
  ["utf_16be", utf16("UTF-16BE", false, false)],
  ["utf-16le", utf16("UTF-16LE", true, false)],
  ["utf_16le", utf16("UTF-16LE", true, false)],
]);

/** The charset for a Java charset name, or null when it is not supported. */
export function charsetForName(name: string): Charset | null {
  return CHARSETS.get(name.trim().toLowerCase()) ?? null;
}
