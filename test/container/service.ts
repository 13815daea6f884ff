import { expect } from 'bun:test';
import { freePort } from '../accounts/server-process';
import { ok, podman, secondsSince, untilHealthy } from './podman';

/**
 * The service's image as the container suite's files run it: the image
 * image.container.ts builds, the containers and volumes a file made (removed
 * at its end), the figures it measured, and the API calls they share.
 */
export const image = 'localhost/listings-service:latest';
export const suffix = String(process.pid);

export interface Started {
  name: string;
  base: string;
  secondsToHealthy: number;
}

/** What one test file started and measured; `removeAll` in its afterAll. */
export class ContainerRun {
  readonly figures: Record<string, string | number> = {};
  readonly containers: string[] = [];
  readonly volumes: string[] = [];

  /** `podman create` then `podman start` with the port on 127.0.0.1; waits for /health 200. */
  async start(label: string, options: string[] = [], from = image): Promise<Started> {
    const name = `listings-ct-${label}-${suffix}`;
    const port = freePort();
    this.containers.push(name);
    await ok([
      ...['podman', 'create', '--name', name, '-p', `127.0.0.1:${port}:3000`],
      ...options,
      from,
    ]);
    const started = performance.now();
    await ok(['podman', 'start', name]);
    const base = `http://127.0.0.1:${port}`;
    const seconds = await untilHealthy(base, name);
    if (seconds === undefined) {
      const logs = await podman(['logs', name]);
      expect({ name, healthy: false, logs: (logs.stdout + logs.stderr).slice(-3000) }).toEqual({
        name,
        healthy: true,
        logs: '',
      });
    }
    this.figures[`start to healthy, ${label} (s)`] = secondsSince(started);
    return { name, base, secondsToHealthy: secondsSince(started) };
  }

  /** A named volume, removed with the rest. */
  async volume(name: string) {
    this.volumes.push(name);
    await ok(['podman', 'volume', 'create', name]);
    return name;
  }

  async removeAll() {
    for (const name of this.containers) await podman(['rm', '-f', '-t', '0', name]);
    for (const name of this.volumes) await podman(['volume', 'rm', '-f', name]);
    console.log(`container figures: ${JSON.stringify(this.figures, null, 1)}`);
  }
}

/** The exit code a stopped container recorded. */
export const exitCodeOf = async (name: string) =>
  (await ok(['podman', 'inspect', '--format', '{{.State.ExitCode}}', name])).trim();

/**
 * The exit code a stopped container recorded, checked against `expected`;
 * when it is another, the failure shows the container's last log lines.
 */
export async function expectExitCode(name: string, expected: string[]) {
  const code = await exitCodeOf(name);
  if (!expected.includes(code)) {
    const logs = await podman(['logs', name]);
    expect({ name, code, logs: (logs.stdout + logs.stderr).slice(-4000) }).toEqual({
      name,
      code: expected[0] ?? '0',
      logs: '',
    });
  }
  return code;
}

/** Stops with SIGTERM (podman's default stop signal for this image) and removes it; its exit code. */
export async function stopAndRemove(name: string) {
  await ok(['podman', 'stop', '-t', '60', name]);
  const code = await exitCodeOf(name);
  await ok(['podman', 'rm', name]);
  return code;
}

export const exec = (name: string, args: string[], input?: string) =>
  podman(['exec', ...(input === undefined ? [] : ['-i']), name, ...args], { input });

/** A bearer token minted by the image's `token` command for a subject without an account. */
export async function mintToken(name: string, sub: string) {
  const minted = await exec(name, [
    ...['bun', 'run', '--silent', 'token', '--', '--sub', sub],
    ...['--aud', 'employee', '--ttl', '1h'],
  ]);
  expect([minted.code, minted.stderr]).toEqual([0, '']);
  return minted.stdout.trim();
}

const property = (marker: string) => ({
  type: 'apartment',
  ownerId: 'owner-1',
  totalUnits: 2,
  location: {
    addressLine1: marker,
    city: 'Madrid',
    cityId: 'madrid',
    postalCode: '28013',
    latitude: 40.4168,
    longitude: -3.7038,
  },
});

/** Creates a property; its id. */
export async function createProperty(base: string, token: string, marker: string) {
  const res = await fetch(`${base}/listings/properties`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(property(marker)),
  });
  expect(res.status).toBe(201);
  return res.headers.get('location')?.split('/').at(-1) ?? '';
}

/** The status of an employee's read of a property (an unpublished one is not public). */
export const readStatus = async (base: string, token: string, id: string) =>
  (
    await fetch(`${base}/listings/properties/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).status;

export async function propertyTotal(base: string, token: string) {
  const res = await fetch(`${base}/listings/properties?itemsPerPage=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { total: number }).total;
}
