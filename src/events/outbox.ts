import type { DbOrTx } from '@/db/client';
import { events } from '@/db/schema';
import type { EventType, ResourceKind } from './schemas';
import { announceEvent } from './signal';

export interface NewEvent {
  type: EventType;
  resource: { kind: ResourceKind; id: string };
  /** The owner of the property concerned; null when no customer may see the event. */
  ownerId: string | null;
  /** The resource as its GET answers it after the change, or `{id}` once removed. */
  data: object;
}

const INSERT = `INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data)
  VALUES (?, ?, ?, ?, ?, ?)`;

/**
 * Appends one event. Call it inside the write transaction of the change it
 * tells of, after the change: the event then commits or rolls back with it,
 * and its id (assigned here, while the transaction holds SQLite's only write
 * lock) is greater than that of every event committed before it.
 */
export function appendEvent(db: DbOrTx, event: NewEvent, now: number): void {
  const data = JSON.stringify(event.data);
  if ('$client' in db) {
    // The connection itself: one prepared statement (creates append one event each).
    db.$client
      .query(INSERT)
      .run(event.type, now, event.resource.kind, event.resource.id, event.ownerId, data);
  } else {
    db.insert(events)
      .values({
        type: event.type,
        occurredAt: new Date(now),
        resourceKind: event.resource.kind,
        resourceId: event.resource.id,
        ownerId: event.ownerId,
        data,
      })
      .run();
  }
  announceEvent();
}
