import { expect, test } from 'bun:test';
import { fuzzService } from '../support/fuzz/service';

/** The slow suite's fuzzer, small: regressions show in `npm test`; the full run is test/slow/fuzz.slow.ts. */
test('quick fuzz: 1,000 requests from /docs/json answer no 500, no hang, nothing off schema, only documented statuses and media types', async () => {
  const { report, text } = await fuzzService({
    requests: 1000,
    minPerOperation: 3,
    warmUpRequests: 1,
    strict: true,
  });
  expect(report.sent).toBeGreaterThanOrEqual(1000);
  // The whole report (per-route table and first findings) is the failure message.
  expect(report.findings.length === 0 ? 'no findings' : text).toBe('no findings');
}, 30_000);
