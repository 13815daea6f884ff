import { describe, expect, test } from 'bun:test';
import { ResponseMemo } from '@/db/response-memo';
import { createTestApp, manualClock } from '../support/harness';

function memo(options: Partial<ConstructorParameters<typeof ResponseMemo>[0]> = {}) {
  const ctx = createTestApp();
  const clock = manualClock();
  return { ctx, memo: new ResponseMemo({ db: ctx.db, clock, ...options }) };
}

describe('ResponseMemo', () => {
  test('computes once until a write, then again', () => {
    const { ctx, memo: answers } = memo();
    let computed = 0;
    const body = () => answers.answer('k', () => `v${++computed}`);
    expect([body(), body(), body()]).toEqual(['v1', 'v1', 'v1']);
    ctx.db.$client.run("INSERT INTO plans (name, slug) VALUES ('x', 'x-plan')");
    expect(body()).toBe('v2');
  });

  test('a compute that throws stores nothing', () => {
    const { memo: answers } = memo();
    expect(() =>
      answers.answer('k', () => {
        throw new Error('invalid');
      }),
    ).toThrow('invalid');
    expect(answers.size).toBe(0);
    expect(answers.answer('k', () => 'ok')).toBe('ok');
  });

  test('bounded by count and by size; the oldest answer makes room', () => {
    const { memo: answers } = memo({ maxEntries: 3, maxChars: 10 });
    for (const key of ['a', 'b', 'c', 'd']) answers.answer(key, () => key);
    expect(answers.size).toBe(3);
    answers.answer('big', () => '12345678'); // 'b' makes room: 'c', 'd', 'big' use all 10
    expect(answers.size).toBe(3);
    expect(answers.answer('d', () => 'recomputed')).toBe('d');
    expect(answers.answer('a', () => 'recomputed')).toBe('recomputed');
    expect(answers.answer('huge', () => 'x'.repeat(11))).toHaveLength(11);
    expect(answers.answer('huge', () => 'again')).toBe('again');
  });

  test('off: every answer is computed', () => {
    const { memo: answers } = memo({ enabled: false });
    let computed = 0;
    answers.answer('k', () => `v${++computed}`);
    expect(answers.answer('k', () => `v${++computed}`)).toBe('v2');
  });
});
