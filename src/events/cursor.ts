import { fail } from '@/kernel/errors';

/**
 * Cursors are opaque to clients: base64url of a version tag and the event id.
 * Ids never change and are never reused, so a cursor means the same position
 * after a restart, a backup restore or an upgrade.
 */
const PREFIX = 'ev1:';

export const cursorOf = (id: number): string => Buffer.from(`${PREFIX}${id}`).toString('base64url');

/** The event id of a cursor this service issued; anything else is a 400. */
export function idOfCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = /^ev1:(0|[1-9]\d{0,14})$/.exec(text);
  // Re-encoding catches the many base64url spellings of one cursor and stray characters.
  if (!match || cursorOf(Number(match[1])) !== cursor) {
    throw fail('events.cursor_invalid', {
      invalidParams: [
        { name: 'after', reason: 'must be an event `id` or a `next_cursor` of this feed' },
      ],
    });
  }
  return Number(match[1]);
}
