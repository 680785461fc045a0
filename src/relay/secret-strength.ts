// HANDLE_SECRET is the key material for sealing conversation handles. A long but guessable secret ("x" 32 times,
// "abcdefgh…", a password with a counter) passes a length check and lets anyone forge handles to any conversation, so
// the relay estimates what an attacker would have to guess and refuses a secret below 128 bits.

const MINIMUM_BITS = 128;

/**
 * Why a secret is too weak to seal handles, or null when it is strong enough. The estimate is the secret's length times
 * the Shannon entropy of its characters, counting only characters that do not continue a run (aaaa, abcd, 4321): it
 * is generous to random text (`openssl rand -base64 32` ≈ 190 bits, `-hex 32` ≈ 240) and harsh to patterns.
 */
export function secretWeakness(secret: string): string | null {
  const characters = [...secret];
  const surprising: string[] = [];
  for (let index = 0; index < characters.length; index++) {
    const step = index === 0 ? Number.NaN : characters[index]!.codePointAt(0)! - characters[index - 1]!.codePointAt(0)!;
    if (!(step === 0 || step === 1 || step === -1)) surprising.push(characters[index]!);
  }
  const counts = new Map<string, number>();
  for (const character of surprising) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bitsPerCharacter = 0;
  for (const count of counts.values()) {
    const share = count / surprising.length;
    bitsPerCharacter -= share * Math.log2(share);
  }
  const bits = Math.floor(bitsPerCharacter * surprising.length);
  return bits >= MINIMUM_BITS ? null : `is too easy to guess (about ${bits} bits of the ${MINIMUM_BITS} needed)`;
}
