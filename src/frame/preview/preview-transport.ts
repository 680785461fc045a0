// The demo's preview conversation: the same Transport the panel uses, answered by a local preview bot inside the
// frame. Nothing is sent to the relay's conversation API, so a preview never creates an upstream conversation.
import type { ConversationStatus, WireMessage } from '../../shared/wire.ts';
import type { Transport } from '../transport.ts';

/** How long the preview bot and the preview team member take to answer, like the real ones. */
export const PREVIEW_REPLY_MS = 600;

export function createPreviewTransport(
  getConfiguration: Transport['getConfiguration'],
  now: () => number,
  botName: () => string,
): Transport {
  const messages: Array<WireMessage & { visibleFrom: number }> = [];
  let status: ConversationStatus = 'open';
  let statusChangedAt = now();

  const add = (sender: WireMessage['sender'], author: string, text: string, delay = 0) => {
    const sequence = messages.length + 1;
    const message = {
      id: `preview-${sequence}`,
      sequence,
      sender,
      author_name: author,
      text,
      created_at: new Date(now() + delay).toISOString(),
      visibleFrom: now() + delay,
    };
    messages.push(message);
    return message;
  };
  const strip = ({ visibleFrom: _visibleFrom, ...message }: WireMessage & { visibleFrom: number }): WireMessage =>
    message;

  return {
    getConfiguration,
    async createConversation() {
      return { conversation: 'preview', expires_at: new Date(now() + 60 * 60 * 1000).toISOString() };
    },
    async sendMessage(_handle, text) {
      const sent = add('visitor', 'Visitor', text);
      add(
        status === 'escalated' ? 'agent' : 'bot',
        status === 'escalated' ? 'Preview' : botName(),
        status === 'escalated'
          ? 'This is where a team member from the practice would answer.'
          : `This is a preview reply from ${botName()}. On your website, the practice's assistant answers here.`,
        PREVIEW_REPLY_MS,
      );
      return strip(sent);
    },
    async messagesAfter(_handle, after) {
      const visible = messages.filter((message) => message.sequence > after && message.visibleFrom <= now()).map(strip);
      // Only a gap-free run, so the cursor never skips a reply that is not visible yet.
      const run: WireMessage[] = [];
      for (const message of visible) {
        if (message.sequence !== (run.at(-1)?.sequence ?? after) + 1) break;
        run.push(message);
      }
      return { messages: run, cursor: run.at(-1)?.sequence ?? after, status, status_as_of: statusChangedAt };
    },
    async escalate() {
      status = 'escalated';
      statusChangedAt = now();
      add(
        'agent',
        'Preview',
        'A team member would join here. (Preview: no one at the practice is notified.)',
        PREVIEW_REPLY_MS,
      );
      return { status, status_as_of: statusChangedAt };
    },
    // Nothing to retire: the preview never had a relay handle.
    async endConversation() {},
  };
}
