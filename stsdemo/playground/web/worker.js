// A Web Worker that trains one slice of a Playground run's seeds with the page's engine (engine.js) and answers the
// player (player.js). Messages in, each with the run's `id` (a newer id makes older answers stale):
//   {type: "init", id, source (a URL or an ArrayBuffer), key (names an ArrayBuffer's data), config, seeds, describe}
//       -> {type: "ready", id, about}: the data parsed once per URL or key and kept; `about` (only when `describe`):
//          what the view needs of the data and the run (title, scheme, set sizes, the shown report pairs' sentences);
//   {type: "advance", id, steps, shown} -> {type: "measured", id, measurement, best}: `steps` more steps, then
//          every head measured with `shown` report pairs drawn (0: none); `best`: the first seed's predictions of
//          those pairs at each twin's best step, and those steps (null without shown pairs);
//   {type: "advance", id, steps, shown, glance: true} -> {type: "glanced", id, glance}: `steps` more steps, then
//          only what the dots draw (Run.glance; null without shown pairs): a fraction of a measurement's work;
//   {type: "bestHead", id, twin} -> {type: "bestHead", id, head}: the first seed's head of `twin` at its best step.
// Any failure answers {type: "error", id, message}. Messages are handled one after another, in order.
"use strict";
importScripts("draws.js", "heads.js", "engine.js");
const Engine = self.PlaygroundEngine;
const parsed = new Map();   // URL or key -> the parsed data (a Promise while it loads)
let run = null, runId = null;
const SHOWN_MOST = 600;     // report pairs a view draws at most (the charts draw no more)

function dataFrom(source, key) {
  const name = typeof source === "string" ? source : key;
  if (!parsed.has(name)) {
    const bytes = typeof source === "string"
      ? fetch(source).then((response) => {
          if (!response.ok) throw new Error(`could not load ${source} (HTTP ${response.status})`);
          return response.arrayBuffer();
        })
      : Promise.resolve(source);
    // a pinned file holds numbers only: its sentences (for a dot's two sentences) come from beside it
    const loading = bytes.then(Engine.loadCompact).then((data) => (data.sentences || typeof source !== "string"
      ? data
      : fetch(source.replace(/\.safetensors$/, ".sentences.json"))
          .then((response) => (response.ok ? response.json() : null), () => null)
          .then((sentences) => ({ ...data, sentences }))));
    loading.catch(() => parsed.delete(name));   // a failed load is tried again next time
    parsed.set(name, loading);
  }
  return parsed.get(name);
}

function about(data) {
  const shownAt = Engine.spacedPositions(data.held.labels.length, SHOWN_MOST);
  const [training, selection] = Engine.splitSizes(data.train.labels.length, run.config.train_pairs);
  return {
    name: data.name, title: data.title || data.name, model: data.model, scheme: data.scheme,
    pool: data.train.labels.length, training, selection, report: data.held.labels.length, shownAt,
    gold: Float64Array.from(shownAt, (i) => data.held.labels[i] * run.config.d),
    sentences: Array.from(shownAt, (i) => (data.sentences ? [data.sentences[data.held.u[i]], data.sentences[data.held.v[i]]]
                                                           : ["", ""])),
  };
}
function bestShown(shownAt) {
  const first = run.perSeed[0];
  return { predictions: run.bestPredictionsOf(first).map((row) => Float64Array.from(shownAt, (i) => row[i])),
           steps: first.bestStep.slice() };
}

function exportedHead(twin) {
  const head = run.bestHead(twin);
  if (!head.params || run.stepsDone === 0) throw new Error("this run has no best step yet: press Play or Step first");
  return { ...head, params: Array.from(head.params) };   // a plain array: JSON carries it to the app
}

async function handle(message) {
  if (message.type === "init") {
    if (message.declared) Engine.configure(message.declared);   // site.json's engine: the page's own constants
    const data = await dataFrom(message.source, message.key);
    run = new Engine.Run(message.config, data, { seeds: message.seeds });
    runId = message.id;
    return { type: "ready", about: message.describe ? about(data) : null };
  }
  if (message.id !== runId) throw new Error("this run was replaced by a newer one");
  if (message.type === "advance") {
    run.step(Math.max(0, message.steps));   // the player counts the steps: a run's length may change as it plays
    if (message.glance) return { type: "glanced", glance: message.shown ? run.glance(Math.min(message.shown, SHOWN_MOST)) : null };
    const measurement = run.measure(Math.min(message.shown, SHOWN_MOST));
    return { type: "measured", measurement, best: message.shown ? bestShown(measurement.shownAt) : null };
  }
  if (message.type === "bestHead") return { type: "bestHead", head: exportedHead(message.twin) };
  throw new Error(`unknown message ${message.type}`);
}

let queue = Promise.resolve();
self.onmessage = (event) => {
  const message = event.data;
  queue = queue.then(() => handle(message))
    .then((answer) => self.postMessage({ ...answer, id: message.id }))
    .catch((error) => self.postMessage({ type: "error", id: message.id, message: String(error && error.message || error) }));
};
