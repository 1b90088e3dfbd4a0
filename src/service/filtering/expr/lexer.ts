/** Turns expression text into tokens; literals are decoded here (ints as int64 BigInt). */
import { ExprError, type Position } from './errors.js';

export type TokenKind = 'int' | 'float' | 'string' | 'ident' | 'pointer' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Operator text, identifier name, pointer name ('' | 'index' | 'acc'), or decoded string. */
  text: string;
  value?: bigint | number;
  pos: Position;
}

const OPERATORS = ['**', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '..', '<', '>', '+', '-', '*', '/', '%', '^', '!', '|', '?', ':', ';', ',', '.', '=', '(', ')', '[', ']', '{', '}'];
const MAX_INT64 = (1n << 63n) - 1n;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isIdentStart = (c: string | undefined): boolean => c !== undefined && (/[A-Za-z_$]/.test(c) || c.charCodeAt(0) > 127 && /\p{L}/u.test(c));
const isIdentPart = (c: string | undefined): boolean => c !== undefined && (isIdentStart(c) || isDigit(c));

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number): Position => ({ line, column: at - lineStart + 1 });
  const fail = (msg: string, at: number): never => {
    throw new ExprError(msg, pos(at));
  };

  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const start = i;
      i += 2;
      while (i < src.length && !(src[i] === '*' && src[i + 1] === '/')) {
        if (src[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= src.length) fail('unterminated comment', start);
      i += 2;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      i = lexNumber(src, i, tokens, pos(start), fail);
      continue;
    }
    if (c === '"' || c === "'") {
      const [text, end] = lexQuoted(src, i, fail);
      tokens.push({ kind: 'string', text, pos: pos(start) });
      i = end;
      continue;
    }
    if (c === '`') {
      let text = '';
      i++;
      for (;;) {
        if (i >= src.length) fail('literal not terminated', start);
        if (src[i] === '`') {
          if (src[i + 1] === '`') {
            text += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (src[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
        text += src[i];
        i++;
      }
      tokens.push({ kind: 'string', text, pos: pos(start) });
      continue;
    }
    if (c === '#') {
      i++;
      let name = '';
      while (isIdentPart(src[i])) name += src[i++];
      if (name !== '' && name !== 'index' && name !== 'acc') fail(`unknown pointer #${name}`, start);
      tokens.push({ kind: 'pointer', text: name, pos: pos(start) });
      continue;
    }
    if (isIdentStart(c)) {
      let name = '';
      while (i < src.length && isIdentPart(src[i])) name += src[i++];
      tokens.push({ kind: 'ident', text: name, pos: pos(start) });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) fail(`unrecognized character: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`, start);
    tokens.push({ kind: 'op', text: op!, pos: pos(start) });
    i += op!.length;
  }
  tokens.push({ kind: 'eof', text: '', pos: pos(i) });
  return tokens;
}

function lexNumber(src: string, i: number, tokens: Token[], at: Position, fail: (m: string, at: number) => never): number {
  const start = i;
  const prefix = src.slice(i, i + 2).toLowerCase();
  if (prefix === '0x' || prefix === '0o' || prefix === '0b') {
    i += 2;
    const digit = prefix === '0x' ? /[0-9a-fA-F_]/ : prefix === '0o' ? /[0-7_]/ : /[01_]/;
    while (i < src.length && digit.test(src[i]!)) i++;
    const body = src.slice(start + 2, i);
    if (!/^_?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$/.test(body) || isIdentPart(src[i])) fail(`invalid number literal ${src.slice(start, i + 1)}`, start);
    tokens.push({ kind: 'int', text: src.slice(start, i), value: checkInt(BigInt(prefix + body.replace(/_/g, '')), start, fail), pos: at });
    return i;
  }
  while (isDigit(src[i]) || src[i] === '_') i++;
  let isFloat = false;
  if (src[i] === '.' && src[i + 1] !== '.' && !isIdentStart(src[i + 1])) {
    isFloat = true;
    i++;
    while (isDigit(src[i]) || src[i] === '_') i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (isDigit(src[j])) {
      isFloat = true;
      i = j;
      while (isDigit(src[i])) i++;
    }
  }
  const text = src.slice(start, i);
  if (isIdentPart(src[i]) || /__|_$|_\.|\._/.test(text)) fail(`invalid number literal ${src.slice(start, i + 1)}`, start);
  const clean = text.replace(/_/g, '');
  if (isFloat) {
    tokens.push({ kind: 'float', text, value: Number(clean), pos: at });
  } else if (clean.length > 1 && clean[0] === '0') {
    if (!/^[0-7]+$/.test(clean)) fail(`invalid number literal ${text}`, start);
    tokens.push({ kind: 'int', text, value: checkInt(BigInt('0o' + clean.slice(1)), start, fail), pos: at });
  } else {
    tokens.push({ kind: 'int', text, value: checkInt(BigInt(clean), start, fail), pos: at });
  }
  return i;
}

function checkInt(v: bigint, at: number, fail: (m: string, at: number) => never): bigint {
  if (v > MAX_INT64) fail('integer literal out of range (int64)', at);
  return v;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

function lexQuoted(src: string, i: number, fail: (m: string, at: number) => never): [string, number] {
  const quote = src[i]!;
  const start = i;
  i++;
  let out = '';
  for (;;) {
    const c = src[i];
    if (c === undefined || c === '\n') fail('literal not terminated', start);
    i++;
    if (c === quote) return [out, i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = src[i];
    if (e === undefined) fail('literal not terminated', start);
    i++;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    let hex: string | undefined;
    if (e === 'x') hex = src.slice(i, (i += 2));
    else if (e === 'u' && src[i] === '{') {
      const end = src.indexOf('}', i);
      if (end < 0) fail('invalid escape sequence', i - 2);
      hex = src.slice(i + 1, end);
      i = end + 1;
    } else if (e === 'u') hex = src.slice(i, (i += 4));
    else if (e === 'U') hex = src.slice(i, (i += 8));
    else if (e >= '0' && e <= '7') {
      const oct = src.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) fail('invalid escape sequence', i - 2);
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
      continue;
    } else fail('invalid escape sequence', i - 2);
    if (!hex || !/^[0-9a-fA-F]+$/.test(hex) || hex.length > 8) fail('invalid escape sequence', i - 2);
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) fail('invalid escape sequence: invalid Unicode code point', i - 2);
    out += String.fromCodePoint(code);
  }
}
