// What `npm start` alone reads: where it runs the built-in simulator when no upstream is configured.
import { group, whole } from './values.ts';

export const embeddedSimulator = group('Development', {
  simulatorPort: whole('SIMULATOR_PORT', 8788, { min: 0, max: 65535 }),
});
