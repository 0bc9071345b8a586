// The Loss explorer in the page: Translated ReLU and Smooth K2 (and the references L1 and MSE) over the distance
// x = |prediction − label|, and their pulls df/dx, for a slope k, buffer x0 and node gap d; the buffer [0, x0), the
// margin up to d/2 and, past the rule x0 <= d/2, the red band where a prediction rounds to a wrong node yet gets no
// pull. Pure math, drawn on a canvas (charts.js). Its knobs' start and ranges come from site.json's "loss".
// Its chart's words are the page's (text.js). A plain script: globalThis.PlaygroundLoss; needs charts.js and paired.js.
(function (root) {
  "use strict";
  const text = (key, values) => root.PlaygroundText.text(key, values);
  const { COLORS, niceTicks, paddedRange, INK } = root.PlaygroundCharts, { fixed } = root.PlaygroundPaired;
  // f(x) and df/dx of each loss (stsdemo.losses): the buffer losses take k and x0, the references neither
  const CURVES = {
    trelu: { name: "Translated ReLU", buffer: true, f: (x, k, x0) => k * Math.max(0, x - x0), df: (x, k, x0) => (x > x0 ? k : 0) },
    sk2: { name: "Smooth K2", buffer: true, f: (x, k, x0) => k * Math.max(0, x - x0) ** 2, df: (x, k, x0) => 2 * k * Math.max(0, x - x0) },
    l1: { name: "L1 |x|", buffer: false, f: (x) => x, df: (x) => (x > 0 ? 1 : 0) },
    mse: { name: "MSE x²", buffer: false, f: (x) => x * x, df: (x) => 2 * x },
  };
  const POINTS = 400;

  function problem(k, x0, d) {   // stsdemo.losses.buffer.check_buffer's rule, in words ("" when the knobs are valid)
    return x0 > d / 2 ? text("loss_problem", { x0, half: d / 2 }) : "";
  }

  // Two panels, the loss and its pull, over x from 0 to max(2.5 d, x0 + d); `references`: the names drawn besides.
  function spec({ k, x0, d, prediction, label }, references) {
    const reach = Math.max(2.5 * d, x0 + d), xs = Array.from({ length: POINTS + 1 }, (_, i) => i * reach / POINTS);
    const drawn = Object.entries(CURVES).filter(([name, curve]) => curve.buffer || references.includes(name));
    const sample = Math.abs(prediction - label);
    const bands = [{ box: [0, Math.min(x0, d / 2)], color: COLORS.buffer }, { box: [Math.min(x0, d / 2), d / 2], color: COLORS.margin }];
    if (x0 > d / 2) bands.push({ box: [d / 2, x0], color: COLORS.bad });
    const panels = [[text("loss_f"), "f"], [text("loss_pull"), "df"]].map(([title, part], index) => {
      const lines = drawn.map(([name, curve]) => ({ x: xs, y: xs.map((x) => curve[part](x, k, x0)), color: COLORS[name],
                                                    width: curve.buffer ? 3 : 1.6, dot: !curve.buffer }));
      const yRange = paddedRange([0].concat(...lines.map((line) => line.y)), 0.05);
      yRange[0] = Math.min(0, yRange[0]);
      lines.push({ x: [d / 2, d / 2], y: yRange, color: "#374151", width: 1.2, dash: true });
      const dots = sample <= reach ? drawn.filter(([, curve]) => curve.buffer).map(([name, curve]) =>
        ({ x: [sample], y: [curve[part](sample, k, x0)], color: COLORS[name], size: 5.5 })) : [];
      const legend = index ? [] : drawn.map(([name, curve]) => ({ name: curve.name, color: COLORS[name], mark: curve.buffer ? "line" : "dot-line" }))
        .concat([{ name: text("loss_no_pull"), color: COLORS.buffer, mark: "band" }, { name: text("loss_half_gap"), color: INK, mark: "dash" }]);
      return { title, x_range: [0, reach], y_range: yRange, x_ticks: niceTicks(0, reach), y_ticks: niceTicks(yRange[0], yRange[1], 4),
               x_title: text("loss_distance"), bands: bands.map((band) => ({ box: [...band.box, ...yRange], color: band.color })),
               lines, dots, legend };
    });
    return { columns: 2, panel_height: 300, legends: true, panels };
  }

  // The two losses with the knobs' numbers filled in: {name, says, general, here} each, and the rule as a note.
  function formulas({ k, x0, d }) {
    return {
      losses: [
        { name: "Translated ReLU", says: text("loss_says_trelu"),
          general: "f(x) = max(0, k (x − x0))", here: `f(x) = max(0, ${k} (x − ${x0}))` },
        { name: "Smooth K2", says: text("loss_says_sk2"),
          general: "f(x) = k max(0, x − x0)²", here: `f(x) = ${k} max(0, x − ${x0})²` },
      ],
      note: text("loss_note", { half: d / 2 }),
    };
  }

  // The loss and pull one sample gets under each loss, before the batch mean (df/dprediction: negative raises it);
  // inside: "yes" or "no", the page's keys of those words.
  function sampleRows({ k, x0, prediction, label }) {
    const x = Math.abs(prediction - label), sign = Math.sign(prediction - label);
    return Object.values(CURVES).map((curve) => ({
      loss: curve.name, x: fixed(x, 4), f: fixed(curve.f(x, k, x0), 4), pull: fixed(curve.df(x, k, x0) * sign, 4),
      inside: curve.buffer && x < x0 ? "yes" : "no",
    }));
  }

  function verdict({ k, x0, d }) {
    const found = problem(k, x0, d);
    return found ? text("loss_invalid", { problem: found }) : text("loss_valid", { x0, half: d / 2 });
  }

  root.PlaygroundLoss = { spec, formulas, sampleRows, verdict, problem, CURVES };
})(typeof globalThis !== "undefined" ? globalThis : this);
