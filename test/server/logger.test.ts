import { describe, expect, test } from 'bun:test';
import { createLogger } from '@/logger';

describe('createLogger', () => {
  const capture = (level: Parameters<typeof createLogger>[0] = 'info') => {
    const lines: string[] = [];
    return { lines, logger: createLogger(level, (line) => lines.push(line)) };
  };

  test('writes one JSON object per line: time, level, msg, then the fields', () => {
    const { lines, logger } = capture();
    logger.info('request', { requestId: 'r-1', path: '/a"b', status: 200, skipped: undefined });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(Object.keys(line)).toEqual(['time', 'level', 'msg', 'requestId', 'path', 'status']);
    expect(line).toMatchObject({ level: 'info', msg: 'request', path: '/a"b', status: 200 });
    expect(new Date(line.time).toISOString()).toBe(line.time);
  });

  test('a line without fields, and a message that needs escaping', () => {
    const { lines, logger } = capture();
    logger.warn('say "hi"\n');
    logger.error('empty', {});
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { time: expect.any(String), level: 'warn', msg: 'say "hi"\n' },
      { time: expect.any(String), level: 'error', msg: 'empty' },
    ]);
  });

  test('levels below the configured one are not written', () => {
    const { lines, logger } = capture('warn');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['w']);
  });
});
