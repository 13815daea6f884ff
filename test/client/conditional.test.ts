import { describe, expect, test } from 'bun:test';
import { Property } from '@/listings/properties/schemas';
import { ProblemError } from '../../client/src';
import { problemOf } from '../support/harness';
import { faultyProxy, propertyBody, serviceUnderTest } from './support';

const svc = await serviceUnderTest();
const { properties } = svc.employee.listings;

describe('conditional property reads', () => {
  test('the read answers the ETag; If-None-Match with it answers notModified until a write', async () => {
    const { id } = await properties.create(propertyBody('owner-etag'));
    const first = await properties.getIfChanged(id);
    if (first.notModified) throw new Error('a read without If-None-Match answered 304');
    expect(Property.parse(first.body)).toMatchObject({ id, ownerId: 'owner-etag' });
    expect(first.etag).toMatch(/^"[^"]+"$/);

    expect(await properties.getIfChanged(id, { ifNoneMatch: first.etag! })).toEqual({
      notModified: true,
      etag: first.etag,
    });

    await properties.convert(id, { type: 'studio' });
    const changed = await properties.getIfChanged(id, { ifNoneMatch: first.etag! });
    expect(changed).toMatchObject({ notModified: false, body: { id, type: 'studio' } });
    expect(changed.etag).not.toBe(first.etag);
  });

  test('If-None-Match goes on the wire only when given', async () => {
    const { id } = await properties.create(propertyBody('owner-etag-wire'));
    const sent: (string | null)[] = [];
    const proxy = faultyProxy(svc.baseUrl, (request) => {
      sent.push(request.headers.get('if-none-match'));
      return null;
    });
    const client = svc.clientWith({ baseUrl: proxy.baseUrl, token: svc.employeeToken });
    const { etag } = await client.listings.properties.getIfChanged(id);
    await client.listings.properties.getIfChanged(id, { ifNoneMatch: etag! });
    expect(sent).toEqual([null, etag]);
  });

  test('ifMatch on a write: applied with the current ETag, 412 with a stale one', async () => {
    const { id } = await properties.create(propertyBody('owner-if-match'));
    const { etag } = await properties.getIfChanged(id);
    await properties.convert(id, { type: 'studio' }, { ifMatch: etag! });
    const stale = await properties
      .convert(id, { type: 'apartment' }, { ifMatch: etag! })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ProblemError);
    expect((stale as ProblemError).body).toEqual(problemOf(412));
    expect((await properties.get(id)).type).toBe('studio');
  });
});
