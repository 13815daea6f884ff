import { expect, test } from 'bun:test';
import { fuzzService } from '../support/fuzz/service';

/** The slow suite's fuzzer, small: regressions show in `npm test`; the full run is test/slow/fuzz.slow.ts. */
test('quick fuzz: 1,000 requests from /docs/json answer no 500, no hang, nothing off schema', async () => {
  const { report, text } = await fuzzService({ requests: 1000, minPerOperation: 20 });
  if (report.findings.length > 0) console.log(text);
  expect(report.sent).toBeGreaterThanOrEqual(1000);
  expect(report.findings).toEqual([]);
}, 30_000);
