// Servers that start together need ports that differ: one port given twice once failed a Redis Sentinel's start.
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePorts } from '../support/free-port.ts';

it('gives as many ports as asked, all different, each free to listen on', async () => {
  const ports = await freePorts(20);
  expect(new Set(ports).size).toBe(20);
  const servers = ports.map(() => createServer());
  await Promise.all(
    servers.map((server, index) => new Promise<void>((resolve) => server.listen(ports[index], '127.0.0.1', resolve))),
  );
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});
