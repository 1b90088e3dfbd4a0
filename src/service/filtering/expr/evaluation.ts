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
  /** The same variables as `env`, by dotted name, when the caller has them so (Tables.flatNames). */
  flat: object | undefined = undefined;
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
  /** When the time budget runs out; 0 until the first check (most runs never need the clock). */
  private deadline = 0;

  constructor(
    slotCount: number,
    private readonly parseNetwork: (text: string) => Network | undefined,
  ) {
    this.slots = slotCount ? new Array<unknown>(slotCount) : NO_SLOTS;
  }

  begin(env: MapValue, limits: Limits, flat?: object): void {
    this.env = env;
    this.flat = flat;
    this.limits = limits;
    this.at = START;
    this.steps = 0;
    this.memory = 0;
    this.deadline = 0;
  }

  /** Lets go of the run's values. */
  end(): void {
    this.env = NO_ENV;
    this.flat = undefined;
    this.slots.fill(undefined);
  }

  tick(units: number, pos: Position = this.at): void {
    const before = this.steps;
    this.steps += units;
    if (this.steps > this.limits.maxSteps) throw new ExprError(`evaluation exceeded the step budget (${this.limits.maxSteps})`, pos);
    if (before >>> 10 !== this.steps >>> 10) this.checkTime(pos);
  }

  /**
   * Every 1,024 steps. The clock starts at the first check, not in begin(): reading it costs
   * more than most runs (a few dozen steps), and the steps before it take microseconds.
   */
  private checkTime(pos: Position): void {
    const now = Date.now();
    if (this.deadline === 0) this.deadline = now + this.limits.timeoutMs;
    if (now > this.deadline) throw new ExprError(`evaluation exceeded the time budget (${this.limits.timeoutMs} ms)`, pos);
  }

  /** One step at each position, in order: tick() for each, in one addition when no budget is near. */
  tickEach(positions: readonly Position[]): void {
    const after = this.steps + positions.length;
    if (after <= this.limits.maxSteps && this.steps >>> 10 === after >>> 10) {
      this.steps = after;
      return;
    }
    for (const pos of positions) this.tick(1, pos);
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
