// Turns message text into text and link segments for the panel to render as nodes, never as HTML, so a message can
// carry no markup and no script URL into the page.

export type TextSegment = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

// A candidate starts with a scheme we accept or a bare `www.`; the rest of it runs to whitespace or a character that
// cannot sit in a URL written in prose.
const CANDIDATE = /(?:https?:\/\/|mailto:|tel:|www\.)[^\s<>"`]*/gi;
// A candidate glued to a word ("xhttps://", "javascript:https://") is not a link of its own.
const GLUED = /[\p{L}\p{N}_:/.@+-]/u;
const TRAILING = `.,;:!?)]}'"`;
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const TEL = /^tel:\+?\d[\d().-]*$/i;

/**
 * Splits message text into text and links. Only https:, http:, mailto: and tel: become links, parsed with URL;
 * everything else (javascript:, data:, vbscript:, file:, relative) stays text. Joining every segment's `text` gives
 * back the input exactly.
 */
export function splitLinks(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  const pushText = (value: string): void => {
    if (value === '') return;
    const last = segments[segments.length - 1];
    if (last?.kind === 'text') last.text += value;
    else segments.push({ kind: 'text', text: value });
  };

  let done = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const start = match.index;
    if (start > 0 && GLUED.test(text.charAt(start - 1))) continue;
    const shown = trimTrailing(match[0]);
    const href = toHref(shown);
    if (href === null) continue;
    pushText(text.slice(done, start));
    segments.push({ kind: 'link', text: shown, href });
    done = start + shown.length;
  }
  pushText(text.slice(done));
  return segments;
}

/** Drops punctuation that ends the sentence rather than the URL; a closing bracket stays when the URL opened it. */
function trimTrailing(candidate: string): string {
  let end = candidate.length;
  while (end > 0) {
    const last = candidate.charAt(end - 1);
    if (!TRAILING.includes(last)) break;
    const opener = CLOSERS[last];
    if (opener !== undefined) {
      const part = candidate.slice(0, end);
      if (count(part, opener) >= count(part, last)) break;
    }
    end -= 1;
  }
  return candidate.slice(0, end);
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

function toHref(shown: string): string | null {
  const lower = shown.toLowerCase();
  const raw = lower.startsWith('www.') ? `https://${shown}` : shown;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  switch (url.protocol) {
    case 'https:':
    case 'http:':
      // "https://" alone or "www." alone is not a place to go.
      return url.hostname.includes('.') || url.hostname === 'localhost' ? url.href : null;
    case 'mailto:':
      return /^mailto:[^@\s]+@[^@\s]+$/i.test(shown) ? url.href : null;
    case 'tel:':
      return TEL.test(shown) ? url.href : null;
    default:
      return null;
  }
}
