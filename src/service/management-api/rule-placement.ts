/**
 * Where a rule goes in its environment's evaluation order. Pure: from the order of the other
 * rules, the new order with the rule in it; positions are then its indexes (no gaps).
 */

export type Placement = { position: number } | { after: string } | { before: string };

/**
 * `others`: the environment's other rules in order. Without a placement the rule goes to
 * `defaultIndex` (its current index when it stays, the end when it is new or moved). A position
 * past the end places it last. Returns an error message when `after`/`before` names no rule of
 * the environment.
 */
export function placeRule(others: readonly string[], id: string, placement: Placement | undefined, defaultIndex: number): string[] | string {
  let index: number;
  if (placement === undefined) index = defaultIndex;
  else if ('position' in placement) index = placement.position;
  else {
    const anchor = 'after' in placement ? placement.after : placement.before;
    const at = others.indexOf(anchor);
    if (at < 0) return `names no other rule of the environment: "${anchor}"`;
    index = 'after' in placement ? at + 1 : at;
  }
  const order = [...others];
  order.splice(Math.min(Math.max(index, 0), order.length), 0, id);
  return order;
}

/** `placement` of a request body: exactly one of `position` (integer >= 0), `after`, `before`. */
export function parsePlacement(value: unknown): Placement | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object with position, after or before';
  const entries = Object.entries(value);
  if (entries.length !== 1) return 'must have exactly one of position, after or before';
  const [key, v] = entries[0]!;
  if (key === 'position') return Number.isInteger(v) && (v as number) >= 0 ? { position: v as number } : 'position must be an integer >= 0';
  if (key === 'after' || key === 'before') {
    return typeof v === 'string' && v !== '' ? (key === 'after' ? { after: v } : { before: v }) : `${key} must be a rule id`;
  }
  return 'must have exactly one of position, after or before';
}
