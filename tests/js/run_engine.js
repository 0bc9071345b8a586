// Runs the page's engine under Node for tests/test_engine_agreement.py: a compact data file, a config and the steps
// at which to measure; prints one JSON line of every measurement (per seed and twin) and the final history.
// usage: node tests/js/run_engine.js DATA.safetensors '{"config": {...}, "checkpoints": [10, 3000]}'
"use strict";
const fs = require("fs");
const path = require("path");
const web = path.join(__dirname, "..", "..", "stsdemo", "playground", "web");
require(path.join(web, "draws.js"));
const Engine = require(path.join(web, "engine.js"));

const [dataPath, argument] = process.argv.slice(2);
const { config, checkpoints } = JSON.parse(argument);
const file = fs.readFileSync(dataPath);
const data = Engine.loadCompact(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
const run = new Engine.Run(config, data), history = new Engine.History(), measurements = [];
const started = process.hrtime.bigint();
for (const checkpoint of checkpoints) {
  run.step(checkpoint - run.stepsDone);
  const measured = run.measure();
  history.add(measured);
  measurements.push(measured);
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(JSON.stringify({ measurements, history: history.points, seconds }) + "\n");
