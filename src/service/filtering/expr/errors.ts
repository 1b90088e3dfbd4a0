/** The one error type of the expression language: a message and a `line:column` position. */
export interface Position {
  line: number;
  column: number;
}

export class ExprError extends Error {
  override readonly name = 'ExprError';
  /** The message without the position suffix. */
  readonly reason: string;
  readonly line: number;
  readonly column: number;

  constructor(reason: string, pos: Position = { line: 1, column: 1 }) {
    super(`${reason} (${pos.line}:${pos.column})`);
    this.reason = reason;
    this.line = pos.line;
    this.column = pos.column;
  }
}
