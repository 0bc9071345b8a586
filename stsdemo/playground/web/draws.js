// The Playground's one random generator. Every random draw of a run (training and selection pairs, label noise,
// initial weights, batch order) comes from it, and every number it gives is the same in every JavaScript engine:
// it uses only 32-bit integer operations and the float64 operations IEEE 754 rounds exactly (+ - * /, Math.sqrt),
// never Math.log or Math.cos, whose last bits differ between engines (V8 and QuickJS disagree on them).
// - mix(x): Chris Wellons' triple32 integer hash, a bijection of 32-bit words (Math.imul and >>>).
// - A stream's keys: k1 = mix(seed + 0x9e3779b9 * (purpose + 1)), k2 = mix(k1 ^ 0x85ebca6b), purpose the position
//   of its name in PURPOSES; word i of the stream is mix(mix(i ^ k1) + k2), all modulo 2^32.
// - Uniform i in [0, 1) from words 2i and 2i + 1: ((w0 >>> 5) * 2^26 + (w1 >>> 6)) / 2^53, exact.
// - Normal i (Box-Muller) from uniforms 2i and 2i + 1: sqrt(-2 ln(1 - u0)) * cos(2 pi u1), with ln and cos the
//   polynomials below (within a few units in the last place of the true values, and the same bits everywhere).
// - A permutation of n: the positions sorted by the next n uniforms, ties by position.
// A plain script: it defines globalThis.PlaygroundDraws, so a Worker's importScripts, a page's <script>, Node's
// require and the Python side's embedded engines (stsdemo/playground/engine.py) all read it without a build step.
(function (root) {
  "use strict";
  const PURPOSES = ["init", "pairs", "noise", "batches"];
  const GOLDEN = 0x9e3779b9, SALT = 0x85ebca6b;

  function mix(x) {               // triple32 (Chris Wellons): a bijection of 32-bit words
    x >>>= 0;
    x ^= x >>> 17; x = Math.imul(x, 0xed5ad4bb);
    x ^= x >>> 11; x = Math.imul(x, 0xac4c1b51);
    x ^= x >>> 15; x = Math.imul(x, 0x31848bab);
    x ^= x >>> 14;
    return x >>> 0;
  }

  function streamKeys(seed, purpose) {
    const index = PURPOSES.indexOf(purpose);
    if (index < 0) throw new Error("unknown purpose " + purpose);
    const k1 = mix((seed + Math.imul(GOLDEN, index + 1)) >>> 0);
    return [k1, mix((k1 ^ SALT) >>> 0)];
  }

  // ln(y) for y in (0, 1]: y scaled by exact powers of two into [sqrt(1/2), sqrt(2)), then
  // ln y = e ln 2 + 2 atanh(s), s = (y - 1) / (y + 1), |s| < 0.172: the atanh series to s^23 is within 1e-17.
  const LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;   // fdlibm's split of ln 2
  const ATANH = Array.from({ length: 11 }, (_, i) => 1 / (2 * i + 3));              // 1/3, 1/5, ..., 1/23
  function ln(y) {
    if (!(y > 0)) return y === 0 ? -Infinity : NaN;
    let e = 0;
    while (y < 0.7071067811865476) { y *= 2; e -= 1; }
    while (y >= 1.4142135623730951) { y *= 0.5; e += 1; }
    const s = (y - 1) / (y + 1), s2 = s * s;
    let series = ATANH[ATANH.length - 1];
    for (let i = ATANH.length - 2; i >= 0; i--) series = ATANH[i] + s2 * series;
    return e * LN2_HI + (2 * s + 2 * s * s2 * series + e * LN2_LO);
  }

  // cos(2 pi t) for t in [0, 1): t = q/4 + r exactly (|r| <= 1/8), then cos or sin of x = 2 pi r (|x| <= pi/4) by
  // Taylor polynomials to x^18 and x^19, within 1e-17.
  const TWO_PI = 2 * Math.PI;
  const COS = [], SIN = [];
  for (let n = 1, factorial = 1; n <= 19; n++) {
    factorial *= n;                                           // exact: 19! < 2^53 * 2^10, a product of small primes
    (n % 2 === 0 ? COS : SIN).push((n % 4 === 2 || n % 4 === 3 ? -1 : 1) / factorial);
  }
  function cos2pi(t) {
    const q = Math.round(4 * t), x = (t - q / 4) * TWO_PI, x2 = x * x;
    let c = COS[COS.length - 1], s = SIN[SIN.length - 1];
    for (let i = COS.length - 2; i >= 0; i--) c = COS[i] + x2 * c;
    for (let i = SIN.length - 2; i >= 1; i--) s = SIN[i] + x2 * s;   // SIN[0] is x's own 1
    c = 1 + x2 * c; s = x + x * x2 * s;
    return [c, -s, -c, s][q % 4];
  }

  class Stream {
    constructor(seed, purpose) {
      [this.k1, this.k2] = streamKeys(seed, purpose);
      this.used = 0;
    }
    word(i) { return mix((mix((i ^ this.k1) >>> 0) + this.k2) >>> 0); }
    uniform(count) {             // the next `count` uniforms in [0, 1)
      const out = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const c = 2 * (this.used + i);
        out[i] = ((this.word(c >>> 0) >>> 5) * 67108864 + (this.word((c + 1) >>> 0) >>> 6)) / 9007199254740992;
      }
      this.used += count;
      return out;
    }
    normal(count) {              // the next `count` standard normals, two uniforms each
      const u = this.uniform(2 * count), out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = Math.sqrt(-2 * ln(1 - u[2 * i])) * cos2pi(u[2 * i + 1]);
      return out;
    }
    permutation(count) {         // 0 .. count-1 sorted by the next `count` uniforms (ties by position)
      const keys = this.uniform(count), order = new Int32Array(count);
      for (let i = 0; i < count; i++) order[i] = i;
      return order.sort((a, b) => keys[a] - keys[b] || a - b);
    }
  }

  root.PlaygroundDraws = { PURPOSES, mix, streamKeys, Stream, ln, cos2pi };
  if (typeof module !== "undefined") module.exports = root.PlaygroundDraws;
})(typeof globalThis !== "undefined" ? globalThis : this);
