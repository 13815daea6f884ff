import { Elysia } from 'elysia';
import { BackupList, BackupParams, JobRunResult } from '@/api/admin/schemas';
import type { ApiDeps } from '@/api/deps';
import { withLocation } from '@/api/docs/headers';
import { problems } from '@/api/listings/schemas';
import { problemResponses } from '@/api/raw-responses';
import { auditContextOf } from '@/api/request/audit';
import { type BackupEntry as Entry, findBackup, listBackups, parseBackupName } from '@/backups';
import { fail, isDomainError } from '@/kernel/errors';

const security = [{ bearer: [] }];
const tags = ['Admin'];
const JOB = 'database-backup';

const toEntry = ({ name, size, createdAt }: Entry) => ({
  name,
  size,
  createdAt: createdAt.toISOString(),
});

/** The backups of BACKUP_DIR (employee only): list, take one now, download one. */
export const backupRoutes = ({
  auth,
  writes,
  jobs,
  config,
  stores: { audit: auditLog },
  clock,
}: ApiDeps) =>
  new Elysia({ name: 'admin-backups' })
    .use(auth)
    .use(writes)
    .get('/backups', () => ({ backups: listBackups(config.backups.dir).map(toEntry) }), {
      auth: 'employee',
      response: { 200: BackupList, ...problems(401, 403) },
      detail: {
        operationId: 'listBackups',
        summary: 'Backups in BACKUP_DIR, newest first',
        tags,
        security,
      },
    })
    .post(
      '/backups',
      async ({ caller, request, set }) => {
        if (!jobs) throw fail('service.unavailable');
        const run = await jobs.runNow(JOB).catch((error: unknown) => {
          if (isDomainError(error, 'job.running')) {
            throw fail('job.running', { detail: 'A backup is already running' });
          }
          throw error;
        });
        if (run.outcome === 'failed') {
          throw fail('backup.failed', {
            detail: `The backup failed: ${String(run.details.error)}`,
          });
        }
        const name = typeof run.details.name === 'string' ? run.details.name : null;
        if (name !== null) set.headers.location = `/admin/backups/${name}`;
        const audit = auditContextOf(request, config, clock(), caller.sub);
        await auditLog.record(audit, { action: 'backup.created', target: name });
        set.status = 201;
        return { job: JOB, ...run };
      },
      {
        auth: 'employee',
        writes: 1,
        response: {
          201: withLocation(JobRunResult, 'The path of the new backup file'),
          ...problems(401, 403, 409, 500, 503),
        },
        detail: {
          operationId: 'createBackup',
          summary: 'Take a backup now; answers its run record once the file is complete',
          description:
            'The same run as the scheduled database-backup job (recorded in GET /admin/jobs), then pruning beyond BACKUP_KEEP. 409 while a backup runs; 500 with the reason when it fails.',
          tags,
          security,
        },
      },
    )
    .get(
      '/backups/:name',
      ({ params: { name } }) => {
        if (!parseBackupName(name)) {
          throw fail('backup.name_invalid', {
            detail: 'A backup name looks like backup-20261122T030000000Z.db.gz',
          });
        }
        const entry = findBackup(config.backups.dir, name);
        if (!entry) throw fail('backup.not_found', { detail: `Backup "${name}" was not found` });
        return new Response(Bun.file(entry.path), {
          headers: {
            'content-type': 'application/gzip',
            'content-disposition': `attachment; filename="${entry.name}"`,
            'content-length': String(entry.size),
            'cache-control': 'no-store',
          },
        });
      },
      {
        auth: 'employee',
        params: BackupParams,
        // The file is a raw Response (no response schema to check it against): the
        // statuses are documented by hand.
        detail: {
          operationId: 'downloadBackup',
          summary: 'Download a backup (application/gzip: the SQLite file, gzip-compressed)',
          tags,
          security,
          responses: {
            200: {
              description: 'The backup file',
              content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
            },
            ...problemResponses(400, 401, 403, 404),
          },
        },
      },
    );
