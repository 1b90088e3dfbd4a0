/**
 * The state of one evaluation: its budgets (steps, memory, wall clock), the slots of `let`
 * names and predicate frames, and what builtins see of it (a CallContext at `at`).
 */
import type { CallContext } from './builtins.js';
import { ExprError, type Position } from './errors.js';
import type { Network, MapValue } from './values.js';

export interface Limits {
  /** Node visits plus builtin work units. */
  maxSteps: number;
  /** Array elements built, plus string characters / 4. */
  maxMemory: number;
  /** Wall-clock bound of one evaluation. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 1_000_000, maxMemory: 1_000_000, timeoutMs: 100 };

const NO_SLOTS: unknown[] = [];
const START: Position = Object.freeze({ line: 1, column: 1 });

export class Evaluation implements CallContext {
  private steps = 0;
  private memory = 0;
  private readonly deadline: number;
  /**
   * Values of `let` names and of predicate frames (`#`, `#index`, `#acc`), one slot each,
   * assigned at compile time: without recursion, a slot holds one live value at a time.
   */
  readonly slots: unknown[];
  /** The position of the builtin being called, where its charges and failures count. */
  at: Position = START;

  constructor(
    readonly env: MapValue,
    readonly limits: Limits,
    slotCount: number,
    private readonly parseNetwork: (text: string) => Network | undefined,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
    this.slots = slotCount ? new Array<unknown>(slotCount) : NO_SLOTS;
  }

  tick(units: number, pos: Position = this.at): void {
    const before = this.steps;
    this.steps += units;
    if (this.steps > this.limits.maxSteps) throw new ExprError(`evaluation exceeded the step budget (${this.limits.maxSteps})`, pos);
    if (before >>> 10 !== this.steps >>> 10 && Date.now() > this.deadline) throw new ExprError(`evaluation exceeded the time budget (${this.limits.timeoutMs} ms)`, pos);
  }

  charge(units: number, pos: Position = this.at): void {
    this.memory += units;
    if (this.memory > this.limits.maxMemory) throw new ExprError(`evaluation exceeded the memory budget (${this.limits.maxMemory} elements)`, pos);
  }

  network(text: string): Network | undefined {
    return this.parseNetwork(text);
  }

  fail(message: string): never {
    throw new ExprError(message, this.at);
  }
}
