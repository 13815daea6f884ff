import { describe, expect, test } from 'bun:test';
import { type CombinableLater, commitRunsApart, WriteQueue } from '@/db/write-queue';

/**
 * The group commit's queue and PostgreSQL's way of committing a batch
 * (`commitRunsApart`), over a kind that keeps what it wrote in an array:
 * each call of `many` or `one` stands for one transaction, all or nothing.
 */
function recordingKind(refuse: (input: string) => boolean = () => false) {
  const stored: string[] = [];
  const calls: string[][] = [];
  const write = async (inputs: string[]) => {
    calls.push(inputs);
    await Promise.resolve();
    if (inputs.some(refuse)) throw new Error(`refused: ${inputs.join(',')}`);
    stored.push(...inputs);
    return inputs.map((input) => `id-${input}`);
  };
  const kind: CombinableLater<string, string> = {
    one: async (input) => (await write([input]))[0]!,
    many: write,
  };
  return { kind: kind as CombinableLater<unknown, unknown>, stored, calls };
}

function manualSchedule() {
  const queued: (() => void)[] = [];
  return {
    schedule: (flush: () => void) => void queued.push(flush),
    runAll: () => {
      for (const flush of queued.splice(0)) flush();
    },
  };
}

const outcomes = (promises: Promise<unknown>[]) =>
  Promise.allSettled(promises).then((all) =>
    all.map((one) => (one.status === 'fulfilled' ? one.value : 'rejected')),
  );

describe('WriteQueue with commitRunsApart', () => {
  test('writes of one kind go to one many call per batch; a full batch commits at once', async () => {
    const { kind, stored, calls } = recordingKind();
    const manual = manualSchedule();
    const queue = new WriteQueue(commitRunsApart, { maxBatch: 3, schedule: manual.schedule });
    const written = ['a', 'b', 'c', 'd', 'e'].map((input) => queue.submit(kind, input));
    // The third filled a batch: committed at once; the other two wait for the flush.
    expect(calls).toEqual([['a', 'b', 'c']]);
    expect(queue.pending).toBe(2);
    manual.runAll();
    expect(await outcomes(written)).toEqual(['id-a', 'id-b', 'id-c', 'id-d', 'id-e']);
    expect(calls).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(stored).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  test('a refused combined write: each again alone, only the write refused alone fails', async () => {
    const { kind, stored, calls } = recordingKind((input) => input === 'bad');
    const manual = manualSchedule();
    const queue = new WriteQueue(commitRunsApart, { schedule: manual.schedule });
    const written = ['a', 'bad', 'c'].map((input) => queue.submit(kind, input));
    manual.runAll();
    expect(await outcomes(written)).toEqual(['id-a', 'rejected', 'id-c']);
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    expect(stored.sort()).toEqual(['a', 'c']);
  });

  test('kinds alternating: each run of one kind is its own transaction, answers in order', async () => {
    const first = recordingKind();
    const second = recordingKind();
    const manual = manualSchedule();
    const queue = new WriteQueue(commitRunsApart, { schedule: manual.schedule });
    const written = [
      queue.submit(first.kind, 'a'),
      queue.submit(first.kind, 'b'),
      queue.submit(second.kind, 'c'),
      queue.submit(first.kind, 'd'),
    ];
    manual.runAll();
    expect(await outcomes(written)).toEqual(['id-a', 'id-b', 'id-c', 'id-d']);
    expect(first.calls).toEqual([['a', 'b'], ['d']]);
    expect(second.calls).toEqual([['c']]);
  });

  test('maxInFlight: writes arriving while that many batches commit wait and go in one batch', async () => {
    const stored: string[] = [];
    const calls: string[][] = [];
    const gates: (() => void)[] = [];
    const write = async (inputs: string[]) => {
      calls.push(inputs);
      await new Promise<void>((open) => gates.push(open));
      stored.push(...inputs);
      return inputs.map((input) => `id-${input}`);
    };
    const kind: CombinableLater<string, string> = {
      one: async (input) => (await write([input]))[0]!,
      many: write,
    };
    const manual = manualSchedule();
    const queue = new WriteQueue(commitRunsApart, { schedule: manual.schedule, maxInFlight: 2 });
    const submit = (input: string) => {
      const written = queue.submit(kind as CombinableLater<unknown, unknown>, input);
      manual.runAll();
      return written;
    };
    // Each flushed on its own: the first two start a transaction each, the rest wait.
    const written = ['a', 'b', 'c', 'd', 'e'].map(submit);
    expect(calls).toEqual([['a'], ['b']]);
    expect(queue.pending).toBe(3);
    gates.shift()!();
    await written[0];
    await Promise.resolve();
    expect(calls).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    for (const open of gates.splice(0)) open();
    expect(await outcomes(written)).toEqual(['id-a', 'id-b', 'id-c', 'id-d', 'id-e']);
    expect(stored.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
