import { Elysia } from 'elysia';
import type { z } from 'zod';
import type { ApiDeps } from '@/api/deps';
import { fail } from '@/kernel/errors';
import { whenReady } from '@/kernel/maybe-promise';
import type { ReplicationStatus } from '@/replication';
import { instancesSeen } from '@/usage/figures';
import { MINUTE_MS } from '@/usage/store';
import { Problem } from '../problem';
import { problems } from '../responses';
import { Health, type ReplicationHealth, ServiceStatus } from './schemas';

const startedAt = performance.now();
/** How far back GET /admin/status looks for instances that wrote figures. */
const SEEN_MINUTES = 15;

const isoOrNull = (at: number | undefined) =>
  at === undefined ? null : new Date(at).toISOString();
/** The replication's state as /health and the console show it: instants in RFC 3339, whole seconds. */
export const replicationHealthOf = (
  status: ReplicationStatus,
): z.infer<typeof ReplicationHealth> => ({
  ...status,
  lastSyncAt: status.lastSyncAt === null ? null : new Date(status.lastSyncAt).toISOString(),
  lastSyncAgeSeconds: Math.round(status.lastSyncAgeSeconds),
});

type Backend = z.infer<typeof ServiceStatus>['backends'][number];

/** Whether each backend answers now: the database, and Redis when REDIS_URL is set. */
async function backendStates({
  stores: { health: databaseHealth },
  redis,
}: ApiDeps): Promise<Backend[]> {
  const state = (up: boolean): Backend['state'] => (up ? 'ok' : 'down');
  const backends: Backend[] = [
    { name: databaseHealth.name, state: state(await databaseHealth.isHealthy()) },
  ];
  if (redis) backends.push({ name: 'redis', state: state(await redis.ping()) });
  return backends;
}

/**
 * Liveness and readiness: 200 once every backend answers, 503 naming those
 * that do not; and for employees, the service's state beside it.
 */
export const healthRoutes = (deps: ApiDeps) =>
  new Elysia({ name: 'health' })
    .use(deps.auth)
    .get(
      '/health',
      async () => {
        const states = await backendStates(deps);
        const down = states.filter(({ state }) => state === 'down').map(({ name }) => name);
        if (down.length > 0) {
          throw fail('service.unavailable', { detail: `Backend unavailable: ${down.join(', ')}` });
        }
        const disk = deps.disk.status();
        if (disk.state === 'refusing') {
          const reason = disk.lastRefusal?.reason ?? 'full';
          throw fail('service.unavailable', {
            detail: `Writes refused: the database's storage is ${reason === 'full' ? 'full' : 'read-only'}; free space or make it writable (docs/operations.md)`,
          });
        }
        const backends: z.infer<typeof Health>['backends'] = {};
        for (const { name } of states) backends[name] = 'ok';
        const replication = deps.replication?.status();
        const degraded = replication?.state === 'degraded' || disk.state === 'low';
        return {
          status: degraded ? ('degraded' as const) : ('ok' as const),
          database: 'ok' as const,
          backends,
          uptimeSeconds: Math.round((performance.now() - startedAt) / 1000),
          ...(replication && {
            replication: {
              ...replication,
              lastSyncAt:
                replication.lastSyncAt === null
                  ? null
                  : new Date(replication.lastSyncAt).toISOString(),
              lastSyncAgeSeconds: Math.round(replication.lastSyncAgeSeconds),
            },
          }),
          disk: {
            state: disk.state,
            thresholdBytes: disk.thresholdBytes,
            volumes: disk.volumes.map(({ name, freeBytes, totalBytes, writable }) => ({
              ...{ name, freeBytes, totalBytes, writable },
            })),
            refusedWrites: disk.refusedWrites,
            lastRefusalAt: isoOrNull(disk.lastRefusal?.at),
          },
          ...(replication && { replication: replicationHealthOf(replication) }),
        };
      },
      {
        response: { 200: Health, 503: Problem },
        detail: {
          operationId: 'getHealth',
          summary: 'Liveness and readiness',
          tags: ['Operations'],
        },
      },
    )
    .get(
      '/admin/status',
      async () => {
        const {
          usage,
          clock,
          instance,
          instances,
          stores: { health: databaseHealth },
        } = deps;
        const [backends, size] = await Promise.all([backendStates(deps), databaseHealth.size()]);
        const seen = await whenReady(usage.flush(), () =>
          instancesSeen(usage.store, SEEN_MINUTES * MINUTE_MS, clock()),
        );
        const disk = deps.disk.status();
        return {
          backends,
          disk: {
            ...disk,
            lastRefusal: disk.lastRefusal && {
              ...disk.lastRefusal,
              at: new Date(disk.lastRefusal.at).toISOString(),
            },
            lastSkip: disk.lastSkip && {
              ...disk.lastSkip,
              at: new Date(disk.lastSkip.at).toISOString(),
            },
          },
          database: { sizeBytes: size?.database ?? null, walSizeBytes: size?.wal ?? null },
          instance,
          instances: { live: instances?.count ?? 1, seen, seenMinutes: SEEN_MINUTES },
        };
      },
      {
        auth: 'employee',
        response: { 200: ServiceStatus, ...problems(401, 403) },
        detail: {
          operationId: 'getServiceStatus',
          summary: 'Backends, database size and instances (employees)',
          description:
            'Each backend answering or not, the database and SQLite WAL size in bytes, the live instance count (Redis heartbeats in scale-out mode) and the instances that wrote usage figures in the last 15 minutes.',
          tags: ['Admin'],
        },
      },
    );
