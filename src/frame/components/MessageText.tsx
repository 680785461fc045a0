import { splitLinks } from '../text/links.ts';

/** Message text as text nodes and safe links only: nothing in a message is ever rendered as HTML. */
export function MessageText({ text }: { text: string }) {
  return (
    <p class="text">
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
