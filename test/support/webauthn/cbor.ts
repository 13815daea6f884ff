/**
 * Minimal CBOR encoder (RFC 8949) covering what WebAuthn test fixtures need:
 * unsigned/negative integers, byte strings, text strings, arrays, maps and booleans.
 * Maps keep insertion order, so callers control canonical ordering (CTAP2 style).
 */
export type CborValue =
  | number
  | string
  | boolean
  | Uint8Array
  | readonly CborValue[]
  | CborMap
  | { readonly [key: string]: CborValue };

export type CborMap = ReadonlyMap<number | string, CborValue>;

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const SIMPLE_FALSE = 0xf4;
const SIMPLE_TRUE = 0xf5;

const textEncoder = new TextEncoder();

function head(major: number, argument: number): Uint8Array {
  if (!Number.isSafeInteger(argument) || argument < 0) {
    throw new RangeError(`CBOR argument out of range: ${argument}`);
  }
  const type = major << 5;
  if (argument < 24) return Uint8Array.of(type | argument);
  if (argument < 0x100) return Uint8Array.of(type | 24, argument);
  if (argument < 0x10000) {
    return Uint8Array.of(type | 25, argument >> 8, argument & 0xff);
  }
  if (argument < 0x100000000) {
    const out = new Uint8Array(5);
    out[0] = type | 26;
    new DataView(out.buffer).setUint32(1, argument);
    return out;
  }
  const out = new Uint8Array(9);
  out[0] = type | 27;
  new DataView(out.buffer).setBigUint64(1, BigInt(argument));
  return out;
}

const isCborMap = (value: object): value is CborMap => value instanceof Map;

function encodeInto(value: CborValue, chunks: Uint8Array[]): void {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new TypeError(`CBOR encoder only supports integers, got ${value}`);
    }
    chunks.push(value >= 0 ? head(MAJOR_UNSIGNED, value) : head(MAJOR_NEGATIVE, -1 - value));
  } else if (typeof value === 'string') {
    const bytes = textEncoder.encode(value);
    chunks.push(head(MAJOR_TEXT, bytes.length), bytes);
  } else if (typeof value === 'boolean') {
    chunks.push(Uint8Array.of(value ? SIMPLE_TRUE : SIMPLE_FALSE));
  } else if (value instanceof Uint8Array) {
    chunks.push(head(MAJOR_BYTES, value.length), value);
  } else if (Array.isArray(value)) {
    const items: readonly CborValue[] = value;
    chunks.push(head(MAJOR_ARRAY, items.length));
    for (const item of items) encodeInto(item, chunks);
  } else {
    const entries: [number | string, CborValue][] = isCborMap(value)
      ? [...value]
      : Object.entries(value);
    chunks.push(head(MAJOR_MAP, entries.length));
    for (const [key, item] of entries) {
      encodeInto(key, chunks);
      encodeInto(item, chunks);
    }
  }
}

export function encodeCbor(value: CborValue): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  encodeInto(value, chunks);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
