/**
 * features.ts builds matching components from the signals the table declares stable, and only
 * from them: changing a stable signal changes the visit's components, changing any other
 * (smart-signal inputs) does not.
 */
import { describe, expect, test } from 'vitest';
import { SIGNALS, type Shape } from '../../src/protocol/signals.js';
import { extractFeatures } from '../../src/service/identification/features.js';

/** Two different valid values of a shape. */
function sample(shape: Shape, variant: 0 | 1): unknown {
  switch (shape.kind) {
    case 'string':
      return variant ? 'b' : 'a';
    case 'number':
      return variant + 1;
    case 'boolean':
      return variant === 1;
    case 'enum':
      return shape.values[variant];
    case 'strings':
      return [variant ? 'b' : 'a'];
    case 'object':
      return Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, sample(field, variant)]));
  }
}

describe('identification reads exactly the stable signals', () => {
  for (const [name, spec] of Object.entries(SIGNALS)) {
    test(`${name} (${spec.stable ? 'stable' : 'not stable'})`, () => {
      const [a, b] = ([0, 1] as const).map((variant) => extractFeatures({ [name]: sample(spec.shape, variant) }));
      expect(a!.exactHash !== b!.exactHash).toBe(spec.stable);
      expect(Object.keys(a!.values).length > 0).toBe(spec.stable);
    });
  }
});
