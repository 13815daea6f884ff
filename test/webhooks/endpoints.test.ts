import { describe, expect, test } from 'bun:test';
import { EVENT_TYPES } from '@/events/schemas';
import { Webhook, WebhookList, WebhookWithSecret } from '@/webhooks/schemas';
import { vetTarget } from '@/webhooks/url-policy';
import { countRows, listingsContext } from '../listings/support';
import { badRequest, problemOf } from '../support/harness';
import { expectHiddenFrom } from './support';

const ctx = await listingsContext();
const { employee, customer, otherCustomer } = ctx;
const URL_OK = 'https://93.184.215.14/hooks';

const create = (body: unknown, token = customer) =>
  ctx.request('POST', '/listings/webhooks', { body, token });

/** The 422 of a refused URL. */
const refused = (reason: string) => ({
  ...problemOf(422),
  validationMessages: {
    url: { notAllowed: `This URL cannot receive webhooks: ${reason}` },
  },
});

describe('webhook endpoints', () => {
  describe('happy', () => {
    test('create (201, Location, the secret once), read, list, change, rotate, delete', async () => {
      const res = await create({ url: URL_OK, types: ['unit.created'], description: 'Portal' });
      expect(res.status).toBe(201);
      const made = WebhookWithSecret.parse(res.body);
      expect(res.headers.get('location')).toBe(`/listings/webhooks/${made.id}`);
      expect(made).toMatchObject({
        url: URL_OK,
        types: ['unit.created'],
        description: 'Portal',
        enabled: true,
        ownerId: 'owner-1',
        disabledReason: null,
      });
      expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const path = `/listings/webhooks/${made.id}`;
      const read = await ctx.request('GET', path, { token: customer });
      expect(read.status).toBe(200);
      const { secret: _, ...shown } = made;
      expect(Webhook.strict().parse(read.body)).toEqual(shown);

      const patched = await ctx.request('PATCH', path, {
        body: { types: [], description: null, enabled: false },
        token: customer,
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ types: [], description: null, enabled: false });

      const rotated = await ctx.request('POST', `${path}/rotate-secret`, { token: customer });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({
        secret: expect.stringMatching(/^whsec_/),
        previousSecretExpiresAt: new Date(ctx.clock() + 24 * 3600 * 1000).toISOString(),
      });

      const list = await ctx.request('GET', '/listings/webhooks', { token: customer });
      expect(WebhookList.parse(list.body).data.map((hook) => hook.id)).toContain(made.id);
      const deliveries = await ctx.request('GET', `${path}/deliveries`, { token: customer });
      expect(deliveries.body).toEqual({ data: [] });

      expect((await ctx.request('DELETE', path, { token: customer })).status).toBe(204);
      expect((await ctx.request('GET', path, { token: customer })).status).toBe(404);
    });

    test("an employee's endpoint has no owner (every event); the employee sees and manages every endpoint", async () => {
      const mine = WebhookWithSecret.parse((await create({ url: URL_OK })).body);
      const staff = await create({ url: URL_OK }, employee);
      expect(staff.status).toBe(201);
      expect(staff.body).toMatchObject({ ownerId: null, types: [] });
      const all = WebhookList.parse(
        (await ctx.request('GET', '/listings/webhooks', { token: employee })).body,
      );
      expect(all.data.map((hook) => hook.id)).toContain(mine.id);
      const other = WebhookList.parse(
        (await ctx.request('GET', '/listings/webhooks', { token: otherCustomer })).body,
      );
      expect(other.data.map((hook) => hook.id)).not.toContain(mine.id);
    });
  });

  describe('error', () => {
    test('422 for a URL that may not receive webhooks, without the flags; nothing stored', async () => {
      const before = await countRows(ctx, 'webhook_endpoints');
      const cases: [string, string][] = [
        ['http://93.184.215.14/hooks', 'must be https'],
        ['ftp://93.184.215.14/hooks', 'not an http(s) URL'],
        ['not a url', 'not an absolute URL'],
        ['https://user:pass@93.184.215.14/', 'must not carry credentials'],
        ...[
          'https://127.0.0.1/hooks',
          'https://10.0.0.1/',
          'https://169.254.169.254/latest/meta-data/',
          'https://[::1]/hooks',
          'https://[::ffff:a00:1]/',
          'https://192.168.1.10:8443/',
          // IPv6 forms that embed or reach an IPv4 or local address.
          'https://[::127.0.0.1]/',
          'https://[64:ff9b:1::7f00:1]/',
          'https://[2002:7f00:1::]/',
          'https://[::ffff:0:7f00:1]/',
          'https://[100::1]/',
          'https://[fec0::1]/',
          // Spellings of 127.0.0.1 the URL parser reads as it.
          'https://2130706433/',
          'https://0x7f.1/',
          'https://localhost:8443/hooks',
        ].map((url): [string, string] => [url, 'address not allowed']),
      ];
      for (const [url, reason] of cases) {
        const res = await create({ url });
        expect([url, res.status]).toEqual([url, 422]);
        expect(res.body).toEqual(refused(reason));
      }
      expect(await countRows(ctx, 'webhook_endpoints')).toBe(before);
    });

    test('a name is looked up once and every address vetted: one refused address refuses it, as does no answer; the reason never names the address', async () => {
      const policy = { allowHttp: false, allowPrivate: false };
      const lookups: string[] = [];
      const resolveTo = (addresses: string[]) => async (host: string) => {
        lookups.push(host);
        return addresses;
      };
      const mixed = await vetTarget('https://internal.example/', policy, {
        resolve: resolveTo(['93.184.215.14', '10.0.0.1']),
      });
      expect(mixed).toEqual({
        ok: false,
        reason: 'address not allowed',
        detail: 'host internal.example resolved to 10.0.0.1 (private use)',
      });
      expect(lookups).toEqual(['internal.example']);
      for (const address of ['169.254.169.254', '::1', '64:ff9b::a00:1']) {
        const vetting = await vetTarget('https://name.example/', policy, {
          resolve: resolveTo([address]),
        });
        expect([address, vetting.ok && vetting.target.address]).toEqual([address, false]);
      }
      const failing = async () => {
        throw new Error('ENOTFOUND');
      };
      for (const resolve of [failing, resolveTo([])]) {
        expect(await vetTarget('https://nowhere.example/', policy, { resolve })).toMatchObject({
          ok: false,
          reason: 'address not allowed',
        });
      }
      // A lookup that outlasts the attempt's time is a refusal too, not a wait.
      const hanging = () => new Promise<string[]>(() => undefined);
      const timeout = new AbortController();
      const vetting = vetTarget('https://slow.example/', policy, {
        resolve: hanging,
        signal: timeout.signal,
      });
      timeout.abort(new DOMException('late', 'TimeoutError'));
      expect(await vetting).toMatchObject({ ok: false, reason: 'address not allowed' });
      expect(
        await vetTarget('https://public.example:8443/x', policy, {
          resolve: resolveTo(['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14']),
        }),
      ).toEqual({
        ok: true,
        target: {
          url: new URL('https://public.example:8443/x'),
          serverName: 'public.example',
          address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
        },
      });
      // The flags lift the address rule (local use and tests); the lookup stays.
      expect(
        await vetTarget(
          'http://hooks.test/',
          { allowHttp: true, allowPrivate: true },
          {
            resolve: resolveTo(['127.0.0.1']),
          },
        ),
      ).toMatchObject({ ok: true, target: { address: '127.0.0.1' } });
    });

    test('a PATCH to a refused URL or with a bad body is 422 and changes nothing', async () => {
      const made = WebhookWithSecret.parse((await create({ url: URL_OK })).body);
      const res = await ctx.request('PATCH', `/listings/webhooks/${made.id}`, {
        body: { url: 'https://[::1]/' },
        token: customer,
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual(refused('address not allowed'));
      for (const [body, validationMessages] of [
        [{ url: 7 }, { url: { invalidType: 'The input must be of type string' } }],
        [{ enabled: true, owner: 'x' }, { owner: { notAllowed: 'The field is not allowed' } }],
      ] as const) {
        const bad = await ctx.request('PATCH', `/listings/webhooks/${made.id}`, {
          body,
          token: customer,
        });
        expect(bad.status).toBe(422);
        expect(bad.body).toEqual({ ...problemOf(422), validationMessages });
      }
      const read = await ctx.request('GET', `/listings/webhooks/${made.id}`, { token: customer });
      expect(read.body).toMatchObject({ url: URL_OK, updatedAt: made.updatedAt });
    });

    test('422 for a body breaking a field rule, 400 for malformed JSON; nothing stored', async () => {
      const before = await countRows(ctx, 'webhook_endpoints');
      const cases: [unknown, Record<string, unknown>][] = [
        [{}, { url: { isEmpty: "Value is required and can't be empty" } }],
        [
          { url: URL_OK, types: ['property.exploded'] },
          {
            types: {
              0: {
                notInArray: `The input was not found in the haystack; allowed: ${EVENT_TYPES.join(', ')}`,
              },
            },
          },
        ],
        [{ url: URL_OK, extra: 1 }, { extra: { notAllowed: 'The field is not allowed' } }],
        [{ url: 5 }, { url: { invalidType: 'The input must be of type string' } }],
        [
          { url: URL_OK, description: 'x'.repeat(501) },
          { description: { stringLengthTooLong: 'The input is more than 500 characters long' } },
        ],
        [
          { url: URL_OK, enabled: 'yes' },
          { enabled: { invalidType: 'The input must be of type boolean' } },
        ],
      ];
      for (const [body, validationMessages] of cases) {
        const res = await create(body);
        expect([body, res.status]).toEqual([body, 422]);
        expect(res.body).toEqual({ ...problemOf(422), validationMessages });
      }
      const malformed = await ctx.request('POST', '/listings/webhooks', {
        raw: '{"url":',
        headers: { 'content-type': 'application/json' },
        token: customer,
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual(badRequest(['body', 'is not valid JSON']));
      expect(await countRows(ctx, 'webhook_endpoints')).toBe(before);
    });

    test('409 past 20 endpoints of a customer, nothing stored; employees have no limit', async () => {
      const app = await listingsContext();
      const token = await app.tokenFor('owner-many', 'customer');
      for (let i = 0; i < 20; i++) {
        const res = await app.request('POST', '/listings/webhooks', {
          body: { url: URL_OK },
          token,
        });
        expect(res.status).toBe(201);
      }
      const refused = await app.request('POST', '/listings/webhooks', {
        body: { url: URL_OK },
        token,
      });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(problemOf(409));
      expect(await countRows(app, 'webhook_endpoints')).toBe(20);
      for (let i = 0; i < 21; i++) {
        const res = await app.request('POST', '/listings/webhooks', {
          body: { url: URL_OK },
          token: app.employee,
        });
        expect(res.status).toBe(201);
      }
    });

    test('404 for an unknown endpoint or delivery, on every operation', async () => {
      const made = WebhookWithSecret.parse((await create({ url: URL_OK })).body);
      const paths: [string, string][] = [
        ['GET', '/listings/webhooks/nope'],
        ['PATCH', '/listings/webhooks/nope'],
        ['DELETE', '/listings/webhooks/nope'],
        ['POST', '/listings/webhooks/nope/rotate-secret'],
        ['GET', '/listings/webhooks/nope/deliveries'],
        ['POST', '/listings/webhooks/nope/deliveries/1/redeliver'],
        ['POST', `/listings/webhooks/${made.id}/deliveries/1/redeliver`],
      ];
      for (const [method, path] of paths) {
        const res = await ctx.request(method, path, {
          token: customer,
          ...(method === 'PATCH' ? { body: { enabled: true } } : {}),
        });
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(res.body).toEqual(problemOf(404));
      }
      const bad = await ctx.request(
        'POST',
        `/listings/webhooks/${made.id}/deliveries/x/redeliver`,
        {
          token: customer,
        },
      );
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(
        badRequest(['deliveryId', 'must be a delivery id: digits, not 0 (got "x")']),
      );
    });
  });

  describe('auth', () => {
    test("401 without a token; another customer's endpoint is 404 on every operation", async () => {
      const made = WebhookWithSecret.parse((await create({ url: URL_OK })).body);
      const anonymous = await ctx.request('GET', '/listings/webhooks');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(problemOf(401));
      expect(
        (await ctx.request('POST', '/listings/webhooks', { body: { url: URL_OK } })).status,
      ).toBe(401);
      const path = `/listings/webhooks/${made.id}`;
      await expectHiddenFrom(ctx, path, otherCustomer);
      expect((await ctx.request('GET', path, { token: customer })).body).toMatchObject({
        enabled: true,
      });
    });
  });
});
