// The proxy that lets WebKitGTK reach test host names (test/browser/engines/host-proxy.ts) forwards them to the same
// port on 127.0.0.1 and refuses every other address, so a browser test can never reach outside this machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProxy, type HostProxy } from '../../browser/engines/host-proxy.ts';

let proxy: HostProxy;
const site = createServer((incoming, outgoing) => outgoing.end(`${incoming.headers.host} ${incoming.url}`));
let port: number;

beforeAll(async () => {
  proxy = await startHostProxy();
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  port = (site.address() as AddressInfo).port;
});
afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => site.close(resolve));
});

/** A request as a browser sends it to an HTTP proxy: the absolute URL in the request line. */
function throughProxy(url: string): Promise<{ status: number; body: string }> {
  const [host, proxyPort] = proxy.address.split(':');
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host, port: Number(proxyPort), path: url, headers: { Host: new URL(url).host } },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the test host-name proxy', () => {
  it('forwards a test host name to the same port on 127.0.0.1, with its Host header and path', async () => {
    expect(await throughProxy(`http://www.smile-dental.test:${port}/services?x=1`)).toEqual({
      status: 200,
      body: `www.smile-dental.test:${port} /services?x=1`,
    });
  });

  it('refuses any other host, public or private', async () => {
    for (const url of [
      `http://example.com:${port}/`,
      `http://10.0.0.1:${port}/`,
      `http://smile-dental.test.example.com:${port}/`,
    ]) {
      expect((await throughProxy(url)).status, url).toBe(403);
    }
  });
});
