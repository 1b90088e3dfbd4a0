/** The operators on two values that need no evaluation state: ordering and arithmetic. */
import { ExprError, type Position } from './errors.js';
import { compare, Duration, isNumber, Time, toFloat, typeName, wrap, type Value } from './values.js';

export function mismatch(op: string, left: Value, right: Value, pos: Position): ExprError {
  return new ExprError(`invalid operation: ${op} (mismatched types ${typeName(left)} and ${typeName(right)})`, pos);
}

export function ordered(op: string, left: Value, right: Value, pos: Position): boolean {
  const c = compare(left, right);
  if (c === undefined) throw mismatch(op, left, right, pos);
  switch (op) {
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

export function arithmetic(op: string, a: Value, b: Value, pos: Position): Value {
  if (isNumber(a) && isNumber(b)) {
    const ints = typeof a === 'bigint' && typeof b === 'bigint';
    switch (op) {
      case '+':
        return ints ? wrap(a + b) : toFloat(a) + toFloat(b);
      case '-':
        return ints ? wrap(a - b) : toFloat(a) - toFloat(b);
      case '*':
        return ints ? wrap(a * b) : toFloat(a) * toFloat(b);
      case '/':
        return toFloat(a) / toFloat(b);
      case '%':
        if (!ints) throw mismatch(op, a, b, pos);
        if (b === 0n) throw new ExprError('integer divide by zero', pos);
        return wrap(a % b);
      case '**':
      case '^':
        return Math.pow(toFloat(a), toFloat(b));
    }
  }
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (a instanceof Time && b instanceof Duration && (op === '+' || op === '-')) return new Time(a.ms + (op === '+' ? 1 : -1) * Number(b.nanos / 1_000_000n), a.zone);
  if (a instanceof Duration && b instanceof Time && op === '+') return new Time(b.ms + Number(a.nanos / 1_000_000n), b.zone);
  if (a instanceof Time && b instanceof Time && op === '-') return new Duration(BigInt(a.ms - b.ms) * 1_000_000n);
  if (a instanceof Duration && b instanceof Duration && (op === '+' || op === '-')) return new Duration(wrap(op === '+' ? a.nanos + b.nanos : a.nanos - b.nanos));
  throw mismatch(op, a, b, pos);
}
