// The Playground's one random generator: stsdemo/playground/draws.py specifies it; this is its JavaScript twin,
// bit for bit (32-bit words by Math.imul and >>>, uniforms with 53 random bits, Box-Muller normals, permutations
// as positions sorted by their uniform). A plain script: it defines globalThis.PlaygroundDraws, so a Worker's
// importScripts, a page's <script> and Node's require all read it without a build step.
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
      for (let i = 0; i < count; i++) out[i] = Math.sqrt(-2 * Math.log(1 - u[2 * i])) * Math.cos(2 * Math.PI * u[2 * i + 1]);
      return out;
    }
    permutation(count) {         // 0 .. count-1 sorted by the next `count` uniforms (ties by position)
      const keys = this.uniform(count), order = new Int32Array(count);
      for (let i = 0; i < count; i++) order[i] = i;
      return order.sort((a, b) => keys[a] - keys[b] || a - b);
    }
  }

  root.PlaygroundDraws = { PURPOSES, mix, streamKeys, Stream };
  if (typeof module !== "undefined") module.exports = root.PlaygroundDraws;
})(typeof globalThis !== "undefined" ? globalThis : this);
