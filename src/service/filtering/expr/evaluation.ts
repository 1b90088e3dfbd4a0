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
const NO_ENV: MapValue = Object.freeze(Object.create(null) as MapValue);

/**
 * One per compiled program, reused by each of its runs (begin ... end): runs of one program
 * never overlap, as no builtin runs an expression.
 */
export class Evaluation implements CallContext {
  env: MapValue = NO_ENV;
  limits: Limits = DEFAULT_LIMITS;
  /**
   * Values of `let` names and of predicate frames (`#`, `#index`, `#acc`), one slot each,
   * assigned at compile time: without recursion, a slot holds one live value at a time.
   */
  readonly slots: unknown[];
  /** The position of the builtin being called, where its charges and failures count. */
  at: Position = START;
  private steps = 0;
  private memory = 0;
  private deadline = 0;

  constructor(
    slotCount: number,
    private readonly parseNetwork: (text: string) => Network | undefined,
  ) {
    this.slots = slotCount ? new Array<unknown>(slotCount) : NO_SLOTS;
  }

  begin(env: MapValue, limits: Limits): void {
    this.env = env;
    this.limits = limits;
    this.at = START;
    this.steps = 0;
    this.memory = 0;
    this.deadline = Date.now() + limits.timeoutMs;
  }

  /** Lets go of the run's values. */
  end(): void {
    this.env = NO_ENV;
    this.slots.fill(undefined);
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
