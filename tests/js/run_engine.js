// Runs the page's engine under Node for tests/test_engine_agreement.py: a compact data file, a config and the steps
// at which to measure; prints one JSON line of every measurement (per seed and twin) and the final history.
// With "shown" (a count of report pairs), each measurement also has the first seed's drawn predictions, now and at
// the best step, as measure() gives them and as a glance (asked first, before measure reads the best) gives them.
// usage: node tests/js/run_engine.js DATA.safetensors '{"config": {...}, "checkpoints": [10, 3000], "shown": 0}'
"use strict";
const fs = require("fs");
const path = require("path");
const web = path.join(__dirname, "..", "..", "stsdemo", "playground", "web");
require(path.join(web, "draws.js"));
const Engine = require(path.join(web, "engine.js"));

const [dataPath, argument] = process.argv.slice(2);
const { config, checkpoints, shown = 0 } = JSON.parse(argument);
const file = fs.readFileSync(dataPath);
const data = Engine.loadCompact(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
const run = new Engine.Run(config, data), history = new Engine.History(), measurements = [];
const started = process.hrtime.bigint();
for (const checkpoint of checkpoints) {
  run.step(checkpoint - run.stepsDone);
  const glance = shown ? run.glance(shown) : null;
  const measured = run.measure(shown);
  history.add(measured);
  const rows = (table) => table && table.map((row) => Array.from(row));
  if (shown) {
    const best = run.bestPredictionsOf(run.perSeed[0]).map((row) => Array.from(measured.shownAt, (i) => row[i]));
    Object.assign(measured, { shown: rows(measured.shown), bestShown: best,
                              glance: { shown: rows(glance.shown), best: rows(glance.best.predictions) } });
  }
  measurements.push(measured);
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(JSON.stringify({ measurements, history: history.points, seconds }) + "\n");
