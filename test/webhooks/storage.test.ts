import { expect } from 'bun:test';
import { measureStoragePerChange } from '../../bench/webhook-storage';
import { sqliteOnly } from '../support/postgres-mode';

sqliteOnly.test(
  "the bytes come from SQLite's dbstat",
  'a change is stored once: its event names the 64 KiB data, and 20 endpoints add a small fixed row per delivery, not a copy of the body',
  async () => {
    const alone = await measureStoragePerChange(0, 4);
    const fanned = await measureStoragePerChange(20, 4);
    expect(alone.deliveryBytes).toBe(0);
    // The data itself is in its own table; a copy in the event would be 64 KiB.
    expect(alone.eventBytes).toBeLessThan(400);
    expect(fanned.eventBytes).toBe(alone.eventBytes);
    // A copied body would be 64 KiB a delivery.
    expect(fanned.perDeliveryRow).toBeLessThan(200);
    expect(fanned.perDelivery).toBeLessThan(400);
  },
);
