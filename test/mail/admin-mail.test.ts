import { afterAll, describe, expect, test } from 'bun:test';
import { queueMail } from '@/mail/operations';
import { OutboxView } from '@/mail/schemas';
import * as mailDelivery from '@/workers/mail-delivery';
import { expectAuthGuards } from '../support/auth-guards';
import { createTestApp, manualClock } from '../support/harness';
import { startSmtpServer } from '../support/smtp';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const refusing = await startSmtpServer({ refuseMessages: true });
afterAll(() => refusing.stop());

describe('GET /admin/mail: happy', () => {
  test('employees see what waits, what failed and the newest messages, never their bodies', async () => {
    const app = createTestApp({ clock: manualClock(START), env: refusing.env() });
    const queue = (to: string, link: string) =>
      queueMail(app.deps.stores.mail, app.deps.clock, {
        to,
        template: 'test',
        language: 'es',
        data: { service: link },
      });
    await queue('first@example.com', 'https://x.test/secret-1');
    await mailDelivery.run(app.deps);
    app.clock.advance(1000);
    await queue('second@example.com', 'https://x.test/secret-2');
    const res = await app.request('GET', '/admin/mail', {
      token: await app.tokenFor('ops', 'employee'),
    });
    expect(res.status).toBe(200);
    expect(OutboxView.parse(res.body)).toEqual({
      pending: 1,
      failed: 1,
      messages: [
        {
          id: 2,
          recipient: 'second@example.com',
          template: 'test',
          language: 'es',
          subject: 'Mensaje de prueba de https://x.test/secret-2',
          status: 'pending',
          attempts: 0,
          nextAttemptAt: new Date(START + 1000).toISOString(),
          lastResponse: null,
          createdAt: new Date(START + 1000).toISOString(),
          finishedAt: null,
        },
        {
          id: 1,
          recipient: 'first@example.com',
          template: 'test',
          language: 'es',
          subject: 'Mensaje de prueba de https://x.test/secret-1',
          status: 'failed',
          attempts: 1,
          nextAttemptAt: null,
          lastResponse: expect.stringMatching(/^550 /),
          createdAt: new Date(START).toISOString(),
          finishedAt: new Date(START).toISOString(),
        },
      ],
    });
    // The bodies are not in the answer (the subject aside, which the template puts there).
    expect(res.text).not.toContain('Este es un mensaje');
  });
});

describe('GET /admin/mail: auth', () => {
  test('a customer → 403, no token → 401', async () => {
    await expectAuthGuards(createTestApp(), 'employee', ['GET /admin/mail']);
  });
});
