// What the production build puts in place of embedded-simulator.ts (vite.config.ts, server mode): no simulator.
import type { EmbeddedSimulatorStarter } from './embedded-simulator.ts';

export const startEmbeddedSimulator: EmbeddedSimulatorStarter | null = null;
