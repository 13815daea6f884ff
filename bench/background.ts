/**
 * The writes and customer traffic that run beside every read measurement of
 * `bun run bench` (the default `--mix on`): a steady 20 creates/s and 10 unit
 * edits/s with an employee token, and 50 customer-API calls/s spread over 50
 * customers' tokens (one call a second each, inside their 120-a-minute limit;
 * each call is counted by the limiter, whose flushes write `window_usage`).
 * Runs as its own process pinned to the load generator's CPU, stops on
 * SIGTERM and prints what it achieved as one JSON line.
 *
 *   bun bench/background.ts CONFIG.json
 */
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';

export interface BackgroundConfig {
  base: string;
  employeeToken: string;
  customerTokens: string[];
  /** Live units of live properties the edits rotate over. */
  units: [propertyId: string, unitId: string][];
  createsPerSecond: number;
  unitEditsPerSecond: number;
  customerCallsPerSecond: number;
  /** The POST /listings/properties body the creates start from. */
  createBody: Record<string, unknown>;
}

export interface StreamFigures {
  /** Answers with a 2xx status per second. */
  perSecond: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
}

export interface BackgroundFigures {
  seconds: number;
  creates: StreamFigures;
  unitEdits: StreamFigures;
  customerCalls: StreamFigures;
}

const FEATURE_CHOICES = [
  { applicability: 'unit', category: 'amenities', name: 'airConditioning', value: 'true' },
  { applicability: 'unit', category: 'amenities', name: 'balcony', value: 'true' },
  { applicability: 'unit', category: 'furniture', name: 'furnished', value: 'true' },
  { applicability: 'building', category: 'amenities', name: 'pool', value: 'true' },
];

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Sends `rate` requests a second on a fixed schedule (not waiting for answers), counting statuses. */
function paced(rate: number, send: (n: number) => Promise<Response>) {
  const counts = { ok: 0, failed: 0, statuses: {} as Record<string, number> };
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due) {
      sent++;
      send(sent).then(
        async (response) => {
          await response.arrayBuffer();
          counts.statuses[response.status] = (counts.statuses[response.status] ?? 0) + 1;
          if (response.ok) counts.ok++;
          else counts.failed++;
        },
        () => {
          counts.statuses.error = (counts.statuses.error ?? 0) + 1;
          counts.failed++;
        },
      );
    }
  }, 5);
  return {
    stop(seconds: number): StreamFigures {
      clearInterval(timer);
      return { perSecond: counts.ok / seconds, ...counts };
    },
  };
}

async function main(config: BackgroundConfig) {
  const employee = {
    authorization: `Bearer ${config.employeeToken}`,
    'content-type': 'application/json',
  };
  const started = performance.now();
  const creates = paced(config.createsPerSecond, () =>
    fetch(`${config.base}/listings/properties`, {
      method: 'POST',
      headers: employee,
      body: JSON.stringify({
        ...config.createBody,
        type: pick(PROPERTY_TYPES),
        location: { ...(config.createBody.location as object), cityId: pick(CITY_IDS) },
      }),
    }),
  );
  const unitEdits = paced(config.unitEditsPerSecond, () => {
    const [propertyId, unitId] = pick(config.units);
    const features = FEATURE_CHOICES.filter(() => Math.random() < 0.3);
    return fetch(`${config.base}/listings/properties/${propertyId}/units/${unitId}`, {
      method: 'PATCH',
      headers: employee,
      body: JSON.stringify({ features }),
    });
  });
  const customerCalls = paced(config.customerCallsPerSecond, (n) => {
    const token = config.customerTokens[n % config.customerTokens.length]!;
    const path =
      n % 2 === 0
        ? '/api/v1/tokens/limits'
        : '/api/v1/c/transactions?pay_date_from=2025-04-01&pay_date_to=2025-12-31';
    return fetch(`${config.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  });
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  const seconds = (performance.now() - started) / 1000;
  // Answers still on their way are not counted: the rates are of what completed.
  const figures: BackgroundFigures = {
    seconds,
    creates: creates.stop(seconds),
    unitEdits: unitEdits.stop(seconds),
    customerCalls: customerCalls.stop(seconds),
  };
  console.log(JSON.stringify(figures));
  process.exit(0);
}

if (import.meta.main) {
  const file = Bun.argv[2];
  if (!file) throw new Error('usage: bun bench/background.ts CONFIG.json');
  await main((await Bun.file(file).json()) as BackgroundConfig);
}
