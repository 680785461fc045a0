// The one digest the conversation stores use, for whatever they must recognise without keeping it (a message's text,
// a conversation id, a store's scope): SHA-256 in base64url. The one-shot `hash` (Node >= 20.12) rather than
// createHash, since some of these run on every read.
import { hash } from 'node:crypto';

export const digest = (text: string): string => hash('sha256', text, 'base64url');
