import { TokenService } from '@/auth/tokens';
import { CITY_IDS } from '@/listings/cities';
import { PROPERTY_TYPES } from '@/listings/properties/schemas';

export { freePort, startServer } from '../accounts/server-process';

/** A fixed signing secret: the tests mint tokens the spawned server accepts. */
export const JWT_SECRET = 'slow-suite-secret-0123456789-abcdefghijklmnop';

export const employeeToken = (sub = 'slow-employee') =>
  new TokenService(JWT_SECRET).issue(sub, 'employee', 3600);

/** Whether anything accepts a connection on 127.0.0.1:`port`. */
export const accepting = (port: number) =>
  Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } }).then(
    (socket) => {
      socket.end();
      return true;
    },
    () => false,
  );

/** A deterministic pseudo-random generator (mulberry32), so a failing run can be replayed. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)]!;
  return { next, int, pick };
}
export type Random = ReturnType<typeof seeded>;

/** A valid POST /listings/properties body; `marker` makes addressLine1 unique. */
export function randomProperty(random: Random, marker: string) {
  const totalUnits = random.int(1, 30);
  return {
    type: random.pick(PROPERTY_TYPES),
    ownerId: `owner-${random.int(1, 20)}`,
    totalUnits,
    rentableUnits: random.int(1, totalUnits),
    isVisitable: random.next() < 0.5,
    location: {
      addressLine1: marker,
      city: 'Somewhere',
      cityId: random.pick(CITY_IDS),
      postalCode: String(random.int(10000, 99999)),
      latitude: random.int(-9000, 9000) / 100,
      longitude: random.int(-18000, 18000) / 100,
    },
  };
}

/** Runs `work(i)` for i = 0..count-1 on `concurrency` async workers; stops when `stop()` says so. */
export async function pool(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < count && !stop()) await work(nextIndex++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Runs a command to its end: its exit code and everything it printed. */
export async function runCommand(
  command: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(command, {
    cwd,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ...env },
  });
  const [code, out, err] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, output: `${out}${err}` };
}
