// The frame page's frame-ancestors lists exactly each seeded configuration's allowed hosts (written out here by hand,
// not computed with the code under test), for both schemes and any port; nothing else may embed the frame.
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIGURATIONS } from '../../../src/simulator/seed.ts';
import { createRelayHarness, RELAY_ORIGIN } from '../relay/relay-harness.ts';

const harness = createRelayHarness();
afterAll(() => harness.close());

const local = ['localhost', '127.0.0.1'];
/** null: the relay serves no frame (a configuration the account cannot see answers not_found). */
const EXPECTED: Record<string, string[] | 'none' | null> = {
  'demo-client': local,
  'smile-dental': ['www.smile-dental.test', '*.smile-dental.test', ...local],
  'demo-inactive': 'none',
  'demo-other-practice': null,
  'demo-empty-color': local,
  'demo-analytics': local,
  // Only the two plain host entries survive: a URL, a bare *, an IP literal and an inner wildcard are dropped.
  'demo-hostile': ['smile-dental.test', '*.smile-dental.test'],
};

const frameAncestors = (policy: string) =>
  policy
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith('frame-ancestors '))
    ?.split(' ')
    .slice(1) ?? [];

describe('frame-ancestors matches each seeded configuration exactly', () => {
  it('covers every seeded configuration', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(CONFIGURATIONS.map((configuration) => configuration.id).sort());
  });

  for (const [clientId, expected] of Object.entries(EXPECTED)) {
    it(`${clientId}: ${expected === null ? 'no frame at all' : expected === 'none' ? "'none'" : expected.join(', ')}`, async () => {
      const response = await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=${clientId}`);
      if (expected === null) {
        expect(response.status).toBe(404);
        expect(response.headers.get('Content-Security-Policy') ?? '').not.toMatch(/frame-ancestors [^;]*http/);
        return;
      }
      const sources = frameAncestors(response.headers.get('Content-Security-Policy') ?? '');
      if (expected === 'none') {
        expect(sources).toEqual(["'none'"]);
        return;
      }
      expect(sources.sort()).toEqual(expected.flatMap((host) => [`https://${host}:*`, `http://${host}:*`]).sort());
    });
  }
});
