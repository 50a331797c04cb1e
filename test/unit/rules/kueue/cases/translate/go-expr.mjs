// A small reader for the Go expressions Kueue's preemption tests are written in: builder
// chains, composite literals, strings, numbers, unary and binary arithmetic.
export function tokenize(src) {
  const toks = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') { i = src.indexOf('*/', i + 2) + 2; continue; }
    if (c === '"') {
      let j = i + 1; let s = '';
      while (src[j] !== '"') { if (src[j] === '\\') { s += JSON.parse('"' + src[j] + src[j + 1] + '"'); j += 2; } else s += src[j++]; }
      toks.push({ t: 'str', v: s }); i = j + 1; continue;
    }
    if (c === '`') { const j = src.indexOf('`', i + 1); toks.push({ t: 'str', v: src.slice(i + 1, j) }); i = j + 1; continue; }
    if (/[0-9]/.test(c)) { let j = i; while (/[0-9_.xa-fA-F]/.test(src[j])) j++; toks.push({ t: 'num', v: Number(src.slice(i, j).replace(/_/g, '')) }); i = j; continue; }
    if (/[A-Za-z_]/.test(c)) { let j = i; while (/[A-Za-z0-9_]/.test(src[j])) j++; toks.push({ t: 'id', v: src.slice(i, j) }); i = j; continue; }
    if (src.startsWith(':=', i)) { toks.push({ t: 'p', v: ':=' }); i += 2; continue; }
    toks.push({ t: 'p', v: c }); i++;
  }
  return toks;
}

export class Parser {
  constructor(toks, pos = 0) { this.toks = toks; this.pos = pos; }
  peek(k = 0) { return this.toks[this.pos + k]; }
  isP(v, k = 0) { const t = this.peek(k); return t && t.t === 'p' && t.v === v; }
  eat(v) { if (!this.isP(v)) throw new Error(`expected ${v} at token ${this.pos}: ${JSON.stringify(this.toks.slice(this.pos, this.pos + 8))}`); this.pos++; }
  expr() {
    let l = this.unary();
    while (this.isP('*') || this.isP('+') || this.isP('-') || this.isP('/')) { const op = this.peek().v; this.pos++; const r = this.unary(); l = { k: 'bin', op, l, r }; }
    return l;
  }
  unary() {
    if (this.isP('*') || this.isP('&') || this.isP('-')) { const op = this.peek().v; this.pos++; return { k: 'unary', op, x: this.unary() }; }
    return this.postfix(this.primary());
  }
  // A type written before a composite literal: []T, []*T, map[K]V, pkg.T, T.
  typeName() {
    let s = '';
    for (;;) {
      if (this.isP('[')) { this.pos++; if (this.isP(']')) { this.pos++; s += '[]'; continue; } const k = this.typeName(); this.eat(']'); s += `[${k}]`; continue; }
      if (this.isP('*')) { this.pos++; s += '*'; continue; }
      const t = this.peek();
      if (t.t === 'id' && t.v === 'map') { this.pos++; s += 'map'; continue; }
      if (t.t === 'id' && t.v === 'struct') { this.pos++; this.skipBraces(); s += 'struct'; return s; }
      if (t.t === 'id') { this.pos++; s += t.v; while (this.isP('.') && this.peek(1).t === 'id') { this.pos++; s += '.' + this.peek().v; this.pos++; } return s; }
      throw new Error(`type expected at ${this.pos}`);
    }
  }
  skipBraces() { this.eat('{'); let d = 1; while (d > 0) { const t = this.peek(); this.pos++; if (t.t === 'p' && t.v === '{') d++; if (t.t === 'p' && t.v === '}') d--; } }
  primary() {
    const t = this.peek();
    if (t.t === 'str') { this.pos++; return { k: 'str', v: t.v }; }
    if (t.t === 'num') { this.pos++; return { k: 'num', v: t.v }; }
    if (this.isP('(')) { this.pos++; const e = this.expr(); this.eat(')'); return e; }
    if (this.isP('[') || (t.t === 'id' && t.v === 'map')) { const type = this.typeName(); return this.lit(type); }
    if (this.isP('{')) return this.lit(null);
    if (t.t === 'id' && t.v === 'func') throw new Error('func literal');
    if (t.t === 'id') { this.pos++; return { k: 'id', name: t.v }; }
    throw new Error(`unexpected ${JSON.stringify(t)} at ${this.pos}`);
  }
  postfix(x) {
    for (;;) {
      if (this.isP('.')) { this.pos++; const name = this.peek().v; this.pos++; x = { k: 'sel', x, name }; continue; }
      if (this.isP('(')) {
        this.pos++; const args = [];
        while (!this.isP(')')) { args.push(this.expr()); if (this.isP(',')) this.pos++; if (this.isP('.') && this.isP('.', 1)) this.pos += 3; }
        this.pos++; x = { k: 'call', fn: x, args }; continue;
      }
      if (this.isP('[') && x.k === 'sel') { // generic instantiation such as ptr.To[int32]
        this.pos++; this.typeName(); this.eat(']'); continue;
      }
      if (this.isP('{') && (x.k === 'id' || x.k === 'sel') && /^[A-Z]/.test(x.name ?? '') ) { return this.lit(qual(x)); }
      return x;
    }
  }
  lit(type) {
    this.eat('{'); const elems = [];
    while (!this.isP('}')) {
      let key = null; let value;
      if (this.isP('{')) value = this.lit(null); else value = this.expr();
      if (this.isP(':')) { this.pos++; key = value; value = this.isP('{') ? this.lit(null) : this.expr(); }
      elems.push({ key, value });
      if (this.isP(',')) this.pos++;
    }
    this.pos++;
    return { k: 'lit', type, elems };
  }
}

export function qual(x) { return x.k === 'id' ? x.name : x.k === 'sel' ? `${qual(x.x)}.${x.name}` : '?'; }

/** Flatten `root(args).m1(a).m2(b)` into [{name,args}...] with the root first (name of the root call or id). */
export function chain(e) {
  const out = [];
  while (e) {
    if (e.k === 'unary' && (e.op === '*' || e.op === '&')) { e = e.x; continue; }
    if (e.k === 'call' && e.fn.k === 'sel') {
      const inner = e.fn.x;
      // pkg.Func(args) as a root: the selector's target is a bare package identifier.
      if (inner.k === 'id' && /^[a-z]/.test(inner.name) && /^(utiltesting|utiltestingapi|flavorassigner|kueue|corev1|metav1|resource|ptr)/.test(inner.name)) { out.unshift({ name: e.fn.name, args: e.args, pkg: inner.name }); return out; }
      out.unshift({ name: e.fn.name, args: e.args }); e = inner; continue;
    }
    if (e.k === 'call' && e.fn.k === 'id') { out.unshift({ name: e.fn.name, args: e.args }); return out; }
    if (e.k === 'id') { out.unshift({ name: e.name, args: null, ref: true }); return out; }
    if (e.k === 'sel') { out.unshift({ name: qual(e), args: null, ref: true }); return out; }
    out.unshift({ name: '?', node: e }); return out;
  }
  return out;
}
