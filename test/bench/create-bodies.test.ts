import { describe, expect, test } from 'bun:test';
import { bodyPrefixes } from '../../bench/reference-creates';

/** The owner ids a set of create bodies (with their unit counts appended) name. */
const ownersOf = (prefixes: string[]) =>
  new Set(
    prefixes.map(
      (prefix) =>
        (JSON.parse(`${prefix}"totalUnits":1,"rentableUnits":1}`) as { ownerId: string }).ownerId,
    ),
  );

describe('the create bodies the benchmarks send', () => {
  test('spread over one owner per 200 properties by default, or over the owners asked for', () => {
    expect(ownersOf(bodyPrefixes(20_000, 300)).size).toBe(100);
    expect(ownersOf(bodyPrefixes(200_000, 1000)).size).toBe(1000);
    expect(ownersOf(bodyPrefixes(20_000, 300, 1)).size).toBe(1);
  });
});
