// Reads the paired rule's data and difference lists for tests/test_paired_js.py from stdin and prints, for each list,
// what the page's paired.js reads of it: mean, se, interval, verdict and the texts the page shows, as one JSON line.
// stdin: {"rule": rule_as_data(), "strings": the page's strings, "cases": [{"diffs": [...], "metric": "spearman"}, ...],
// "numbers": [[x, digits], ...], "wholes": [n, ...]}; the rule's sentence and the whole numbers are written in each
// language of "strings".
"use strict";
const path = require("path");
const web = path.join(__dirname, "..", "..", "stsdemo", "playground", "web");
const Paired = require(path.join(web, "paired.js"));
require(path.join(web, "text.js"));   // globalThis.PlaygroundText: the page's words

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const { rule: data, strings, cases, numbers, wholes } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const rule = new Paired.Rule(data);
  const read = cases.map(({ diffs, metric }) => {
    const found = new Paired.Paired(rule, diffs, diffs.map((_, i) => i), metric);
    const out = { mean: found.mean, se: found.se, interval: found.interval, verdict: found.verdict,
                  numbers: found.numbers(), interval_text: found.intervalText(), rule_text: {} };
    for (const language of Object.keys(strings)) {
      globalThis.PlaygroundText.use(strings, language);
      out.rule_text[language] = rule.text(found.n, metric);
    }
    return out;
  });
  const written = numbers.map(([value, digits]) => Paired.fixed(value, digits, true));
  const counted = {};   // whole numbers as each language writes them (text.js's count: Intl)
  for (const language of Object.keys(strings)) {
    globalThis.PlaygroundText.use(strings, language);
    counted[language] = wholes.map((value) => globalThis.PlaygroundText.count(value));
  }
  process.stdout.write(JSON.stringify({ read, written, counted }, (key, value) => (Number.isNaN(value) ? "NaN" : value)) + "\n");
});
