// A docked developer-tools pane makes the window much larger than its viewport.
const DOCKED_PANE_PX = 160;

export const developerTools = () =>
  outerWidth - innerWidth > DOCKED_PANE_PX || outerHeight - innerHeight > DOCKED_PANE_PX;
