/**
 * Recursive-descent parser with precedence climbing for expr-lang (v1.17 subset, see
 * docs/filtering-rules.md). Bounded: at most MAX_NODES nodes, MAX_NESTING recursion, and a tree
 * no higher than MAX_HEIGHT, so neither the parser nor the evaluator can exhaust the JS stack.
 */
import type { Node } from './ast.js';
import { BUILTIN_SIGNATURES } from './builtins.js';
import { ExprError, type Position } from './errors.js';
import { tokenize, type Token } from './lexer.js';

export const MAX_NODES = 10_000;
export const MAX_NESTING = 100;
export const MAX_HEIGHT = 1_000;

interface BinaryInfo {
  prec: number;
  right?: boolean;
}

const PIPE = 1;
const UNARY_NOT_OPERAND = 8;
const UNARY_SIGN_OPERAND = 10;
const BINARY: Record<string, BinaryInfo> = {
  or: { prec: 2 },
  '||': { prec: 2 },
  and: { prec: 3 },
  '&&': { prec: 3 },
  '==': { prec: 4 },
  '!=': { prec: 4 },
  '<': { prec: 4 },
  '>': { prec: 4 },
  '<=': { prec: 4 },
  '>=': { prec: 4 },
  in: { prec: 4 },
  matches: { prec: 4 },
  contains: { prec: 4 },
  startsWith: { prec: 4 },
  endsWith: { prec: 4 },
  '..': { prec: 5 },
  '+': { prec: 6 },
  '-': { prec: 6 },
  '*': { prec: 8 },
  '/': { prec: 8 },
  '%': { prec: 8 },
  '**': { prec: 10, right: true },
  '^': { prec: 10, right: true },
  '??': { prec: 11 },
};
const WORD_OPERATORS = new Set(['or', 'and', 'in', 'matches', 'contains', 'startsWith', 'endsWith']);
const NEGATABLE = new Set(['in', 'matches', 'contains', 'startsWith', 'endsWith']);
const ORDERING = new Set(['<', '>', '<=', '>=']);
const LOGICAL = new Set(['or', '||', 'and', '&&']);
const RESERVED = new Set(['true', 'false', 'nil', 'let', 'if', 'else', 'not', ...WORD_OPERATORS]);

export function parse(source: string): Node {
  const parser = new Parser(tokenize(source));
  const node = parser.parseSequence();
  parser.expectEnd();
  checkHeight(node);
  return node;
}

class Parser {
  private i = 0;
  private nodes = 0;
  private depth = 0;
  private closures = 0;
  private readonly parenthesised = new WeakSet<Node>();

  constructor(private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private peek(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }

  private isOp(text: string, t = this.tok): boolean {
    return t.kind === 'op' && t.text === text;
  }

  private isWord(text: string, t = this.tok): boolean {
    return t.kind === 'ident' && t.text === text;
  }

  private fail(message: string, t: Token = this.tok): never {
    throw new ExprError(message, t.pos);
  }

  private unexpected(): never {
    const t = this.tok;
    this.fail(t.kind === 'eof' ? 'unexpected end of expression' : `unexpected token ${describe(t)}`);
  }

  private expectOp(text: string): Token {
    if (!this.isOp(text)) {
      if (this.tok.kind === 'eof') this.fail(`unexpected end of expression, expected ${text}`);
      this.fail(`unexpected token ${describe(this.tok)}, expected ${text}`);
    }
    return this.tokens[this.i++]!;
  }

  expectEnd(): void {
    if (this.tok.kind !== 'eof') this.unexpected();
  }

  private node<N extends Node>(n: N): N {
    if (++this.nodes > MAX_NODES) this.fail(`expression too large: more than ${MAX_NODES} syntax nodes`);
    return n;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) this.fail(`expression nested too deeply (more than ${MAX_NESTING} levels)`);
  }

  parseSequence(): Node {
    const start = this.tok.pos;
    const items = [this.parseExpression()];
    while (this.isOp(';')) {
      this.i++;
      items.push(this.parseExpression());
    }
    return items.length === 1 ? items[0]! : this.node({ kind: 'sequence', pos: start, items });
  }

  parseExpression(): Node {
    this.enter();
    try {
      if (this.isWord('let')) return this.parseLet();
      if (this.isWord('if')) return this.parseIf();
      const test = this.parseBinary(PIPE);
      if (!this.isOp('?')) return test;
      const pos = this.tok.pos;
      this.i++;
      if (this.isOp(':')) {
        this.i++;
        return this.node({ kind: 'elvis', pos, test, otherwise: this.parseExpression() });
      }
      const then = this.parseExpression();
      this.expectOp(':');
      return this.node({ kind: 'conditional', pos, test, then, otherwise: this.parseExpression() });
    } finally {
      this.depth--;
    }
  }

  private parseLet(): Node {
    const pos = this.tok.pos;
    this.i++;
    const nameTok = this.tok;
    if (nameTok.kind !== 'ident' || RESERVED.has(nameTok.text)) this.fail('expected a variable name after let');
    if (BUILTIN_SIGNATURES[nameTok.text]) this.fail(`cannot redeclare builtin ${nameTok.text}`);
    this.i++;
    this.expectOp('=');
    const value = this.parseExpression();
    this.expectOp(';');
    const body = this.parseSequence();
    return this.node({ kind: 'let', pos, name: nameTok.text, value, body });
  }

  private parseIf(): Node {
    const pos = this.tok.pos;
    this.i++;
    const test = this.parseExpression();
    const then = this.parseBlock();
    if (!this.isWord('else')) this.fail('expected else');
    this.i++;
    const otherwise = this.isWord('if') ? this.parseIf() : this.parseBlock();
    return this.node({ kind: 'conditional', pos, test, then, otherwise });
  }

  private parseBlock(): Node {
    this.expectOp('{');
    const body = this.parseSequence();
    this.expectOp('}');
    return body;
  }

  private binaryAt(): { op: string; info: BinaryInfo; negate: boolean; width: number } | undefined {
    const t = this.tok;
    if (t.kind === 'ident' && t.text === 'not' && this.peek().kind === 'ident' && NEGATABLE.has(this.peek().text)) {
      return { op: this.peek().text, info: BINARY[this.peek().text]!, negate: true, width: 2 };
    }
    if (t.kind === 'op' || (t.kind === 'ident' && WORD_OPERATORS.has(t.text))) {
      const info = BINARY[t.text];
      if (info) return { op: t.text, info, negate: false, width: 1 };
    }
    return undefined;
  }

  private parseBinary(minPrec: number): Node {
    let left = this.parseUnary();
    for (;;) {
      if (this.isOp('|') && minPrec <= PIPE) {
        left = this.parsePipe(left);
        continue;
      }
      const b = this.binaryAt();
      if (!b || b.info.prec < minPrec) return left;
      const opTok = this.tok;
      this.i += b.width;
      const right = this.parseBinary(b.info.right ? b.info.prec : b.info.prec + 1);
      if (ORDERING.has(b.op) && this.binaryAt() && ORDERING.has(this.binaryAt()!.op)) {
        const ops = [b.op];
        const operands = [left, right];
        while (this.binaryAt() && ORDERING.has(this.binaryAt()!.op)) {
          ops.push(this.tok.text);
          this.i++;
          operands.push(this.parseBinary(b.info.prec + 1));
        }
        left = this.node({ kind: 'chainCompare', pos: left.pos, ops, operands });
        continue;
      }
      this.checkCoalesceMix(b.op, left, right, opTok);
      left = this.node({ kind: 'binary', pos: opTok.pos, op: b.op, left, right, negate: b.negate });
    }
  }

  private checkCoalesceMix(op: string, left: Node, right: Node, opTok: Token): void {
    const bare = (n: Node, ops: (o: string) => boolean) => n.kind === 'binary' && ops(n.op) && !this.parenthesised.has(n);
    if (LOGICAL.has(op) && (bare(left, (o) => o === '??') || bare(right, (o) => o === '??'))) {
      this.fail(`operator ${op} and ?? cannot be mixed without parentheses`, opTok);
    }
    if (op === '??' && (bare(left, (o) => LOGICAL.has(o)) || bare(right, (o) => LOGICAL.has(o)))) {
      this.fail('operator ?? and logical operators cannot be mixed without parentheses', opTok);
    }
  }

  private parsePipe(left: Node): Node {
    this.i++;
    const t = this.tok;
    if (t.kind !== 'ident' || !BUILTIN_SIGNATURES[t.text]) this.fail(t.kind === 'ident' ? `unknown func ${t.text}` : 'expected a function call after |');
    this.i++;
    const args = this.isOp('(') ? this.parseArgs(t.text, 1) : [];
    return this.makeCall(t, [left, ...args]);
  }

  private parseUnary(): Node {
    this.enter();
    try {
      const t = this.tok;
      if (this.isWord('not') || this.isOp('!')) {
        this.i++;
        return this.node({ kind: 'unary', pos: t.pos, op: 'not', operand: this.parseBinary(UNARY_NOT_OPERAND) });
      }
      if (this.isOp('-') || this.isOp('+')) {
        this.i++;
        return this.node({ kind: 'unary', pos: t.pos, op: t.text, operand: this.parseBinary(UNARY_SIGN_OPERAND) });
      }
      return this.parsePostfix(this.parsePrimary());
    } finally {
      this.depth--;
    }
  }

  private parsePostfix(object: Node): Node {
    let node = object;
    let optional = false;
    for (;;) {
      const t = this.tok;
      if (this.isOp('.') || this.isOp('?.')) {
        const isOptional = t.text === '?.';
        this.i++;
        if (isOptional && this.isOp('[')) {
          optional = true;
          node = this.parseIndex(node, true);
          continue;
        }
        const name = this.tok;
        if (name.kind !== 'ident') this.fail(`expected a property name after ${t.text}`);
        this.i++;
        optional ||= isOptional;
        if (this.isOp('(')) {
          const args = this.parseArgs('', 0);
          node = this.node({ kind: 'method', pos: name.pos, object: node, name: name.text, args });
        } else {
          const property = this.node({ kind: 'literal', pos: name.pos, value: name.text });
          node = this.node({ kind: 'member', pos: name.pos, object: node, property, optional: isOptional });
        }
        continue;
      }
      if (this.isOp('[')) {
        node = this.parseIndex(node, false);
        continue;
      }
      break;
    }
    return optional ? this.node({ kind: 'optionalChain', pos: object.pos, body: node }) : node;
  }

  private parseIndex(object: Node, optional: boolean): Node {
    const pos = this.expectOp('[').pos;
    if (this.isOp(':')) {
      this.i++;
      const to = this.isOp(']') ? null : this.parseExpression();
      this.expectOp(']');
      return this.node({ kind: 'slice', pos, object, from: null, to });
    }
    const index = this.parseExpression();
    if (this.isOp(':')) {
      this.i++;
      const to = this.isOp(']') ? null : this.parseExpression();
      this.expectOp(']');
      return this.node({ kind: 'slice', pos, object, from: index, to });
    }
    this.expectOp(']');
    return this.node({ kind: 'member', pos, object, property: index, optional });
  }

  private parseArgs(callee: string, offset: number): Node[] {
    this.expectOp('(');
    const predicateAt = BUILTIN_SIGNATURES[callee]?.predicate;
    const args: Node[] = [];
    while (!this.isOp(')')) {
      const at = args.length + offset;
      args.push(predicateAt !== undefined && at === predicateAt ? this.parseClosure() : this.parseExpression());
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      if (!this.isOp(')')) this.expectOp(')');
    }
    this.i++;
    return args;
  }

  private parseClosure(): Node {
    const pos = this.tok.pos;
    const braced = this.isOp('{');
    if (braced) this.i++;
    this.closures++;
    const body = this.parseSequence();
    this.closures--;
    if (braced) this.expectOp('}');
    return this.node({ kind: 'closure', pos, body });
  }

  private makeCall(nameTok: Token, args: Node[]): Node {
    const sig = BUILTIN_SIGNATURES[nameTok.text]!;
    if (args.length < sig.min || args.length > sig.max) {
      const expected = sig.min === sig.max ? `${sig.min}` : sig.max === Infinity ? `at least ${sig.min}` : `${sig.min} to ${sig.max}`;
      this.fail(`${nameTok.text}() takes ${expected} argument${sig.max === 1 ? '' : 's'}, got ${args.length}`, nameTok);
    }
    return this.node({ kind: 'call', pos: nameTok.pos, callee: nameTok.text, args });
  }

  private parsePrimary(): Node {
    const t = this.tok;
    switch (t.kind) {
      case 'int':
      case 'float':
        this.i++;
        return this.node({ kind: 'literal', pos: t.pos, value: t.value });
      case 'string':
        this.i++;
        return this.node({ kind: 'literal', pos: t.pos, value: t.text });
      case 'pointer':
        if (this.closures === 0) this.fail('cannot use pointer accessor outside predicate');
        this.i++;
        return this.node({ kind: 'pointer', pos: t.pos, name: t.text as '' | 'index' | 'acc' });
      case 'ident':
        return this.parseIdentifier(t);
      case 'op':
        break;
      default:
        this.unexpected();
    }
    if (this.isOp('(')) {
      this.i++;
      const inner = this.parseSequence();
      this.expectOp(')');
      this.parenthesised.add(inner);
      return inner;
    }
    if (this.isOp('[')) return this.parseArray();
    if (this.isOp('{')) return this.parseMap();
    if (this.isOp('.') && this.closures > 0 && this.peek().kind === 'ident') {
      // `.field` inside a predicate is `#.field`.
      this.i++;
      const name = this.tok;
      this.i++;
      const object = this.node({ kind: 'pointer', pos: t.pos, name: '' } as const);
      const property = this.node({ kind: 'literal', pos: name.pos, value: name.text });
      return this.node({ kind: 'member', pos: name.pos, object, property, optional: false });
    }
    this.unexpected();
  }

  private parseIdentifier(t: Token): Node {
    this.i++;
    switch (t.text) {
      case 'true':
        return this.node({ kind: 'literal', pos: t.pos, value: true });
      case 'false':
        return this.node({ kind: 'literal', pos: t.pos, value: false });
      case 'nil':
        return this.node({ kind: 'literal', pos: t.pos, value: null });
      case '$env':
        return this.node({ kind: 'env', pos: t.pos });
    }
    if (RESERVED.has(t.text)) {
      this.i--;
      this.unexpected();
    }
    if (this.isOp('(')) {
      if (!BUILTIN_SIGNATURES[t.text]) this.fail(`unknown func ${t.text}`, t);
      return this.makeCall(t, this.parseArgs(t.text, 0));
    }
    return this.node({ kind: 'ident', pos: t.pos, name: t.text });
  }

  private parseArray(): Node {
    const pos = this.expectOp('[').pos;
    const items: Node[] = [];
    while (!this.isOp(']')) {
      items.push(this.parseExpression());
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      if (!this.isOp(']')) this.expectOp(']');
    }
    this.i++;
    return this.node({ kind: 'array', pos, items });
  }

  private parseMap(): Node {
    const pos = this.expectOp('{').pos;
    const entries: { key: Node; value: Node }[] = [];
    while (!this.isOp('}')) {
      const k = this.tok;
      let key: Node;
      if (k.kind === 'ident' || k.kind === 'string' || k.kind === 'int') {
        this.i++;
        key = this.node({ kind: 'literal', pos: k.pos, value: k.kind === 'int' ? String(k.value) : k.text });
      } else if (this.isOp('(')) {
        this.i++;
        key = this.parseExpression();
        this.expectOp(')');
      } else {
        this.fail(k.kind === 'eof' ? 'unexpected end of expression' : `a map key must be a quoted string, an identifier or a parenthesised expression, not ${describe(k)}`);
      }
      this.expectOp(':');
      entries.push({ key, value: this.parseExpression() });
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      if (!this.isOp('}')) this.expectOp('}');
    }
    this.i++;
    return this.node({ kind: 'map', pos, entries });
  }
}

function describe(t: Token): string {
  if (t.kind === 'string') return `string ${JSON.stringify(t.text)}`;
  if (t.kind === 'pointer') return `#${t.text}`;
  return t.kind === 'int' || t.kind === 'float' ? t.text : `"${t.text}"`;
}

/** Rejects trees too high to evaluate recursively (long left-associative chains). Iterative. */
function checkHeight(root: Node): void {
  const stack: [Node, number][] = [[root, 1]];
  while (stack.length) {
    const [n, h] = stack.pop()!;
    if (h > MAX_HEIGHT) throw new ExprError(`expression too deep (more than ${MAX_HEIGHT} levels)`, n.pos);
    for (const child of children(n)) stack.push([child, h + 1]);
  }
}

export function children(n: Node): Node[] {
  switch (n.kind) {
    case 'literal':
    case 'ident':
    case 'env':
    case 'pointer':
      return [];
    case 'array':
      return n.items;
    case 'map':
      return n.entries.flatMap((e) => [e.key, e.value]);
    case 'unary':
      return [n.operand];
    case 'binary':
      return [n.left, n.right];
    case 'chainCompare':
      return n.operands;
    case 'member':
      return [n.object, n.property];
    case 'slice':
      return [n.object, ...(n.from ? [n.from] : []), ...(n.to ? [n.to] : [])];
    case 'call':
      return n.args;
    case 'method':
      return [n.object, ...n.args];
    case 'optionalChain':
    case 'closure':
      return [n.body];
    case 'conditional':
      return [n.test, n.then, n.otherwise];
    case 'elvis':
      return [n.test, n.otherwise];
    case 'let':
      return [n.value, n.body];
    case 'sequence':
      return n.items;
  }
}

export type { Position };
