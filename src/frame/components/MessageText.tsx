import { splitLinks } from '../text/links.ts';

/**
 * Message text as text nodes and safe links only: nothing in a message is ever rendered as HTML. `dir="auto"`: a
 * message takes the direction of its own first letters (an English reply in the Arabic panel, or Arabic in the
 * English one), isolated from the panel's. `lang=""` (language unknown): a message is in whatever language its writer
 * used, and claiming the panel's would make a screen reader read an English reply with an Arabic voice.
 */
export function MessageText({ text }: { text: string }) {
  return (
    <p lang="" class="text" dir="auto">
      {splitLinks(text).map((segment, index) =>
        segment.kind === 'link' ? (
          <a key={index} href={segment.href} target="_blank" rel="noopener noreferrer">
            {segment.text}
          </a>
        ) : (
          segment.text
        ),
      )}
    </p>
  );
}
