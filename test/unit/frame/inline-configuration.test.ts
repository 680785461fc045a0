// @vitest-environment happy-dom
// The configuration the relay writes into the frame page: used when it parses with the shared rules and names this
// client, ignored (so the panel asks the relay) otherwise.
import { afterEach, describe, expect, it } from 'vitest';
import { inlineConfiguration } from '../../../src/frame/inline-configuration.ts';
import { smileDentalConfiguration as configuration } from '../../support/configurations.ts';

function page(blockText: string | null) {
  document.head.innerHTML =
    blockText === null ? '' : `<script type="application/json" id="configuration">${blockText}</script>`;
}
afterEach(() => (document.head.innerHTML = ''));

describe('inlineConfiguration', () => {
  it('reads the configuration the relay wrote into the page', () => {
    page(JSON.stringify(configuration));
    expect(inlineConfiguration(document, 'smile-dental')).toMatchObject({
      client_id: 'smile-dental',
      bot_name: 'Sunny',
      icon_color: '#1d4ed8',
    });
  });

  it.each([
    ['no block', null],
    ['an empty block', ''],
    ['text that is not JSON', '{"client_id":'],
    ['JSON that is not a configuration', '{"client_id":"smile-dental","is_active":"yes"}'],
    ["another client's configuration", JSON.stringify({ ...configuration, client_id: 'demo-client' })],
  ])('answers null for %s, so the panel asks the relay', (_why, text) => {
    page(text);
    expect(inlineConfiguration(document, 'smile-dental')).toBeNull();
  });
});
