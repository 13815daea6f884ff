import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SLOW = join(import.meta.dir, 'slow');

/** Lines of the suites that drive Playwright which hand a promise to `expect(…).resolves` or `.rejects`. */
function nestedWaits(): string[] {
  const found: string[] = [];
  for (const name of readdirSync(SLOW).filter((file) => file.endsWith('.ts'))) {
    const text = readFileSync(join(SLOW, name), 'utf8');
    if (!/from 'playwright(-core)?'/.test(text)) continue;
    text.split('\n').forEach((line, index) => {
      if (/\.(resolves|rejects)\b/.test(line)) found.push(`${name}:${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe('browser suites', () => {
  // Why the rule below: Bun's expect waits for a promise given to `.resolves`
  // in a nested event loop, and that loop runs the immediates queued next
  // before the rest of the batch it was called from. Playwright's in-process
  // connection hands each message over in an immediate, so a message can
  // overtake the one that creates the object it names ("Object with guid
  // response@… was not bound in the connection", which failed a CI run).
  // If this test fails after a Bun upgrade, the rule can go.
  test('in Bun, expect(promise).resolves runs immediates out of order', async () => {
    const order: string[] = [];
    await new Promise<void>((done) => {
      setImmediate(() => {
        order.push('first');
        setImmediate(() => order.push('queued by first'));
        void expect(Bun.sleep(5)).resolves.toBeUndefined();
      });
      setImmediate(() => order.push('second'));
      setTimeout(done, 50);
    });
    expect(order).toEqual(['first', 'queued by first', 'second']);
  });

  test('await Playwright calls before expect: no expect(promise).resolves or .rejects', () => {
    expect(nestedWaits()).toEqual([]);
  });
});
