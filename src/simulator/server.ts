import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createSimulator, type Simulator, type SimulatorOptions } from './app.ts';

export interface SimulatorServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  simulator: Simulator;
  close(): Promise<void>;
}

/**
 * The simulator on a real port (0 = any free one), through @hono/node-server. Bad options (an events URL that is
 * not http(s), say) reject the promise.
 *
 * @example
 * // Signed upstream events to a relay, as `npm start` wires them:
 * await startSimulatorServer({ port: 8788, events: { url: `${relayUrl}/v1/upstream-events`, secret } })
 */
export function startSimulatorServer(
  options: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<SimulatorServer> {
  const { port = 0, host = '127.0.0.1', ...simulatorOptions } = options;
  let simulator: Simulator;
  try {
    simulator = createSimulator(simulatorOptions);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  return new Promise((resolve, reject) => {
    const server = serve({ fetch: simulator.app.fetch, port, hostname: host }, (info: AddressInfo) => {
      server.off('error', onError);
      const hostPart = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${hostPart}:${info.port}`,
        simulator,
        close: () =>
          new Promise<void>((done) => {
            simulator.close();
            server.close(() => done());
            // Keep-alive connections from fetch would otherwise hold close() open.
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    const onError = (error: Error) => {
      simulator.close();
      reject(error);
    };
    server.once('error', onError);
  });
}
