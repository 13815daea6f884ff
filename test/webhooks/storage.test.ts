import { expect } from 'bun:test';
import { measureStoragePerChange } from '../../bench/webhook-storage';
import { sqliteOnly } from '../support/postgres-mode';

sqliteOnly.test(
  "the bytes come from SQLite's dbstat",
  'a change is stored once: 20 endpoints add a small fixed row per delivery, not a copy of the 64 KiB body',
  async () => {
    const alone = await measureStoragePerChange(0, 4);
    const fanned = await measureStoragePerChange(20, 4);
    expect(alone.deliveryBytes).toBe(0);
    expect(alone.eventBytes).toBeGreaterThan(64 * 1024);
    expect(fanned.eventBytes).toBe(alone.eventBytes);
    // A copied body would be 64 KiB a delivery.
    expect(fanned.perDeliveryRow).toBeLessThan(200);
    expect(fanned.perDelivery).toBeLessThan(400);
  },
);
