import type { DueEndpoint } from './store';

/** Employees' endpoints (no owner) share one turn, like one customer's. */
const EMPLOYEES = '\u0000employees';

const ownerKeyOf = (candidate: DueEndpoint) => candidate.ownerId ?? EMPLOYEES;

/** Attempts one owner may have in flight: a quarter of the pool, at least one. */
export const ownerShareOf = (slots: number): number => Math.max(1, Math.floor(slots / 4));

/**
 * Attempts the slow lane (endpoints whose attempts keep failing, whoever
 * owns them) may have in flight: a quarter of the pool, at least one. The
 * rest always serve the other endpoints, however many accounts the failing
 * ones belong to.
 */
export const slowLaneShareOf = (slots: number): number => Math.max(1, Math.floor(slots / 4));

/**
 * Slots of the pool kept for owners with nothing in flight: a quarter, at
 * least one. However many accounts keep attempts hanging (an endpoint is
 * slow only after failures, and a new one has none), an owner whose first
 * delivery comes finds a slot at once.
 */
export const reserveOf = (slots: number): number => Math.max(1, Math.floor(slots / 4));

/**
 * Which endpoint's delivery starts next when a slot of the pool frees
 * (docs/events-and-webhooks.md, "Delivery"):
 * 1. an endpoint with an attempt in flight is never picked (one at a time);
 * 2. a slow-lane endpoint is skipped while the slow lane has its share of
 *    the pool (`slowLaneShareOf`) in flight;
 * 3. an owner already at its share of the pool (`ownerShareOf`) is skipped,
 *    and so is an owner with any attempt in flight while the pool's
 *    reserve (`reserveOf`) is all that is free: the reserve serves owners
 *    with nothing in flight;
 * 4. of the others, the owner with the fewest attempts in flight goes first,
 *    ties to the owner whose last start is the oldest (never started first):
 *    round-robin across owners, whatever their number of endpoints;
 * 5. within that owner, its endpoint started least recently (round-robin
 *    across its endpoints), ties to the one waiting longest.
 */
export class FairQueue {
  /** Endpoints that may have a delivery due, longest waiting first. */
  private readonly candidates = new Map<string, DueEndpoint>();
  private readonly ownerLoad = new Map<string, number>();
  private readonly ownerTurn = new Map<string, number>();
  private readonly endpointTurn = new Map<string, number>();
  /** Endpoints with an attempt in flight, and whether it counts in the slow lane. */
  private readonly busy = new Map<string, boolean>();
  private slowLoad = 0;
  private inFlight = 0;
  private turns = 0;

  /** `busyOwnersCap`: attempts in flight past which only owners with none in flight start one. */
  constructor(
    private readonly ownerShare: number,
    private readonly slowShare = Number.POSITIVE_INFINITY,
    private readonly busyOwnersCap = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.candidates.size;
  }

  /** Adds endpoints that may have work (already known ones keep their place, their lane updated). */
  offer(endpoints: readonly DueEndpoint[]): void {
    // Setting a key a Map has keeps its place in the order.
    for (const endpoint of endpoints) this.candidates.set(endpoint.endpointId, endpoint);
  }

  /** The next endpoint to claim from, taken out of the candidates; null when none may start. */
  next(): DueEndpoint | null {
    let best: DueEndpoint | null = null;
    let bestRank: readonly number[] = [];
    for (const candidate of this.candidates.values()) {
      if (this.busy.has(candidate.endpointId)) continue;
      if (candidate.slow && this.slowLoad >= this.slowShare) continue;
      const owner = ownerKeyOf(candidate);
      const load = this.ownerLoad.get(owner) ?? 0;
      if (load >= this.ownerShare) continue;
      if (load > 0 && this.inFlight >= this.busyOwnersCap) continue;
      const rank = [
        load,
        this.ownerTurn.get(owner) ?? -1,
        this.endpointTurn.get(candidate.endpointId) ?? -1,
      ];
      if (best === null || isBefore(rank, bestRank)) {
        best = candidate;
        bestRank = rank;
      }
    }
    if (best) this.candidates.delete(best.endpointId);
    return best;
  }

  /** An attempt to `endpoint` started: it, its owner and its lane count as in flight. */
  started(endpoint: DueEndpoint): void {
    const owner = ownerKeyOf(endpoint);
    this.busy.set(endpoint.endpointId, endpoint.slow);
    if (endpoint.slow) this.slowLoad++;
    this.inFlight++;
    this.ownerLoad.set(owner, (this.ownerLoad.get(owner) ?? 0) + 1);
    this.turns++;
    this.ownerTurn.set(owner, this.turns);
    this.endpointTurn.set(endpoint.endpointId, this.turns);
  }

  /**
   * The attempt ended; the endpoint goes to the back as a candidate (its
   * next delivery may be due), in the lane its outcome put it in.
   */
  finished(endpoint: DueEndpoint): void {
    const owner = ownerKeyOf(endpoint);
    if (this.busy.get(endpoint.endpointId)) this.slowLoad--;
    if (this.busy.delete(endpoint.endpointId)) this.inFlight--;
    this.ownerLoad.set(owner, (this.ownerLoad.get(owner) ?? 1) - 1);
    this.candidates.delete(endpoint.endpointId);
    this.candidates.set(endpoint.endpointId, endpoint);
  }
}

/** Lexicographic order of two ranks; equal ranks keep the earlier candidate. */
function isBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}
