import { Elysia } from 'elysia';
import type { ApiDeps } from '@/api/deps';
import { problems } from '@/api/responses';
import { OUTBOX_PAGE, OutboxView, outboxViewOf } from '@/mail/schemas';

/** GET /admin/mail: the mail outbox for employees — waiting, failed, and the newest messages. */
export const mailOutboxRoutes = ({ auth, stores: { mail } }: ApiDeps) =>
  new Elysia({ name: 'admin-mail' })
    .use(auth)
    .get('/mail', async () => outboxViewOf(await mail.counts(), await mail.recent(OUTBOX_PAGE)), {
      auth: 'employee',
      response: { 200: OutboxView, ...problems(401, 403) },
      detail: {
        operationId: 'getMailOutbox',
        summary: 'The mail outbox: messages waiting, failed, and the newest 50 (employees)',
        description:
          "Each message with its recipient, template, status, attempts, next attempt and the SMTP server's last answer; never its text (a link may be in it). Sent and failed messages are kept 30 days.",
        tags: ['Admin'],
        security: [{ bearer: [] }],
      },
    });
