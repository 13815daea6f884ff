import { expect, test } from 'bun:test';
import { fuzzService } from '../support/fuzz/service';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const MIN_PER_OPERATION = 200;

test(`fuzz: ${REQUESTS} requests generated from /docs/json answer no 500, no hang, nothing off their documented schema and only documented statuses and media types (strict)`, async () => {
  const { report, text } = await fuzzService({
    requests: REQUESTS,
    minPerOperation: MIN_PER_OPERATION,
    strict: true,
  });
  console.log(text);
  expect(report.sent).toBeGreaterThanOrEqual(REQUESTS);
  const starved = [...report.routes.entries()].filter(
    ([, stats]) => stats.documented && stats.sent < MIN_PER_OPERATION,
  );
  expect(starved.map(([key]) => key)).toEqual([]);
  if (report.findings.length > 0)
    throw new Error(`${report.findings.length} findings; see the report above`);
}, 600_000);
