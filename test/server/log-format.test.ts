import { describe, expect, test } from 'bun:test';
import { ConfigError, parseConfig } from '@/config';

describe('LOG_FORMAT', () => {
  test('unset: pretty on a terminal, json otherwise', () => {
    expect(parseConfig({ DATABASE_PATH: ':memory:' }, true).logFormat).toBe('pretty');
    expect(parseConfig({ DATABASE_PATH: ':memory:' }, false).logFormat).toBe('json');
  });

  test.each([
    ['json', true],
    ['pretty', false],
  ] as const)('LOG_FORMAT=%s wins over the terminal check', (format, terminal) => {
    expect(parseConfig({ DATABASE_PATH: ':memory:', LOG_FORMAT: format }, terminal).logFormat).toBe(
      format,
    );
  });

  test('another value is refused naming the variable', () => {
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', LOG_FORMAT: 'fancy' })).toThrow(
      ConfigError,
    );
    expect(() => parseConfig({ DATABASE_PATH: ':memory:', LOG_FORMAT: 'fancy' })).toThrow(
      /^LOG_FORMAT: /,
    );
  });
});
