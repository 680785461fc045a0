// The frame page carries the practice's configuration, the same as GET /v1/webchat-configuration answers, in a JSON
// block that no configuration text can break out of.
import { afterAll, describe, expect, it } from 'vitest';
import { withConfiguration } from '../../../src/relay/frame/frame-page.ts';
import { createRelayHarness, RELAY_ORIGIN } from './relay-harness.ts';

const harness = createRelayHarness();
afterAll(() => harness.close());

const BLOCK = /<script type="application\/json" id="configuration">([\s\S]*?)<\/script>/g;

describe('the configuration in the frame page', () => {
  it.each(['smile-dental', 'demo-hostile', 'demo-inactive'])(
    '%s: the same configuration the relay answers on its own, once',
    async (clientId) => {
      const html = await (await harness.app.request(`${RELAY_ORIGIN}/frame?client_id=${clientId}`)).text();
      const blocks = [...html.matchAll(BLOCK)].map((match) => match[1]!);
      expect(blocks).toHaveLength(1);
      const answer = await (
        await harness.app.request(`${RELAY_ORIGIN}/v1/webchat-configuration?client_id=${clientId}`)
      ).json();
      expect(JSON.parse(blocks[0]!)).toEqual(answer);
    },
  );

  it('escapes what could end the block or be read as markup', () => {
    const hostile = { bot_name: '</script><script>alert(1)</script><!-- & \u2028\u2029' };
    const html = withConfiguration('<head><!--configuration--></head>', hostile);
    const blocks = [...html.matchAll(BLOCK)].map((match) => match[1]!);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(blocks[0]!)).toEqual(hostile);
    // Exactly one script element: the block, with nothing after it but the page's own markup.
    expect(html.match(/<script/g)).toHaveLength(1);
  });
});
