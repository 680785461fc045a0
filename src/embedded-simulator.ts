// The simulator `npm start` embeds when no upstream is configured (development only). The production build
// (`vite build --mode server`, dist-server/server.js) replaces this module with no-embedded-simulator.ts, so the built
// relay and the image carry no simulator code: production always talks to the real service.
import { startSimulatorServer } from './simulator/server.ts';

export type EmbeddedSimulatorStarter = typeof startSimulatorServer;

export const startEmbeddedSimulator: EmbeddedSimulatorStarter | null = startSimulatorServer;
