// The relay as a deployed one runs for bench:page: the built server in its own process, behind a TLS front, under
// another site's name than the practice's page, with the upstream simulator on its own port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { freePort } from '../../tools/free-port.ts';
import { writeSelfSignedCertificate } from '../../tools/self-signed-certificate.ts';
import { startSimulatorServer } from '../../src/simulator/server.ts';

/**
 * A TLS front for the relay, as a deployed relay has (a load balancer or proxy ends TLS and passes plain HTTP on):
 * Chrome asks for brotli only over HTTPS, so without it the bench would count the gzip bytes no visitor receives.
 * A self-signed certificate made with openssl for this run; the browser contexts are told to accept it.
 */
async function startTlsFront(): Promise<{
  port: number;
  /** The certificate's public key (SHA-256 of its SPKI, base64), for Chromium's --ignore-certificate-errors-spki-list. */
  spki: string;
  forwardTo(port: number): void;
  close(): void;
}> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  writeSelfSignedCertificate('DNS:chat.vendor-relay.test', join(directory, 'key.pem'), join(directory, 'cert.pem'));
  let target = 0;
  const certificate = readFileSync(join(directory, 'cert.pem'));
  const spki = createHash('sha256')
    .update(new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
  const server = createTlsServer({ key: readFileSync(join(directory, 'key.pem')), cert: certificate }, (socket) => {
    const upstream = connect(target, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rmSync(directory, { recursive: true });
  return {
    port: (server.address() as { port: number }).port,
    spki,
    forwardTo: (port) => (target = port),
    close: () => server.close(),
  };
}

/** `through`, given the TLS front's port, puts something before it (a shaped link) and returns the port to use. */
/** `root`: a built checkout whose relay and dist/ to run (another build, to compare loaders in one run). */
export async function startRelayProcess(
  through?: (frontPort: number) => Promise<number>,
  root: URL = new URL('../..', import.meta.url),
): Promise<{ origin: string; child: ChildProcess; front: { spki: string; close(): void } }> {
  const port = await freePort();
  const front = await startTlsFront();
  front.forwardTo(port);
  const origin = `https://chat.vendor-relay.test:${through ? await through(front.port) : front.port}`;
  // The built relay, as production runs it (npm run serve): a relay under tsx would take CPU from the browser on this
  // shared machine at the very moment the loader runs.
  // The built relay embeds no simulator: it gets one on its own port, in this process, as it would get the service.
  const simulator = await startSimulatorServer({ port: 0 });
  const child = spawn(process.execPath, ['dist-server/server.js'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      PUBLIC_ORIGIN: origin,
      HANDLE_SECRET: randomBytes(32).toString('base64url'),
      UPSTREAM_URL: simulator.url,
      UPSTREAM_USERNAME: simulator.simulator.seed.username,
      UPSTREAM_PASSWORD: simulator.simulator.seed.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Relay listening on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`relay exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`relay did not start:\n${output}`)), 30_000);
  });
  child.once('exit', () => void simulator.close());
  return { origin, child, front };
}
