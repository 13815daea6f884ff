import { Elysia } from 'elysia';
import { ReplicationOverview } from '@/api/admin/schemas';
import type { ApiDeps } from '@/api/deps';
import { replicationHealthOf } from '@/api/health/routes';
import { problems } from '@/api/listings/schemas';
import { shownReplicaUrl } from '@/replication';

/** Where the docs say how replication is turned on. */
export const REPLICATION_DOCS = 'docs/operations.md, Replication with Litestream';

/**
 * The replica for the console's Backups page (employee only): its state
 * from the status poller and its restore points from Litestream, listed off
 * this request when a listing is at hand (src/replication/listing.ts).
 */
export const replicationRoutes = ({ auth, config, replication, replicaListing }: ApiDeps) =>
  new Elysia({ name: 'admin-replication' }).use(auth).get(
    '/replication',
    async () => {
      if (!config.replica || !replicaListing) {
        return { enabled: false as const, docs: REPLICATION_DOCS };
      }
      const history = await replicaListing.read();
      const listedAt = new Date(history.listedAt).toISOString();
      const status = replication?.status();
      return {
        enabled: true as const,
        replica: shownReplicaUrl(config.replica.url),
        status: status ? replicationHealthOf(status) : null,
        history:
          'generations' in history
            ? { listed: true as const, listedAt, generations: history.generations }
            : { listed: false as const, listedAt, problem: history.problem },
        restoreCommand: `${config.commandPrefix} restore -- --from-replica --timestamp <T>`,
      };
    },
    {
      auth: 'employee',
      response: { 200: ReplicationOverview, ...problems(401, 403) },
      detail: {
        operationId: 'getReplication',
        summary:
          'The replica: its state, and its generations and restore points as Litestream lists them',
        description:
          'The listing is kept for 15 s; an older one is answered while Litestream lists again. `enabled: false` when REPLICA_URL is unset.',
        tags: ['Admin'],
      },
    },
  );
