/** The syntax tree of an expression. Every node carries the position of its first token. */
import type { Position } from './errors.js';

export type Node =
  | { kind: 'literal'; pos: Position; value: unknown }
  | { kind: 'ident'; pos: Position; name: string }
  | { kind: 'env'; pos: Position }
  | { kind: 'pointer'; pos: Position; name: '' | 'index' | 'acc' }
  | { kind: 'array'; pos: Position; items: Node[] }
  | { kind: 'map'; pos: Position; entries: { key: Node; value: Node }[] }
  | { kind: 'unary'; pos: Position; op: string; operand: Node }
  | { kind: 'binary'; pos: Position; op: string; left: Node; right: Node; negate: boolean }
  | { kind: 'chainCompare'; pos: Position; ops: string[]; operands: Node[] }
  | { kind: 'member'; pos: Position; object: Node; property: Node; optional: boolean }
  | { kind: 'slice'; pos: Position; object: Node; from: Node | null; to: Node | null }
  | { kind: 'call'; pos: Position; callee: string; args: Node[] }
  | { kind: 'method'; pos: Position; object: Node; name: string; args: Node[] }
  | { kind: 'optionalChain'; pos: Position; body: Node }
  | { kind: 'closure'; pos: Position; body: Node }
  | { kind: 'conditional'; pos: Position; test: Node; then: Node; otherwise: Node }
  | { kind: 'elvis'; pos: Position; test: Node; otherwise: Node }
  | { kind: 'let'; pos: Position; name: string; value: Node; body: Node }
  | { kind: 'sequence'; pos: Position; items: Node[] };

export type NodeOf<K extends Node['kind']> = Extract<Node, { kind: K }>;
