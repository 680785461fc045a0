// The configuration the relay wrote into the frame page (src/relay/frame/frame-page.ts), parsed with the same shared
// rules as an answer from GET /v1/webchat-configuration. null when it is missing, malformed or for another client:
// the panel then asks the relay, as it always could.
import { parseWebchatConfiguration, type WebchatConfiguration } from '../shared/configuration.ts';

export function inlineConfiguration(doc: Document, clientId: string): WebchatConfiguration | null {
  const text = doc.getElementById('configuration')?.textContent;
  if (!text) return null;
  try {
    const configuration = parseWebchatConfiguration(JSON.parse(text));
    return configuration?.client_id === clientId ? configuration : null;
  } catch {
    return null;
  }
}
