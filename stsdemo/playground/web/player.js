// The Playground's player on the page's main thread: it splits a run's seeds over a few Web Workers (worker.js), asks
// them for `speed` steps each animation frame while playing, merges their measurements and keeps the curves' points,
// and computes what a view shows (viewOf): both twins' means, both readings with their paired verdicts, the
// memorisation gap, the share inside the buffer, the best steps, the drawn report pairs. It draws nothing: the page
// hands it `onView`. A changed setting other than steps and speed starts the run again (runIdentity).
// While playing, most updates are glances: the steps, then only the dots (the first seed's predictions of the drawn
// pairs). Measuring every head predicts the whole report set for each and costs several times a frame's training, so
// it is done at most every MEASURE_EVERY_MS, yet at least CURVE_POINTS times a run (so a short or fast run's curves
// still have their shape), and always at the run's end, at a pause and at a single step: the readings and curves a
// paused or finished run shows are always those of its step.
// A plain script: globalThis.PlaygroundPlayer; needs draws.js, engine.js, paired.js and text.js (its words).
(function (root) {
  "use strict";
  const text = (key, values) => root.PlaygroundText.text(key, values);
  const Engine = root.PlaygroundEngine, { Paired: PairedDifference } = root.PlaygroundPaired;
  const CONTINUES = ["steps", "speed"];          // changing these continues a run; any other starts it again
  const PAIRED = ["spearman", "accuracy"];       // the metrics whose difference buffer - none is read
  const MOST_WORKERS = 4, SHOWN = 600, MOVED = 5;
  const MEASURE_EVERY_MS = 500;                  // while playing, every head measured at most this often ...
  const CURVE_POINTS = 40;                       // ... unless a run's curves would get fewer points than this

  function runIdentity(config) {
    return JSON.stringify(Object.keys(config).sort().filter((name) => !CONTINUES.includes(name))
      .map((name) => [name, config[name]]));
  }

  function twinLabels(config) {
    const loss = Engine.LOSSES[config.loss];   // site.json's engine.losses (stsdemo.losses.spec)
    return [text("twin_buffer", { loss: loss.short, x0: config.x0 }), text("twin_none", { k: config.k, twin: loss.twin })];
  }

  function median(values) {
    const sorted = Float64Array.from(values).sort(), mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  // Seeds 0 .. count-1 in `parts` contiguous slices, in order (the first holds seed 0, whose pairs are drawn).
  function seedSlices(count, parts) {
    const slices = [];
    for (let p = 0; p < parts; p++) {
      const from = Math.floor(p * count / parts), to = Math.floor((p + 1) * count / parts);
      if (to > from) slices.push(Array.from({ length: to - from }, (_, i) => from + i));
    }
    return slices;
  }

  // Where the drawn report pairs sit across: their gold label, spread a little around each node when every gold
  // label sits on a node (NLI), the same at every redraw.
  function across(gold, scheme) {
    if (!Array.from(gold).every((y) => Math.abs(y / scheme.gap - Math.round(y / scheme.gap)) < 1e-9)) return gold;
    const jitter = new root.PlaygroundDraws.Stream(0, "noise").uniform(gold.length);
    return Float64Array.from(gold, (y, i) => y + (jitter[i] * 2 - 1) * 0.18 * scheme.gap);
  }

  // ---- what a view shows after one measurement, and a glance after it (the dots at a later step), if any ----
  function viewOf(run, measurement, best, glance = null) {
    const { config, about, rule, history } = run, scheme = Engine.makeScheme(about.scheme, config.d);
    const readBy = Engine.READ_BY[about.scheme.name] || "spearman";
    const now = Engine.twinMeans(measurement.values), atBest = Engine.twinMeans(measurement.best);
    const reading = (title, table) => ({
      title,
      comparisons: PAIRED.map((metric) => {
        const a = {}, b = {};
        measurement.seeds.forEach((seed, i) => {
          const [buffer, none] = table[metric][i];
          if (Number.isFinite(buffer) && Number.isFinite(none)) { a[seed] = buffer; b[seed] = none; }
        });
        return { metric, paired: rule.paired(a, b, metric) };
      }),
    });
    const gold = about.gold, x0s = [config.x0, 0];
    const inside = (predictions, t) => Array.from(predictions, (p, i) => Math.abs(Engine.clampThrough(p, scheme) - gold[i]) < x0s[t]);
    const shownNow = (glance ? glance.shown : measurement.shown) || [], step = glance ? glance.step : measurement.step;
    if (glance) best = glance.best;
    return {
      step, steps: config.steps, finished: step >= config.steps,
      config, about, scheme, readBy, twinLabels: twinLabels(config), seeds: measurement.seeds.length,
      now, atBest, memorisation: [0, 1].map((t) => now.fit[t] - now.selection[t]),
      bestSteps: [0, 1].map((t) => median(measurement.bestSteps.map((row) => row[t]))),
      readings: [reading(text("reading_best"), measurement.best),
                 reading(text("reading_step", { step: root.PlaygroundText.count(measurement.step) }), measurement.values)],
      ruleText: rule.text(measurement.seeds.length, readBy),
      dots: best && {
        across: across(gold, scheme), now: shownNow, best: best.predictions, bestSteps: best.steps,
        inside: shownNow.map(inside), moved: mostMoved(shownNow),
      },
      history: history.points,
    };
  }

  function mostMoved(shown) {   // the drawn pairs whose twins' predictions differ most, largest first
    if (shown.length < 2) return [];
    const order = Array.from(shown[0], (_, i) => i);
    order.sort((i, j) => Math.abs(shown[0][j] - shown[1][j]) - Math.abs(shown[0][i] - shown[1][i]) || i - j);
    return order.slice(0, MOVED);
  }

  // ---- workers: one request at a time per worker, answered in order ----
  class Crew {
    constructor(url, count) {
      this.workers = Array.from({ length: count }, () => new Worker(url));
      this.waiting = this.workers.map(() => []);
      this.workers.forEach((worker, i) => {
        worker.onmessage = (event) => this.waiting[i].shift()(event.data);
        worker.onerror = (event) => {   // a worker that failed to start or threw outside a message: its asks fail
          event.preventDefault();
          for (const answer of this.waiting[i].splice(0)) answer({ type: "error", message: event.message || "the worker stopped" });
        };
      });
    }
    ask(i, message, transfer = []) {
      return new Promise((resolve, reject) => {
        this.waiting[i].push((answer) => (answer.type === "error" ? reject(new Error(answer.message)) : resolve(answer)));
        this.workers[i].postMessage(message, transfer);
      });
    }
  }

  class Player {
    // options: {workerUrl, rule (a PlaygroundPaired.Rule), source(config) -> {source: URL or ArrayBuffer, key},
    //           onView(view), onStatus({playing, busy}), onError(error)}
    constructor(options) {
      this.options = options;
      const cores = (root.navigator && root.navigator.hardwareConcurrency) || 1;
      this.crew = new Crew(options.workerUrl, Math.max(1, Math.min(cores, MOST_WORKERS)));
      this.run = null; this.generation = 0; this.playing = false; this.round = Promise.resolve();
    }

    get config() { return this.run && this.run.config; }

    // The settings changed: the same run goes on under a new length or speed; any other change starts it again.
    configure(config) {
      if (this.run && runIdentity(config) === runIdentity(this.run.config)) {
        this.run.config = config;
        if (this.view) this.publish(this.view.measurement, this.view.best, this.view.glance);
        return Promise.resolve(false);
      }
      return this.start(config).then(() => true);
    }

    start(config) {
      const generation = ++this.generation, slices = seedSlices(config.seeds, this.crew.workers.length);
      const { source, key } = this.options.source(config);
      const run = { config, slices, generation, rule: this.options.rule, history: new Engine.History(), about: null,
                    stepsDone: 0, measuredAt: 0, measuredStep: 0 };
      this.run = run; this.view = null;
      const ready = slices.map((seeds, i) => this.crew.ask(i, {
        type: "init", id: generation, source, key, config, seeds, describe: i === 0, declared: Engine.declarations() }));
      this.round = this.guard(this.round.then(() => Promise.all(ready)).then((answers) => {
        if (generation !== this.generation) return null;
        run.about = answers[0].about;
        return this.advance(0, generation);
      }));
      return this.round;
    }

    // `steps` more steps, then every head measured, or with `glance` only the dots drawn (after a measurement)
    advance(steps, generation, glance = false) {
      const run = this.run;
      run.stepsDone += steps;
      return Promise.all(run.slices.map((_, i) => this.crew.ask(i, {
        type: "advance", id: generation, steps, shown: i === 0 ? SHOWN : 0, glance }))).then((answers) => {
        if (generation !== this.generation) return;
        if (glance) {
          this.publish(this.view.measurement, this.view.best, answers[0].glance);
          return;
        }
        const measurement = Engine.mergeMeasurements(answers.map((answer) => answer.measurement));
        run.history.add(measurement);
        run.measuredAt = performance.now(); run.measuredStep = measurement.step;
        this.publish(measurement, answers[0].best, null);
      });
    }

    publish(measurement, best, glance) {
      this.view = { ...viewOf(this.run, measurement, best, glance), measurement, best, glance };
      this.options.onView(this.view);
    }

    guard(promise) {   // a round that failed stops the play and says why; the next round starts afresh
      return promise.catch((error) => { this.halt(); this.options.onError(error); });
    }

    // The next `speed` steps (never past the run's last), one round at a time and at most one an animation frame;
    // a finished run starts again. The next round is asked for as soon as the last is answered (once a frame has
    // passed), before the page draws its view, so the workers train while the page draws.
    play() {
      if (this.playing) return;
      if (this.view && this.view.finished) this.start(this.run.config);
      this.playing = true;
      this.status();
      const loop = () => {
        this.round = this.guard(this.round.then(() => (this.playing ? this.forward(this.run.config.speed) : null)));
        Promise.all([this.round, new Promise((resolve) => requestAnimationFrame(resolve))]).then(() => {
          if (this.view && this.view.finished) this.pause();
          if (this.playing) loop();
        });
      };
      requestAnimationFrame(loop);
    }

    // Up to `most` steps, none past the run's last (read when the round before has ended); while playing, a glance
    // unless the last measurement is MEASURE_EVERY_MS old, a curve point is due or these steps end the run.
    forward(most) {
      const run = this.run, left = run.config.steps - (this.view ? run.stepsDone : run.config.steps);
      if (left <= 0) return null;
      const steps = Math.min(most, left);
      const pointDue = run.stepsDone + steps - run.measuredStep >= run.config.steps / CURVE_POINTS;
      const glance = this.playing && steps < left && !pointDue && performance.now() - run.measuredAt < MEASURE_EVERY_MS;
      return this.advance(steps, this.generation, glance);
    }

    // Stops playing; a view left at a glance is measured, so a paused run reads its own step.
    pause() {
      this.halt();
      this.round = this.guard(this.round.then(() => (this.view && this.view.glance ? this.advance(0, this.generation) : null)));
    }

    halt() { this.playing = false; this.status(); }

    step() {   // one step, measured: not playing, forward measures
      this.halt();
      this.round = this.guard(this.round.then(() => this.forward(1)));
      return this.round;
    }

    reset() { this.halt(); return this.start(this.run.config); }

    // The first seed's head of `twin` at its best step, for an export.
    bestHead(twin = 0) {
      return this.round.then(() => this.crew.ask(0, { type: "bestHead", id: this.generation, twin }))
        .then((answer) => answer.head);
    }

    status() { if (this.options.onStatus) this.options.onStatus({ playing: this.playing }); }
  }

  root.PlaygroundPlayer = { Player, viewOf, runIdentity, twinLabels, seedSlices, median, PAIRED, CONTINUES };
})(typeof globalThis !== "undefined" ? globalThis : this);
