// The Playground's heads (the one implementation: the page and the Python side run this file): what a head reads of a pair (Features),
// each head's parameters in one Float64Array per (seed, twin) with its start, prediction and hand-written gradient
// (HEADS), and the paper head's fused prediction of both twins straight from the sentence vectors
// (paperPredictMany). A plain script (globalThis.PlaygroundHeads); engine.js trains with it.
(function (root) {
  "use strict";

  class Features {   // what a head reads of pair (u, v): [u, v, |u-v|], or cos(u, v) for the cosine head
    constructor(data, head) {
      this.vectors = data.vectors; this.dim = data.dim; this.cosine = head === "cosine";
      this.size = this.cosine ? 1 : 3 * this.dim;
      if (this.cosine) {
        this.norms = new Float64Array(this.vectors.length / this.dim);
        for (let r = 0; r < this.norms.length; r++) {
          let s = 0;
          for (let j = 0; j < this.dim; j++) s += this.vectors[r * this.dim + j] * this.vectors[r * this.dim + j];
          this.norms[r] = Math.sqrt(s);
        }
      }
    }
    fill(out, u, v) {
      const x = this.vectors, dim = this.dim, a = u * dim, b = v * dim;
      if (this.cosine) {
        let dot = 0;
        for (let j = 0; j < dim; j++) dot += x[a + j] * x[b + j];
        out[0] = dot / Math.max(this.norms[u] * this.norms[v], 1e-8);
        return out;
      }
      for (let j = 0; j < dim; j++) {
        const p = x[a + j], q = x[b + j];
        out[j] = p; out[dim + j] = q; out[2 * dim + j] = Math.abs(p - q);
      }
      return out;
    }
  }

  const HEADS = {
    paper: {
      size: (F) => F + 1,
      init(stream, F, width, scheme) {
        const p = new Float64Array(F + 1), w = stream.uniform(F), bound = 1 / Math.sqrt(F);
        for (let i = 0; i < F; i++) p[i] = (w[i] * 2 - 1) * bound;
        p[F] = scheme.high / 2;
        return p;
      },
      predict(p, f, F) { let s = 0; for (let i = 0; i < F; i++) s += f[i] * p[i]; return s + p[F]; },
      backward(p, f, F, width, g, grad) { for (let i = 0; i < F; i++) grad[i] += g * f[i]; grad[F] += g; },
    },
    cosine: {
      size: () => 2,
      init(stream, F, width, scheme) { return Float64Array.from([scheme.high - scheme.low, scheme.low]); },
      predict(p, f) { return p[0] * f[0] + p[1]; },
      backward(p, f, F, width, g, grad) { grad[0] += g * f[0]; grad[1] += g; },
    },
    mlp: {   // layout: W1 (F x width, row by row), b1 (width), w2 (width), b2
      size: (F, width) => F * width + 2 * width + 1,
      init(stream, F, width, scheme) {
        const p = new Float64Array(F * width + 2 * width + 1), b1 = 1 / Math.sqrt(F), b2 = 1 / Math.sqrt(width);
        const w1 = stream.uniform(F * width), h = stream.uniform(width), w2 = stream.uniform(width);
        for (let i = 0; i < F * width; i++) p[i] = (w1[i] * 2 - 1) * b1;
        for (let i = 0; i < width; i++) { p[F * width + i] = (h[i] * 2 - 1) * b1; p[F * width + width + i] = (w2[i] * 2 - 1) * b2; }
        p[F * width + 2 * width] = scheme.high / 2;
        return p;
      },
      // Unit k's sum runs over the features in order, a zero feature adding nothing; four features at a time keep
      // the running sum in a register (the same additions in the same order).
      hidden(p, f, F, width, out) {
        const row = (i) => {
          const fi = f[i], at = i * width;
          if (fi !== 0) for (let k = 0; k < width; k++) out[k] += fi * p[at + k];
        };
        for (let k = 0; k < width; k++) out[k] = 0;
        let i = 0;
        for (; i + 4 <= F; i += 4) {
          const f0 = f[i], f1 = f[i + 1], f2 = f[i + 2], f3 = f[i + 3];
          if (f0 === 0 || f1 === 0 || f2 === 0 || f3 === 0) { row(i); row(i + 1); row(i + 2); row(i + 3); continue; }
          const r0 = i * width, r1 = r0 + width, r2 = r1 + width, r3 = r2 + width;
          for (let k = 0; k < width; k++) {
            let s = out[k];
            s += f0 * p[r0 + k]; s += f1 * p[r1 + k]; s += f2 * p[r2 + k]; s += f3 * p[r3 + k];
            out[k] = s;
          }
        }
        for (; i < F; i++) row(i);
        for (let k = 0; k < width; k++) out[k] = Math.max(out[k] + p[F * width + k], 0);
        return out;
      },
      predict(p, f, F, width, scratch) {
        const h = this.hidden(p, f, F, width, scratch);
        let s = 0;
        for (let k = 0; k < width; k++) s += h[k] * p[F * width + width + k];
        return s + p[F * width + 2 * width];
      },
      // `hidden` holds the hidden layer that predict() just computed for (p, f): it is not computed again. Each
      // weight's gradient takes one term per pair, so going row by row over the active units (those that pass a
      // gradient) gives the same sums as unit by unit, reading f and the gradient rows in memory order.
      backward(p, f, F, width, g, grad, hidden, active) {
        const w2 = F * width + width;
        let count = 0;
        for (let k = 0; k < width; k++) {
          grad[w2 + k] += g * hidden[k];
          const gh = hidden[k] > 0 ? g * p[w2 + k] : 0;
          if (gh === 0) continue;
          grad[F * width + k] += gh;
          active.units[count] = k; active.pulls[count] = gh; count++;
        }
        const units = active.units, pulls = active.pulls;
        for (let i = 0; i < F; i++) {
          const fi = f[i], row = i * width;
          for (let a = 0; a < count; a++) grad[row + units[a]] += pulls[a] * fi;
        }
        grad[F * width + 2 * width] += g;
      },
    },
  };

  // The paper head reads [u, v, |u-v|] straight from the sentence vectors (pair i's rows start at rowsA[i] and
  // rowsB[i]): no feature row is written. Both twins (w0, w1) share one pass over the vectors, and pairs go two at a
  // time, each weight read once for both. Sums differ from torch's only in order.
  function paperPredictMany(w0, w1, x, dim, rowsA, rowsB, n, out0, out1) {
    const bias0 = w0[3 * dim], bias1 = w1[3 * dim];
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const a = rowsA[i], b = rowsB[i], a2 = rowsA[i + 1], b2 = rowsB[i + 1];
      let s0 = 0, s1 = 0, t0 = 0, t1 = 0;
      for (let j = 0; j < dim; j++) {
        const u0 = w0[j], v0 = w0[dim + j], d0 = w0[2 * dim + j], u1 = w1[j], v1 = w1[dim + j], d1 = w1[2 * dim + j];
        const xa = x[a + j], xb = x[b + j], d = Math.abs(xa - xb), ya = x[a2 + j], yb = x[b2 + j], e = Math.abs(ya - yb);
        s0 += xa * u0 + xb * v0 + d * d0; s1 += xa * u1 + xb * v1 + d * d1;
        t0 += ya * u0 + yb * v0 + e * d0; t1 += ya * u1 + yb * v1 + e * d1;
      }
      out0[i] = s0 + bias0; out1[i] = s1 + bias1; out0[i + 1] = t0 + bias0; out1[i + 1] = t1 + bias1;
    }
    if (i < n) {
      const a = rowsA[i], b = rowsB[i];
      let s0 = 0, s1 = 0;
      for (let j = 0; j < dim; j++) {
        const xa = x[a + j], xb = x[b + j], d = Math.abs(xa - xb);
        s0 += xa * w0[j] + xb * w0[dim + j] + d * w0[2 * dim + j];
        s1 += xa * w1[j] + xb * w1[dim + j] + d * w1[2 * dim + j];
      }
      out0[i] = s0 + bias0; out1[i] = s1 + bias1;
    }
  }

  root.PlaygroundHeads = { Features, HEADS, paperPredictMany };
  if (typeof module !== "undefined") module.exports = root.PlaygroundHeads;
})(typeof globalThis !== "undefined" ? globalThis : this);
