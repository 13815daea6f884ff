import type { ReadCache } from '@/db/read-cache';
import { etagOfText } from '@/kernel/etag';
import { type MaybePromise, whenReady } from '@/kernel/maybe-promise';
import type { Utf8 } from '@/kernel/utf8';
import { type PropertyRecord, toProperty } from '@/listings/properties/representation';
import type { ListingsStore } from '@/listings/store';

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
/**
 * The header of a held read: the archived flag, the ETag's length (ASCII,
 * under 30 bytes: `etagOfText`), and the owner id's length in UTF-8 bytes on
 * four bytes (an owner id is any text); then the ETag, the owner id and the
 * body.
 */
const HEAD = 6;

/**
 * A property's representation serialised once (UTF-8), with its ETag and the
 * owner it is scoped by, held as one buffer: the read cache keeps tens of
 * thousands of these, and each object a held answer consists of is one more
 * for every full collection of the heap to walk (docs/performance.md, "Held
 * as one buffer"). The ETag and owner are read from it when asked for.
 */
export class PropertyRead {
  readonly #packed: Utf8;

  constructor(packed: Utf8) {
    this.#packed = packed;
  }

  /** The held bytes of a representation (`json`) with its ETag, owner and archived flag. */
  static pack(json: string, etag: string, ownerId: string, archived: boolean): Utf8 {
    const owner = ENCODER.encode(ownerId);
    const ownerAt = HEAD + etag.length;
    const bodyAt = ownerAt + owner.byteLength;
    const packed = new Uint8Array(bodyAt + Buffer.byteLength(json));
    packed[0] = archived ? 1 : 0;
    packed[1] = etag.length;
    new DataView(packed.buffer).setUint32(2, owner.byteLength);
    ENCODER.encodeInto(etag, packed.subarray(HEAD, ownerAt));
    packed.set(owner, ownerAt);
    ENCODER.encodeInto(json, packed.subarray(bodyAt));
    return packed;
  }

  /** The held bytes: what the read cache keeps. */
  get packed(): Utf8 {
    return this.#packed;
  }

  get body(): Utf8 {
    return this.#packed.subarray(this.#ownerAt() + this.#ownerLength());
  }

  /**
   * Read in place, without a view of the bytes (Bun's `Buffer` methods take
   * any `Uint8Array`): the ETag is ASCII (`etagOfText`), so Latin-1 reads
   * it as UTF-8 would. A view and a `TextDecoder` call cost about twice as
   * much and left a view a read for the collector (`subarray` under the
   * ETag was a twentieth of a point read's profile samples).
   */
  get etag(): string {
    return Buffer.prototype.toString.call(this.#packed, 'latin1', HEAD, this.#ownerAt());
  }

  get ownerId(): string {
    const at = this.#ownerAt();
    return DECODER.decode(this.#packed.subarray(at, at + this.#ownerLength()));
  }

  /** Archived: not shown to anonymous readers (`canSee`). */
  get archived(): boolean {
    return this.#packed[0] === 1;
  }

  #ownerAt(): number {
    return HEAD + this.#packed[1]!;
  }

  #ownerLength(): number {
    const p = this.#packed;
    return ((p[2]! << 24) | (p[3]! << 16) | (p[4]! << 8) | p[5]!) >>> 0;
  }
}

/**
 * About what a cached read holds besides its bytes: the entry, its key and
 * tags, with the heap's slack (measured: bench/memory-probe.ts).
 */
const READ_OVERHEAD = 600;

/**
 * GET /properties/{id} without the query and serialisation while the row is
 * unchanged: the read is tagged with the property's id, which every write
 * to that row touches (a unit write rewrites the row's counters), whoever
 * makes it and on whichever instance. A read is what a fresh query would
 * give (docs/performance.md). A missing property is not remembered.
 */
export function readProperty(
  store: ListingsStore,
  cache: ReadCache,
  id: string,
): MaybePromise<PropertyRead | null> {
  const key = `p:${id}`;
  return whenReady(
    cache.answerCheap<Utf8 | null>(key, () =>
      whenReady(store.propertyById(id), (row) => {
        const packed = row ? packedOf(row) : null;
        const size = packed ? packed.byteLength + READ_OVERHEAD : 0;
        // The key is the one tag: one string for both.
        return { value: packed, size, tags: [key], keep: packed !== null, cheap: true };
      }),
    ),
    (packed) => packed && new PropertyRead(packed),
  );
}

function packedOf(row: PropertyRecord): Utf8 {
  const json = JSON.stringify(toProperty(row));
  return PropertyRead.pack(json, etagOfText(json), row.owner_id, row.archived === 1);
}
