// The Playground's one engine: the lockstep trainer the page, the app's API, MCP, the CLI and the benchmarks all run
// (stsdemo/playground/engine.py runs this file in an embedded V8 or QuickJS), in float64 with exact arithmetic.
// Twin 0 trains the loss with its buffer (k, x0), twin 1 the same loss at x0 = 0; both start from the same head and
// see the same pairs, noise and batches, every draw from the shared generator (draws.js). Each seed is independent,
// so a run may be split over several workers by seed and merged (mergeMeasurements). What it computes:
// heads (paper, cosine, mlp) with hand-written gradients of Smooth K2 / Translated ReLU on the straight-through
// clamp, Adam as torch's single-tensor loop, the selection set every SELECT_EVERY steps with each twin's best step, and the
// report set's readings at this step and at the best. A plain script (globalThis.PlaygroundEngine); needs draws.js and heads.js.
(function (root) {
  "use strict";
  const Draws = root.PlaygroundDraws || (typeof require !== "undefined" ? require("./draws.js") : null);
  const TWINS = 2;
  // What the Python side declares (stsdemo.playground.config.engine_declarations, site.json's "engine"): set once by
  // configure() before a run, never written here.
  let declared = null, SELECT_EVERY, TRAIN_SAMPLE, MAX_HISTORY, SELECTION_SHARE, SELECTION_MIN, SELECTION_MAX;
  let BETA1, BETA2, EPS;
  const READ_BY = {}, LOSSES = {};
  function configure(declarations) {
    declared = declarations;
    ({ select_every: SELECT_EVERY, train_sample: TRAIN_SAMPLE, max_history: MAX_HISTORY } = declarations);
    ({ share: SELECTION_SHARE, min: SELECTION_MIN, max: SELECTION_MAX } = declarations.selection);
    ({ beta1: BETA1, beta2: BETA2, eps: EPS } = declarations.adam);
    Object.assign(READ_BY, declarations.read_by);
    Object.assign(LOSSES, declarations.losses);
  }

  // ---- the compact data file (stsdemo/playground/compact.py): safetensors, int8 codes x float32 scales ----
  function loadCompact(buffer) {
    const bytes = new Uint8Array(buffer), view = new DataView(buffer);
    const headerLength = view.getUint32(0, true) + view.getUint32(4, true) * 4294967296;
    const header = JSON.parse(decodeUtf8(bytes.subarray(8, 8 + headerLength)));
    const meta = header.__metadata__ || {};
    if (meta.format !== "stsdemo-playground-1") throw new Error("not a Playground data file");
    const types = { I8: Int8Array, F32: Float32Array, F64: Float64Array, I32: Int32Array };
    const tensor = (name) => {
      const info = header[name], [start, end] = info.data_offsets;
      return { shape: info.shape, data: new types[info.dtype](buffer.slice(8 + headerLength + start, 8 + headerLength + end)) };
    };
    const codes = tensor("codes"), scales = tensor("scales").data;
    const [rows, dim] = codes.shape, vectors = new Float64Array(rows * dim);
    for (let r = 0; r < rows; r++) for (let j = 0; j < dim; j++) vectors[r * dim + j] = codes.data[r * dim + j] * scales[r];
    const part = (prefix) => ({ u: tensor(prefix + "_u").data, v: tensor(prefix + "_v").data, labels: tensor(prefix + "_labels").data });
    const scheme = JSON.parse(meta.scheme);
    return { name: meta.name, title: meta.title, model: meta.model, scheme, sentences: meta.sentences ? JSON.parse(meta.sentences) : null,
             vectors, dim, train: part("train"), held: part("held") };
  }

  // UTF-8 to a string: TextDecoder where the engine has one (browsers, Node), by hand where it has none (the
  // embedded V8 and QuickJS of stsdemo/playground/engine.py)
  function decodeUtf8(bytes) {
    if (typeof TextDecoder !== "undefined") return new TextDecoder().decode(bytes);
    const units = [];
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i];
      let code, extra;
      if (b < 0x80) { code = b; extra = 0; } else if (b < 0xe0) { code = b & 0x1f; extra = 1; }
      else if (b < 0xf0) { code = b & 0x0f; extra = 2; } else { code = b & 0x07; extra = 3; }
      for (let t = 1; t <= extra; t++) code = code * 64 + (bytes[i + t] & 0x3f);
      i += extra + 1;
      if (code < 0x10000) units.push(code);
      else units.push(0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff));
    }
    let text = "";
    for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode.apply(null, units.slice(i, i + 8192));
    return text;
  }

  // ---- small shared rules ----
  function spacedPositions(length, count) {   // stsdemo.data.pairs.spaced_positions: numpy's linspace, rounded, unique
    const n = Math.min(count, length), step = (length - 1) / (n - 1), out = [];
    for (let i = 0; i < n; i++) {
      const r = pyRound(n === 1 ? 0 : i === n - 1 ? length - 1 : i * step);
      if (!out.length || out[out.length - 1] !== r) out.push(r);
    }
    return Int32Array.from(out);
  }
  function splitSizes(pool, requested) {
    const selection = (train) => Math.min(SELECTION_MAX, Math.max(SELECTION_MIN, pyRound(SELECTION_SHARE * train)));
    const most = pool - selection(pool / (1 + SELECTION_SHARE));
    if (most < 1) throw new Error(`a pool of ${pool} pairs is too small for a selection set of ${SELECTION_MIN}`);
    const train = requested <= 0 ? most : Math.min(requested, most);
    return [train, Math.min(pool - train, selection(train))];
  }
  function pyRound(x) {                        // Python's round() and numpy's rint: halves to even
    return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x);
  }
  function makeScheme(scheme, d) {
    const nodes = scheme.categories.length;
    return { name: scheme.name, categories: scheme.categories, gap: d, low: 0, high: (nodes - 1) * d, nodes };
  }
  function nearestIndex(value, scheme) {
    const index = Math.floor(value / scheme.gap + 0.5);
    return Math.min(Math.max(index, 0), scheme.nodes - 1);
  }
  function clampThrough(p, scheme) {           // the straight-through clamp's value: p + (clamp(p) - p)
    return p + (Math.min(Math.max(p, scheme.low), scheme.high) - p);
  }

  // ---- metrics (stsdemo/playground/metrics.py) on one row of predictions ----
  function ranks(values, n) {
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : a - b));   // a total order
    const out = new Float64Array(n);
    for (let i = 0; i < n;) {
      let j = i;
      while (j + 1 < n && values[order[j + 1]] === values[order[i]]) j++;
      const rank = (i + j) / 2 + 1;
      for (let t = i; t <= j; t++) out[order[t]] = rank;
      i = j + 1;
    }
    return out;
  }
  const goldRanks = new WeakMap();   // a gold array's ranks: the same labels are read at every measurement
  function spearman(predictions, gold) {   // NaN when a prediction is NaN (a head that diverged), as scipy's
    const n = gold.length;
    for (let i = 0; i < n; i++) if (Number.isNaN(predictions[i])) return NaN;
    const a = ranks(predictions, n);
    if (!goldRanks.has(gold)) goldRanks.set(gold, ranks(gold, n));
    const b = goldRanks.get(gold);
    let ma = 0, mb = 0;
    for (let i = 0; i < n; i++) { ma += a[i]; mb += b[i]; }
    ma /= n; mb /= n;
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < n; i++) { const x = a[i] - ma, y = b[i] - mb; dot += x * y; na += x * x; nb += y * y; }
    return 100 * dot / (Math.sqrt(na) * Math.sqrt(nb));
  }
  function accuracy(predictions, gold, scheme) {
    let hits = 0;
    for (let i = 0; i < gold.length; i++) hits += nearestIndex(predictions[i], scheme) === nearestIndex(gold[i], scheme);
    return 100 * (hits / gold.length);
  }
  function meanError(predictions, gold, scheme) {
    let sum = 0;
    for (let i = 0; i < gold.length; i++) sum += Math.abs(Math.min(Math.max(predictions[i], scheme.low), scheme.high) - gold[i]);
    return sum / gold.length;
  }
  const METRIC = { spearman: (p, g) => spearman(p, g), accuracy, error: meanError };

  // ---- the heads (heads.js): parameters of one (seed, twin) in one Float64Array ----
  const Heads = root.PlaygroundHeads || (typeof require !== "undefined" ? require("./heads.js") : null);
  const { Features, HEADS, paperPredictMany } = Heads;

  // One training step of a seed's paper twins: the batch predicted, then feature by feature the batch's gradient
  // summed in registers and Adam's update made at once. The pairs are summed in batch order, as a pass that adds
  // pair after pair into a gradient array would: the same numbers, without writing and reading that array per pair.
  function paperTwinsStep(run, state, local, record) {
    const x = run.data.vectors, dim = run.dim, c = run.config, B = run.batch, train = run.data.train;
    const [w0, w1] = state.params, rowsA = run.rowsA, rowsB = run.rowsB, pulls0 = run.pulls0, pulls1 = run.pulls1;
    for (let n = 0; n < B; n++) {
      const position = state.train[local[n]];
      rowsA[n] = train.u[position] * dim; rowsB[n] = train.v[position] * dim;
    }
    paperPredictMany(w0, w1, x, dim, rowsA, rowsB, B, pulls0, pulls1);   // the predictions, then their pulls
    let pulled = 0;   // the pairs either twin pulls, moved to the front (a pair inside both buffers adds nothing)
    for (let n = 0; n < B; n++) {
      const label = state.labels[local[n]], p0 = pulls0[n], p1 = pulls1[n];
      const g0 = pull(c.loss, c.k, run.x0s[0], p0, label, run.scheme) / B;
      const g1 = pull(c.loss, c.k, run.x0s[1], p1, label, run.scheme) / B;
      if (record) record.push({ twin: 0, prediction: p0, label, pull: g0 * B }, { twin: 1, prediction: p1, label, pull: g1 * B });
      if (g0 === 0 && g1 === 0) continue;
      rowsA[pulled] = rowsA[n]; rowsB[pulled] = rowsB[n]; pulls0[pulled] = g0; pulls1[pulled] = g1; pulled++;
    }
    const adam = run.adamTerms(), [m0, m1] = state.m, [v0, v1] = state.v;
    for (let j = 0; j < dim; j++) {
      let gu0 = 0, gv0 = 0, gd0 = 0, gu1 = 0, gv1 = 0, gd1 = 0;   // each twin's gradient of its u, v, |u-v| weight j
      for (let n = 0; n < pulled; n++) {
        const xa = x[rowsA[n] + j], xb = x[rowsB[n] + j], d = Math.abs(xa - xb), g0 = pulls0[n], g1 = pulls1[n];
        gu0 += g0 * xa; gv0 += g0 * xb; gd0 += g0 * d;
        gu1 += g1 * xa; gv1 += g1 * xb; gd1 += g1 * d;
      }
      adamAt(adam, w0, m0, v0, j, gu0); adamAt(adam, w0, m0, v0, dim + j, gv0); adamAt(adam, w0, m0, v0, 2 * dim + j, gd0);
      adamAt(adam, w1, m1, v1, j, gu1); adamAt(adam, w1, m1, v1, dim + j, gv1); adamAt(adam, w1, m1, v1, 2 * dim + j, gd1);
    }
    let bias0 = 0, bias1 = 0;
    for (let n = 0; n < pulled; n++) { bias0 += pulls0[n]; bias1 += pulls1[n]; }
    adamAt(adam, w0, m0, v0, 3 * dim, bias0); adamAt(adam, w1, m1, v1, 3 * dim, bias1);
  }

  // torch.optim.Adam's single-tensor update of parameter i with gradient g, term by term
  function adamAt(terms, p, m, v, i, g) {
    m[i] = m[i] + terms.w1 * (g - m[i]);
    v[i] = v[i] * BETA2 + terms.w2 * g * g;
    p[i] = p[i] + terms.negativeStep * m[i] / (Math.sqrt(v[i]) / terms.bias2Root + EPS);
  }

  // d loss / d prediction of one pair (straight-through clamp), before the batch mean
  function pull(loss, k, x0, p, label, scheme) {
    const diff = clampThrough(p, scheme) - label, x = Math.abs(diff), sign = diff > 0 ? 1 : diff < 0 ? -1 : 0;
    if (!(x > x0)) return 0;
    const power = LOSSES[loss] && LOSSES[loss].power;
    if (!(power >= 1)) throw new Error(`the engine has no gradient for the loss ${loss}`);
    let slope = k * power;                          // d/dx of k (x - x0)^power, by products only
    for (let i = 1; i < power; i++) slope *= x - x0;
    return slope * sign;
  }

  // ---- one run: both twins of the given seeds ----
  class Run {
    constructor(config, data, options = {}) {
      if (!declared) throw new Error("PlaygroundEngine.configure(site.json's engine) must come before a run");
      if (!LOSSES[config.loss]) throw new Error(`unknown loss ${config.loss}`);
      this.config = config; this.data = data;
      this.seeds = options.seeds || Array.from({ length: config.seeds }, (_, i) => i);
      this.scheme = makeScheme(data.scheme, config.d);
      this.readBy = READ_BY[data.scheme.name] || "spearman";
      this.features = new Features(data, config.head);
      this.F = this.features.size; this.width = config.width;
      this.dim = data.dim; this.paper = config.head === "paper";
      this.head = HEADS[config.head];
      this.x0s = [config.x0, 0];
      const pool = data.train.labels.length;
      const [trainCount, selectionCount] = splitSizes(pool, config.train_pairs);
      this.pairs = trainCount; this.batch = Math.min(config.batch_size, trainCount);
      this.sample = spacedPositions(trainCount, TRAIN_SAMPLE);
      this.gold = Float64Array.from(data.held.labels, (y) => y * config.d);
      this.perSeed = this.seeds.map((seed) => this.seedState(seed, pool, trainCount, selectionCount));
      this.stepsDone = 0; this.history = []; this.lastStep = null;
      this.betaPowers = [1, 1]; this.terms = { step: 0 };
      this.scratchF = new Float64Array(this.F); this.scratchH = new Float64Array(Math.max(this.width, 1));
      this.active = { units: new Int32Array(Math.max(this.width, 1)), pulls: new Float64Array(Math.max(this.width, 1)) };   // mlp's backward
      this.rowsA = new Int32Array(this.batch); this.rowsB = new Int32Array(this.batch);
      this.pulls0 = new Float64Array(this.batch); this.pulls1 = new Float64Array(this.batch);
      this.select();
    }

    seedState(seed, pool, trainCount, selectionCount) {
      const drawn = new Draws.Stream(seed, "pairs").permutation(pool).subarray(0, trainCount + selectionCount);
      const train = Int32Array.from(drawn.subarray(0, trainCount)).sort();
      const selection = Int32Array.from(drawn.subarray(trainCount)).sort();
      const both = [...train, ...selection], c = this.config, scheme = this.scheme;
      let labels = Float64Array.from(both, (i) => this.data.train.labels[i] * c.d);
      if (c.noise > 0) {
        const noise = new Draws.Stream(seed, "noise").normal(labels.length);
        labels = labels.map((y, i) => Math.min(Math.max(y + c.noise * noise[i], scheme.low), scheme.high));
      }
      if (c.round_labels) labels = labels.map((y) => nearestIndex(y, scheme) * scheme.gap);
      const start = this.head.init(new Draws.Stream(seed, "init"), this.F, this.width, scheme);
      const size = start.length;
      return {
        seed, train, selection, labels: labels.subarray(0, trainCount), selectionLabels: labels.subarray(trainCount),
        params: [Float64Array.from(start), Float64Array.from(start)],
        m: [new Float64Array(size), new Float64Array(size)], v: [new Float64Array(size), new Float64Array(size)],
        grad: [new Float64Array(size), new Float64Array(size)],
        batches: new Draws.Stream(seed, "batches"), queue: new Int32Array(0), queued: 0,
        sampleLabels: Float64Array.from(this.sample, (local) => labels[local]),
        bestSelection: [-Infinity, -Infinity], bestStep: [0, 0], bestParams: [null, null],
        // the report set's predictions at the best step: computed when read (bestPredictionsOf), not at each new best
        bestPredictions: [new Float64Array(this.gold.length), new Float64Array(this.gold.length)],
        bestStale: [false, false],
        selected: { step: -1, values: [NaN, NaN] },   // the last selection measurement
      };
    }

    get finished() { return this.stepsDone >= this.config.steps; }

    nextBatch(state) {   // BatchOrder.take(1): epochs of fresh permutations, each cut to whole batches
      const B = this.batch, perEpoch = Math.floor(this.pairs / B) * B;
      if (state.queue.length - state.queued < B) {
        const rest = state.queue.subarray(state.queued), next = new Int32Array(rest.length + perEpoch);
        next.set(rest); next.set(state.batches.permutation(this.pairs).subarray(0, perEpoch), rest.length);
        state.queue = next; state.queued = 0;
      }
      const out = state.queue.subarray(state.queued, state.queued + B);
      state.queued += B;
      return out;
    }

    // Two heads' predictions (a seed's twins) of pairs (us[i], vs[i]) for i in `at` (default: every pair), into
    // out0 and out1 at the same places as `at`'s.
    predictTwins(w0, w1, us, vs, at, out0, out1) {
      const n = at ? at.length : us.length, dim = this.dim;
      if (this.paper) {
        const rowsA = new Int32Array(n), rowsB = new Int32Array(n);
        for (let i = 0; i < n; i++) { const pair = at ? at[i] : i; rowsA[i] = us[pair] * dim; rowsB[i] = vs[pair] * dim; }
        paperPredictMany(w0, w1, this.data.vectors, dim, rowsA, rowsB, n, out0, out1);
        return [out0, out1];
      }
      for (let i = 0; i < n; i++) {
        const pair = at ? at[i] : i, f = this.features.fill(this.scratchF, us[pair], vs[pair]);
        out0[i] = this.head.predict(w0, f, this.F, this.width, this.scratchH);
        out1[i] = this.head.predict(w1, f, this.F, this.width, this.scratchH);
      }
      return [out0, out1];
    }

    predictHeld(w0, w1) {   // two heads' predictions of the report set
      const n = this.gold.length, held = this.data.held;
      return this.predictTwins(w0, w1, held.u, held.v, null, new Float64Array(n), new Float64Array(n));
    }

    step(steps = 1) {
      const c = this.config, B = this.batch, record = [];
      for (let n = 0; n < steps; n++) {
        const last = n === steps - 1;
        for (const state of this.perSeed) {
          const local = this.nextBatch(state);
          if (this.paper) {
            paperTwinsStep(this, state, local, last && state === this.perSeed[0] ? record : null);
            continue;
          }
          state.grad[0].fill(0); state.grad[1].fill(0);
          for (let b = 0; b < B; b++) {
            const position = state.train[local[b]], label = state.labels[local[b]];
            const f = this.features.fill(this.scratchF, this.data.train.u[position], this.data.train.v[position]);
            for (let t = 0; t < TWINS; t++) {
              const p = this.head.predict(state.params[t], f, this.F, this.width, this.scratchH);
              const g = pull(c.loss, c.k, this.x0s[t], p, label, this.scheme) / B;
              if (last && state === this.perSeed[0]) record.push({ twin: t, prediction: p, label, pull: g * B });
              if (g !== 0) this.head.backward(state.params[t], f, this.F, this.width, g, state.grad[t], this.scratchH, this.active);
            }
          }
          for (let t = 0; t < TWINS; t++) this.adam(state, t);
        }
        this.stepsDone += 1;
        if (this.stepsDone % SELECT_EVERY === 0) this.select();
      }
      if (steps > 0) this.lastStep = record;
    }

    adamTerms() {   // the constants of Adam's step about to be made: β^t as running products, not pow (exact)
      const step = this.stepsDone + 1;
      if (this.terms.step !== step) {
        this.betaPowers[0] *= BETA1; this.betaPowers[1] *= BETA2;
        this.terms = { step, w1: 1 - BETA1, w2: 1 - BETA2, bias2Root: Math.sqrt(1 - this.betaPowers[1]),
                       negativeStep: -(this.config.lr / (1 - this.betaPowers[0])) };
      }
      return this.terms;
    }

    adam(state, t) {   // torch.optim.Adam's single-tensor loop over a head's parameters
      const terms = this.adamTerms(), p = state.params[t], m = state.m[t], v = state.v[t], g = state.grad[t];
      for (let i = 0; i < p.length; i++) adamAt(terms, p, m, v, i, g[i]);
    }

    selectionValues(state) {   // both twins' metric on the seed's selection set, [buffer, none]
      if (state.selected.step === this.stepsDone) return state.selected.values.slice();
      const n = state.selection.length, train = this.data.train;
      const [p0, p1] = this.predictTwins(state.params[0], state.params[1], train.u, train.v, state.selection,
                                         new Float64Array(n), new Float64Array(n));
      const values = [p0, p1].map((p) => METRIC[this.readBy](p, state.selectionLabels, this.scheme));
      state.selected = { step: this.stepsDone, values };   // the parameters change only with the next step
      return values.slice();
    }

    select() {   // a head that beats its best so far (a tie keeps the earlier step) takes this step as its best
      for (const state of this.perSeed) {
        const values = this.selectionValues(state);
        for (let t = 0; t < TWINS; t++) {
          const value = Number.isNaN(values[t]) ? -Infinity : values[t];
          if (value > state.bestSelection[t]) {
            state.bestSelection[t] = value; state.bestStep[t] = this.stepsDone;
            if (state.bestParams[t]) state.bestParams[t].set(state.params[t]);
            else state.bestParams[t] = Float64Array.from(state.params[t]);
            state.bestStale[t] = true;
          }
        }
      }
    }

    // Each twin's report-set predictions at its best step (zeros before it has one), computed for the bests that
    // changed since they were last read: most selections find a new best, few are ever read.
    bestPredictionsOf(state) {
      if (state.bestStale[0] || state.bestStale[1]) {
        const held = this.data.held, out = state.bestPredictions.map((row, t) => (state.bestStale[t] ? row : null));
        const [w0, w1] = [0, 1].map((t) => state.bestParams[t] || state.params[t]);
        this.predictTwins(w0, w1, held.u, held.v, null, out[0] || this.scratchHeld(), out[1] || this.scratchHeld());
        state.bestStale = [false, false];
      }
      return state.bestPredictions;
    }

    scratchHeld() { return (this.spareHeld = this.spareHeld || new Float64Array(this.gold.length)); }

    // Every head measured: per seed and twin, the report set's spearman, accuracy and error now and at the best
    // step, the share of training pairs inside the buffer (of x0, for both twins), fit and selection.
    measure(shown = 0) {
      const values = { spearman: [], accuracy: [], error: [], inside: [], selection: [], fit: [] };
      const best = { spearman: [], accuracy: [], error: [] }, bestSteps = [];
      const x0 = this.config.x0, shownAt = shown ? spacedPositions(this.gold.length, shown) : new Int32Array(0);
      let shownNow = null;
      for (const state of this.perSeed) {
        const row = {}, bestRow = {};
        for (const name in values) row[name] = [0, 0];
        for (const name in best) bestRow[name] = [0, 0];
        const heldNow = this.predictHeld(state.params[0], state.params[1]), heldBest = this.bestPredictionsOf(state);
        const m = this.sample.length, train = this.data.train, labels = state.sampleLabels;
        const sampled = this.predictTwins(state.params[0], state.params[1], train.u, train.v,
                                          Int32Array.from(this.sample, (local) => state.train[local]),
                                          new Float64Array(m), new Float64Array(m));
        row.selection = this.selectionValues(state);
        for (let t = 0; t < TWINS; t++) {
          const held = heldNow[t], predictions = sampled[t];
          if (state === this.perSeed[0]) (shownNow = shownNow || [])[t] = Float64Array.from(shownAt, (i) => held[i]);
          for (const name in best) {
            row[name][t] = METRIC[name](held, this.gold, this.scheme);
            bestRow[name][t] = METRIC[name](heldBest[t], this.gold, this.scheme);
          }
          let inside = 0;
          for (let i = 0; i < m; i++) inside += Math.abs(clampThrough(predictions[i], this.scheme) - labels[i]) < x0;
          row.inside[t] = 100 * (inside / m);
          row.fit[t] = METRIC[this.readBy](predictions, labels, this.scheme);
        }
        for (const name in values) values[name].push(row[name]);
        for (const name in best) best[name].push(bestRow[name]);
        bestSteps.push(state.bestStep.slice());
      }
      return { step: this.stepsDone, seeds: this.seeds.slice(), values, best, bestSteps, shown: shownNow, shownAt };
    }

    // What the dots draw, without measuring every head: the first seed's predictions of the `shown` spaced report
    // pairs now and at each twin's best step (the same numbers as measure's), and those steps.
    glance(shown) {
      const shownAt = spacedPositions(this.gold.length, shown), n = shownAt.length, held = this.data.held;
      const state = this.perSeed[0], [w0, w1] = state.params;
      const now = this.predictTwins(w0, w1, held.u, held.v, shownAt, new Float64Array(n), new Float64Array(n));
      let best;
      if (state.bestStale[0] || state.bestStale[1]) {
        const [b0, b1] = [0, 1].map((t) => state.bestParams[t] || state.params[t]);
        best = this.predictTwins(b0, b1, held.u, held.v, shownAt, new Float64Array(n), new Float64Array(n));
        best.forEach((row, t) => { if (!state.bestParams[t]) row.fill(0); });   // no best yet: measure's zeros
      } else best = state.bestPredictions.map((row) => Float64Array.from(shownAt, (i) => row[i]));
      return { step: this.stepsDone, shown: now, shownAt, best: { predictions: best, steps: state.bestStep.slice() } };
    }

    bestHead(twin) {   // the first seed's head of `twin` at its best step: what an export writes
      const state = this.perSeed[0];
      return { twin, seed: state.seed, step: state.bestStep[twin], params: state.bestParams[twin],
               selection: state.bestSelection[twin], head: this.config.head, width: this.width, dim: this.data.dim };
    }
  }

  // ---- seeds split over workers, merged back: one measurement of every seed ----
  function mergeMeasurements(parts) {
    const out = { step: parts[0].step, seeds: [], values: {}, best: {}, bestSteps: [], shown: null, shownAt: parts[0].shownAt };
    for (const part of parts) {
      out.seeds.push(...part.seeds); out.bestSteps.push(...part.bestSteps);
      for (const name in part.values) (out.values[name] = out.values[name] || []).push(...part.values[name]);
      for (const name in part.best) (out.best[name] = out.best[name] || []).push(...part.best[name]);
      out.shown = out.shown || part.shown;
    }
    return out;
  }

  // ---- over seeds: means, sd and the paired difference buffer - none with its verdict (stsdemo.paired) ----
  function nanMean(column) {
    const found = column.filter(Number.isFinite);
    return found.length ? found.reduce((a, b) => a + b, 0) / found.length : NaN;
  }
  function nanSd(column) {
    const found = column.filter(Number.isFinite), n = found.length;
    if (n < 2) return NaN;
    const mean = found.reduce((a, b) => a + b, 0) / n;
    return Math.sqrt(found.reduce((a, x) => a + (x - mean) * (x - mean), 0) / (n - 1));
  }
  function twinMeans(table) {   // {metric: [[buffer, none] per seed]} -> {metric: [mean buffer, mean none]}
    const out = {};
    for (const name in table) out[name] = [0, 1].map((t) => nanMean(table[name].map((row) => row[t])));
    return out;
  }

  class History {   // the curves' points: twins' means over seeds per measurement, every other older point dropped past MAX_HISTORY
    constructor() { this.points = []; }
    add(measurement) {
      if (this.points.length && this.points[this.points.length - 1].step === measurement.step) this.points.pop();
      const point = { step: measurement.step }, now = twinMeans(measurement.values), best = twinMeans(measurement.best);
      for (const name in now) point[name] = now[name];
      for (const name in best) point["best_" + name] = best[name];
      this.points.push(point);
      while (this.points.length > MAX_HISTORY) {
        const last = this.points[this.points.length - 1];
        this.points = this.points.slice(0, -1).filter((_, i) => i % 2 === 0).concat([last]);
      }
    }
  }

  root.PlaygroundEngine = { Run, History, loadCompact, mergeMeasurements, spacedPositions, splitSizes, makeScheme,
                            nearestIndex, clampThrough, pull, spearman, accuracy, meanError, nanMean, nanSd, twinMeans,
                            METRIC, READ_BY, LOSSES, TWINS, configure, declarations: () => declared,
                            get SELECT_EVERY() { return SELECT_EVERY; } };
  if (typeof module !== "undefined") module.exports = root.PlaygroundEngine;
})(typeof globalThis !== "undefined" ? globalThis : this);
