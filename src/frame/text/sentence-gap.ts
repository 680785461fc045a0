// The space between two sentences shown side by side. Chinese and Japanese end a sentence with a full-width stop,
// which carries its own space: a typed space after it shows as a gap a reader of those languages does not expect.
const FULL_WIDTH_END = /[。！？]$/u;

export const sentenceGap = (sentence: string): string => (FULL_WIDTH_END.test(sentence) ? '' : ' ');
