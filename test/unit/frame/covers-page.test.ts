// The frame tells whether it covers the page from its own size: the numbers must be the loader's corner panel's.
import { describe, expect, it } from 'vitest';
import { CORNER_PANEL_MAX_HEIGHT, CORNER_PANEL_WIDTH, SMALL_SCREEN_MAX } from '../../../src/frame/covers-page.ts';
import { CORNER_FRAME_CSS, SMALL_SCREEN } from '../../../src/loader/launcher-styles.ts';

describe('the corner panel the frame recognises', () => {
  it('has the width and the greatest height the loader draws it with', () => {
    expect(CORNER_FRAME_CSS).toContain(`width:${CORNER_PANEL_WIDTH}px;height:min(${CORNER_PANEL_MAX_HEIGHT}px,`);
  });

  it('fills the viewport when it is small in either direction, as the frame expects', () => {
    expect(SMALL_SCREEN).toBe(`(max-width:${SMALL_SCREEN_MAX}px),(max-height:${SMALL_SCREEN_MAX}px)`);
  });
});
