/**
 * How often each key of the read cache was asked for lately, approximately
 * and in a fixed space: a count-min sketch (four rows of 4-bit-range byte
 * counters, the least of a key's four read as its count) behind a
 * doorkeeper bit set that takes a key's first request, so keys asked for
 * once (most of a uniform spread over a million properties) never reach the
 * counters. Every `period` requests the doorkeeper is emptied and every
 * counter halved, so what was popular an hour ago fades (TinyLFU, Einziger,
 * Friedman and Manes, 2017).
 *
 * Written here rather than taken from npm: the one maintained package with a
 * count-min sketch (`bloom-filters`) brings eight runtime dependencies
 * (lodash, xxhashjs and reflect-metadata among them) for one class on the
 * path of every cached read; this one takes the key's hash the cache
 * computes once (`Bun.hash.cityHash32`, native).
 */
export class AccessFrequency {
  readonly #counters: Uint8Array;
  readonly #rowMask: number;
  readonly #rowWidth: number;
  readonly #doorkeeper: Uint32Array;
  /** The doorkeeper's bit of a key is the top bits of a multiplicative hash: this many dropped. */
  readonly #doorkeeperShift: number;
  readonly #period: number;
  #requests = 0;

  /**
   * Sized for a cache of `capacity` entries: 4 rows of 4·capacity counters
   * (512 KB for the default 20,000), halved every 32·capacity requests. Simulated over a
   * million keys with 33,000 held, a period of 32 rather than TinyLFU's
   * usual 10 let in a third as many answers under uniform reads (each one
   * in pushes one out and is garbage later) and held more of the Zipf
   * reads' hits (docs/performance.md).
   */
  constructor(capacity: number) {
    this.#rowWidth = powerOfTwoAtLeast(Math.max(64, capacity * 4));
    this.#rowMask = this.#rowWidth - 1;
    this.#counters = new Uint8Array(this.#rowWidth * ROWS);
    this.#period = Math.max(64, capacity * 32);
    const bits = powerOfTwoAtLeast(this.#period * 4);
    this.#doorkeeper = new Uint32Array(bits >>> 5);
    this.#doorkeeperShift = 32 - Math.log2(bits);
  }

  /** Counts a request for the key whose 32-bit hash is `hash`. */
  record(hash: number): void {
    const bit = Math.imul(hash, 0x9e3779b1) >>> this.#doorkeeperShift;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    if ((this.#doorkeeper[word]! & flag) === 0) this.#doorkeeper[word]! |= flag;
    else {
      // Conservative update: only the counters at the key's least count move.
      const least = this.#least(hash);
      if (least < MAX_COUNT) {
        let h = hash;
        for (let row = 0; row < ROWS; row++) {
          const index = row * this.#rowWidth + (h & this.#rowMask);
          if (this.#counters[index] === least) this.#counters[index] = least + 1;
          h = mix(h);
        }
      }
    }
    if (++this.#requests >= this.#period) this.#age();
  }

  /** About how many times the key was asked for lately, halved every period (0 for one never seen). */
  estimate(hash: number): number {
    const bit = Math.imul(hash, 0x9e3779b1) >>> this.#doorkeeperShift;
    return ((this.#doorkeeper[bit >>> 5]! >>> (bit & 31)) & 1) + this.#least(hash);
  }

  #least(hash: number): number {
    let least = MAX_COUNT;
    let h = hash;
    for (let row = 0; row < ROWS; row++) {
      const count = this.#counters[row * this.#rowWidth + (h & this.#rowMask)]!;
      if (count < least) least = count;
      h = mix(h);
    }
    return least;
  }

  #age(): void {
    this.#requests = 0;
    this.#doorkeeper.fill(0);
    for (let i = 0; i < this.#counters.length; i++) this.#counters[i]! >>>= 1;
  }
}

const ROWS = 4;
const MAX_COUNT = 15;

/** A cheap 32-bit remix (murmur3's finaliser): each row's index from the last. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function powerOfTwoAtLeast(n: number): number {
  return 2 ** Math.ceil(Math.log2(n));
}
