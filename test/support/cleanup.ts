import { afterAll } from 'bun:test';
import { closeTestApps } from './harness';

// Preloaded (bunfig.toml): once the run ends, every database a test app
// opened is closed and its temp folder removed.
afterAll(closeTestApps);
