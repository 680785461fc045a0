import { useEffect, useRef, useState } from 'preact/hooks';
import type { Strings } from '../i18n.ts';
import { findSensitiveNumbers, type SensitiveKind } from '../text/sensitive.ts';

interface ComposerProps {
  strings: Strings;
  maxLength: number;
  onSend: (text: string) => void;
  inputRef?: { current: HTMLTextAreaElement | null };
  /**
   * What the composer's focus should say besides its name: the greeting, which opening the panel would otherwise
   * never speak (focus goes straight to the composer).
   */
  describedBy?: string | undefined;
}

/** The counter appears this close to the limit. */
const COUNTER_FROM = 200;

export function Composer({ strings, maxLength, onSend, inputRef, describedBy }: ComposerProps) {
  const [text, setText] = useState('');
  const [warning, setWarning] = useState<SensitiveKind[] | null>(null);
  const left = maxLength - text.length;
  const editRef = useRef<HTMLButtonElement>(null);
  const shown = warning !== null;

  // The warning is a dialog: it takes focus, to the choice that keeps the message here, and focus entering it says
  // it once. Not an alertdialog: Orca spoke that as an alert as well, three times in all.
  useEffect(() => {
    if (shown) editRef.current?.focus();
  }, [shown]);

  function closeWarning() {
    setWarning(null);
    inputRef?.current?.focus();
  }

  // `current` is what the textarea holds right now: an Enter pressed before the last keystroke's render reached the
  // state would otherwise send nothing (or the text without its last characters).
  function send(confirmed: boolean, current = text) {
    if (current.trim() === '') return;
    const kinds = findSensitiveNumbers(current);
    if (!confirmed && kinds.length > 0) {
      setText(current);
      return setWarning(kinds);
    }
    onSend(current);
    setText('');
    setWarning(null);
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: not a control; it hears the Escape that bubbles from its own textarea and warning buttons
    <div
      class="composer"
      onKeyDown={(event) => {
        // Escape closes only the warning (the panel's own Escape, at the document, never hears it); the text stays.
        if (event.key === 'Escape' && warning) {
          event.stopPropagation();
          closeWarning();
        }
      }}
    >
      {warning && (
        <div class="warning" role="dialog" aria-labelledby="sensitive-title" aria-describedby="sensitive-body">
          <strong id="sensitive-title">{strings.sensitiveTitle}</strong>
          <p id="sensitive-body">{strings.sensitiveBody(warning)}</p>
          <div class="row">
            <button ref={editRef} type="button" class="secondary" onClick={closeWarning}>
              {strings.edit}
            </button>
            <button type="button" class="primary" onClick={() => (send(true), inputRef?.current?.focus())}>
              {strings.sendAnyway}
            </button>
          </div>
        </div>
      )}
      <div class="row">
        <textarea
          ref={inputRef}
          rows={2}
          dir="auto"
          maxLength={maxLength}
          value={text}
          aria-label={strings.composerLabel}
          aria-describedby={left <= COUNTER_FROM ? 'characters-left' : describedBy}
          placeholder={strings.composerPlaceholder}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Enter sends; Shift+Enter breaks the line; an IME composing text keeps its Enter.
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              send(false, event.currentTarget.value);
            }
          }}
        />
        <button type="button" class="primary send" disabled={text.trim() === ''} onClick={() => send(false)}>
          {strings.send}
        </button>
      </div>
      {left <= COUNTER_FROM && (
        <span id="characters-left" class="counter">
          {strings.charactersLeft(left)}
        </span>
      )}
    </div>
  );
}
