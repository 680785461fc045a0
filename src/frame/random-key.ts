// Random keys for Idempotency-Keys and analytics client ids. crypto.randomUUID exists only in secure contexts, and a
// frame on an http practice page is not one (every ancestor must be secure); getRandomValues works everywhere.
export function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
