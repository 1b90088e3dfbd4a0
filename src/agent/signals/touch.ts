export const touch = () => {
  let touchEvent = true;
  try {
    document.createEvent('TouchEvent');
  } catch {
    touchEvent = false;
  }
  return { max_touch_points: navigator.maxTouchPoints || 0, touch_event: touchEvent, touch_start: 'ontouchstart' in window };
};
