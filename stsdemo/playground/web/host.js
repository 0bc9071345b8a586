// The page's engine driven from outside a page: stsdemo/playground/engine.py runs draws.js, heads.js, engine.js and
// this file in an embedded JavaScript engine (V8 through mini-racer, or QuickJS) and calls these functions with
// JSON text, so the API, MCP, the command line, the benchmarks and the tests train with the page's own code.
// Answers are JSON text too: JSON.stringify writes each float64 in its shortest exact form (NaN as null).
(function (root) {
  "use strict";
  const Engine = root.PlaygroundEngine;
  const data = new Map(), runs = new Map();
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const SIXES = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) SIXES[ALPHABET.charCodeAt(i)] = i;

  function fromBase64(text) {   // the embedded engines have no atob
    const clean = text.replace(/=+$/, ""), out = new Uint8Array(Math.floor(clean.length * 3 / 4));
    let bits = 0, held = 0, at = 0;
    for (let i = 0; i < clean.length; i++) {
      bits = (bits << 6) | SIXES[clean.charCodeAt(i)]; held += 6;
      if (held >= 8) { held -= 8; out[at++] = (bits >> held) & 0xff; }
    }
    return out.buffer;
  }

  function runOf(id) {
    const run = runs.get(id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  }

  function reportOf(run, state, twin) {   // the report set's readings of one head as its parameters are now
    const held = run.predictHeld(state.params[twin], state.params[twin])[0], out = {};
    for (const name of ["spearman", "accuracy", "error"]) out[name] = Engine.METRIC[name](held, run.gold, run.scheme);
    return out;
  }

  root.PlaygroundHost = {
    configure(declarations) { Engine.configure(JSON.parse(declarations)); },
    addData(key, base64) {      // a compact data file (stsdemo/playground/compact.py), kept under `key`
      const found = Engine.loadCompact(fromBase64(base64));
      data.set(key, found);
      return JSON.stringify({ pool: found.train.labels.length, report: found.held.labels.length, dim: found.dim });
    },
    dropData(key) { data.delete(key); },   // a run that reads it keeps it until the run is dropped
    start(id, key, config, seeds) {
      if (!data.has(key)) throw new Error(`no data ${key}`);
      const run = new Engine.Run(JSON.parse(config), data.get(key), { seeds: JSON.parse(seeds) });
      runs.set(id, run);
      return JSON.stringify({ training: run.pairs, selection: run.perSeed[0].selection.length,
                              report: run.gold.length, batch: run.batch, readBy: run.readBy,
                              dim: run.dim });
    },
    advance(id, steps) { const run = runOf(id); run.step(steps); return run.stepsDone; },
    measure(id) {
      const run = runOf(id), m = run.measure(0);
      return JSON.stringify({ step: m.step, seeds: m.seeds, values: m.values, best: m.best, bestSteps: m.bestSteps,
                              bestSelection: run.perSeed.map((state) => state.bestSelection.slice()) });
    },
    bestHead(id, twin) {
      const head = runOf(id).bestHead(twin);
      return JSON.stringify({ ...head, params: head.params ? Array.from(head.params) : null });
    },
    // A head (the page's, for an export; or a twin's best) measured in the place of twin `twin` of seed 0: its
    // selection reading and its report readings. The run's own head and selection reading are put back after.
    measureHead(id, twin, params) {
      const run = runOf(id), state = run.perSeed[0], values = JSON.parse(params);
      if (values.length !== state.params[twin].length) throw new Error("a head of the wrong size");
      const own = state.params[twin], selected = state.selected;
      state.params[twin] = Float64Array.from(values);
      state.selected = { step: -1, values: [NaN, NaN] };
      try {
        return JSON.stringify({ selection: run.selectionValues(state)[twin], report: reportOf(run, state, twin) });
      } finally {
        state.params[twin] = own; state.selected = selected;
      }
    },
    drop(id) { runs.delete(id); },
    // d loss / d prediction of each pair (the straight-through clamp), as a training step computes it
    pulls(loss, k, x0, predictions, labels, nodes, d) {
      const scheme = Engine.makeScheme({ name: "line", categories: Array.from({ length: nodes }, String) }, d);
      const p = JSON.parse(predictions), y = JSON.parse(labels);
      return JSON.stringify(p.map((value, i) => Engine.pull(loss, k, x0, value, y[i], scheme)));
    },
  };
})(typeof globalThis !== "undefined" ? globalThis : this);
