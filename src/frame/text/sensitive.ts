// A gentle nudge before sending, not a filter: the visitor may still send. Patterns are tight on purpose so that
// phone numbers, dates and times do not trigger the warning.

export type SensitiveKind = 'card' | 'ssn';

// Digit groups joined by single spaces or dashes; card numbers are looked for along group boundaries.
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;
const SSN_SEPARATED = /(?:^|[^\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g;
const SSN_PLAIN = /(?:^|\D)(\d{3})(\d{2})(\d{4})(?!\d)/g;
const SSN_MENTION = /\bssn\b|\bsocial\s+security\b|\bseguro\s+social\b/i;

/** Returns the kinds of sensitive number the text seems to contain, [] when none. */
export function findSensitiveNumbers(text: string): SensitiveKind[] {
  const kinds: SensitiveKind[] = [];
  if (hasCardNumber(text)) kinds.push('card');
  if (hasSsn(text)) kinds.push('ssn');
  return kinds;
}

function hasCardNumber(text: string): boolean {
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    const groups = run.split(/[ -]/);
    // Any consecutive groups of 13–19 digits in all: "card 4111 1111 1111 1111 exp 12 28" still counts.
    for (let first = 0; first < groups.length; first += 1) {
      let digits = '';
      for (let last = first; last < groups.length && digits.length <= 19; last += 1) {
        digits += groups[last];
        if (digits.length >= 13 && digits.length <= 19 && isCardLike(digits)) return true;
      }
    }
  }
  return false;
}

function isCardLike(digits: string): boolean {
  // All one digit (0000…, 1111…) is a placeholder, not a card.
  return !/^(\d)\1*$/.test(digits) && passesLuhn(digits);
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits.charAt(digits.length - 1 - index));
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function hasSsn(text: string): boolean {
  for (const match of text.matchAll(SSN_SEPARATED)) {
    if (isValidSsn(match[1], match[3], match[4])) return true;
  }
  // Nine bare digits are too common (order numbers, ids) to count without the word.
  if (!SSN_MENTION.test(text)) return false;
  for (const match of text.matchAll(SSN_PLAIN)) {
    if (isValidSsn(match[1], match[2], match[3])) return true;
  }
  return false;
}

// The Social Security Administration never issues these.
function isValidSsn(area = '', group = '', serial = ''): boolean {
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}
