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

describe('createLogger, pretty format', () => {
  const capture = (level: Parameters<typeof createLogger>[0] = 'info') => {
    const lines: string[] = [];
    return { lines, logger: createLogger(level, (line) => lines.push(line), 'pretty') };
  };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour codes are what is tested
  const plain = (line: string) => line.replace(/\u001b\[\d+m/g, '');

  test('a request line: time, method, path, status, duration', () => {
    const { lines, logger } = capture();
    logger.info('request', {
      requestId: 'r',
      method: 'GET',
      path: '/a',
      status: 200,
      durationMs: 1.5,
    });
    expect(plain(lines[0]!)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/a 200 1\.50 ms$/);
  });

  test.each([
    [204, '32'],
    [304, '36'],
    [404, '33'],
    [503, '31'],
  ])('status %d is coloured %s', (status, colour) => {
    const { lines, logger } = capture();
    logger.info('request', { method: 'POST', path: '/x', status, durationMs: 2 });
    expect(lines[0]).toContain(`\u001b[${colour}m${status}\u001b[0m`);
  });

  test('any other line: level, message and key=value fields; levels still apply', () => {
    const { lines, logger } = capture('info');
    logger.debug('hidden');
    logger.warn('slow job', { job: 'plan-window-reset', note: 'two words', skipped: undefined });
    expect(lines.map(plain)).toEqual([
      expect.stringMatching(/^\S+ WARN {2}slow job job=plan-window-reset note="two words"$/),
    ]);
  });

  test('debugOn says whether debug lines are written', () => {
    expect(createLogger('debug', () => {}).debugOn).toBe(true);
    expect(createLogger('info', () => {}, 'pretty').debugOn).toBe(false);
  });
});
