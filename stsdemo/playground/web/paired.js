// The paired-seed rule (stsdemo/paired.py) in the page: the differences buffer - none over seeds, their mean, standard
// error, 95 % t-interval and verdict, in exactly Python's words and digits. The rule's numbers (margins, t-quantiles,
// verdict words) come from its data (stsdemo.paired.rule_as_data, in site.json's "rule"); means and spreads are summed
// exactly as math.fsum sums them, so a verdict never depends on the order of the seeds nor on the language. A plain
// script: globalThis.PlaygroundPaired (a page's <script>, a Worker's importScripts or Node's require).
(function (root) {
  "use strict";
  const WORDS = { holds: "holds", reversed: "reversed", negligible: "negligible", none: "no measurable difference",
                  oneSeed: "one seed", notMeasured: "not measured" };

  // Python's math.fsum: Shewchuk's exact partial sums, then the correctly rounded total (CPython's msum).
  function fsum(values) {
    const partials = [];
    for (let x of values) {
      if (!Number.isFinite(x)) return values.reduce((a, b) => a + b, 0);   // inf or NaN: no exact sum to keep
      let kept = 0;
      for (let y of partials) {
        if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
        const hi = x + y, lo = y - (hi - x);
        if (lo !== 0) partials[kept++] = lo;
        x = hi;
      }
      partials.length = kept;
      partials.push(x);
    }
    let n = partials.length, hi = 0, lo = 0;
    if (n > 0) {
      hi = partials[--n];
      while (n > 0) {
        const x = hi, y = partials[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo !== 0) break;
      }
      // half-way cases: round as if the remaining partials were summed exactly
      if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
        const y = lo * 2, x = hi + y;
        if (y === x - hi) hi = x;
      }
    }
    return hi;
  }

  // A number with `digits` decimals as Python's format writes it: the exact binary value rounded, a tie to even
  // (toFixed breaks a tie away from zero); `signed` writes '+' before a positive number (Python's '+' flag).
  function fixed(value, digits, signed = false) {
    if (Number.isNaN(value)) return signed ? "+nan" : "nan";
    const negative = value < 0 || Object.is(value, -0), size = Math.abs(value);
    if (!Number.isFinite(size)) return (negative ? "-" : signed ? "+" : "") + "inf";
    let text = size.toFixed(digits);
    const exact = size.toFixed(100), point = exact.indexOf(".");
    const kept = exact.slice(0, digits ? point + 1 + digits : point), rest = exact.slice(point + 1 + digits);
    if (/^50*$/.test(rest) && Number(kept[kept.length - 1]) % 2 === 0) text = kept;
    return (negative ? "-" : signed ? "+" : "") + text;
  }

  class Rule {
    constructor(data) {
      for (const word of Object.values(WORDS)) {
        if (!data.verdicts.includes(word)) throw new Error(`the rule's data has no verdict "${word}"`);
      }
      this.data = data;
    }
    quantile(n) {
      const found = this.data.t_quantiles[String(n)];
      if (found === undefined) throw new Error(`the rule's data has no t-quantile for ${n} differences`);
      return found;
    }
    margin(metric) { return this.data.margins[metric]; }
    // stsdemo.paired.rule_text: the rule at n paired seeds on `metric`, in the page's words (text.js)
    text(n, metric = "spearman") {
      const words = root.PlaygroundText;
      if (n < 2) return words.text("rule_one_seed");
      return words.text("rule_text", { quantile: fixed(this.quantile(n), 2), df: n - 1, plural: n === 2 ? "" : "s",
                                       margin: this.margin(metric).points, unit: words.text(`rule_unit_${metric}`) });
    }
    // differences a[seed] - b[seed] over the seeds both have (stsdemo.paired.paired), in seed order
    paired(a, b, metric = "spearman") {
      const seeds = Object.keys(a).filter((seed) => seed in b).map(Number).sort((x, y) => x - y);
      return new Paired(this, seeds.map((seed) => a[seed] - b[seed]), seeds, metric);
    }
  }

  class Paired {
    constructor(rule, diffs, seeds, metric) {
      this.rule = rule; this.diffs = diffs; this.seeds = seeds; this.metric = metric;
      this.n = diffs.length;
      this.mean = this.n ? fsum(diffs) / this.n : NaN;
      this.sd = this.n < 2 ? NaN : Math.sqrt(fsum(diffs.map((d) => (d - this.mean) ** 2)) / (this.n - 1));
      this.se = this.n > 1 ? this.sd / Math.sqrt(this.n) : NaN;
      this.spreadMeasured = this.n > 1 && this.sd > rule.data.resolution;
    }
    get interval() {
      if (!this.spreadMeasured) return [NaN, NaN];
      const half = this.rule.quantile(this.n) * this.se;
      return [this.mean - half, this.mean + half];
    }
    get equivalent() {
      const [low, high] = this.interval, margin = this.rule.margin(this.metric).points;
      return this.spreadMeasured && -margin < low && high < margin;
    }
    // the interval excludes zero exactly when the paired t-test's p-value is under the level
    get significant() {
      const [low, high] = this.interval;
      return this.spreadMeasured && (low > 0 || high < 0);
    }
    get verdict() {
      if (this.n === 0) return WORDS.notMeasured;
      if (this.n === 1) return WORDS.oneSeed;
      if (this.equivalent) return WORDS.negligible;
      if (this.significant) return this.mean > 0 ? WORDS.holds : WORDS.reversed;
      return WORDS.none;
    }
    numbers(digits = 2) {   // "+0.12 ± 0.05 (se), n = 3"
      if (this.n === 0) return "";
      const spread = this.n > 1 ? ` ± ${fixed(this.se, digits)} (se)` : "";
      return `${fixed(this.mean, digits, true)}${spread}, n = ${this.n}`;
    }
    intervalText(digits = 2) {   // "95 % interval -0.31 to +1.37"
      if (!this.spreadMeasured) return "";
      const [low, high] = this.interval;
      return `95 % interval ${fixed(low, digits, true)} to ${fixed(high, digits, true)}`;
    }
  }

  root.PlaygroundPaired = { Rule, Paired, fsum, fixed, WORDS };
  if (typeof module !== "undefined") module.exports = root.PlaygroundPaired;
})(typeof globalThis !== "undefined" ? globalThis : this);
