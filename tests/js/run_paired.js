// Reads the paired rule's data and difference lists for tests/test_paired_js.py from stdin and prints, for each list,
// what the page's paired.js reads of it: mean, se, interval, verdict and the texts the page shows, as one JSON line.
// stdin: {"rule": rule_as_data(), "cases": [{"diffs": [...], "metric": "spearman"}, ...], "numbers": [[x, digits], ...]}
"use strict";
const path = require("path");
const Paired = require(path.join(__dirname, "..", "..", "stsdemo", "playground", "web", "paired.js"));

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const { rule: data, cases, numbers } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const rule = new Paired.Rule(data);
  const read = cases.map(({ diffs, metric }) => {
    const found = new Paired.Paired(rule, diffs, diffs.map((_, i) => i), metric);
    return { mean: found.mean, se: found.se, interval: found.interval, verdict: found.verdict,
             numbers: found.numbers(), interval_text: found.intervalText(), rule_text: rule.text(found.n, metric) };
  });
  const written = numbers.map(([value, digits]) => [Paired.fixed(value, digits, true), Paired.grouped(value, digits)]);
  process.stdout.write(JSON.stringify({ read, written }, (key, value) => (Number.isNaN(value) ? "NaN" : value)) + "\n");
});
