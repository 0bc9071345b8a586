// The Playground page's text panels, built as DOM nodes (every text set as text, never as markup): the run's status
// with both readings, the inspected pair, the pairs the buffer moved most, the story presets and the start-here
// steps. A plain script: globalThis.PlaygroundPanels; needs engine.js and paired.js.
(function (root) {
  "use strict";
  const Engine = root.PlaygroundEngine, { fixed, grouped } = root.PlaygroundPaired, { text } = root.PlaygroundText;
  const metricName = (metric) => text(`metric_${metric}`);   // spearman, accuracy, error, inside
  const DIGITS = { spearman: 2, accuracy: 1, error: 3, inside: 1 };

  // el("p", {className: "x"}, "text", child, ...): an element with properties and children (strings become text)
  function el(tag, props = {}, ...children) {
    const { dataset, ...rest } = props, node = Object.assign(document.createElement(tag), rest);
    if (dataset) Object.assign(node.dataset, dataset);
    for (const child of children.flat(Infinity)) if (child !== null && child !== undefined && child !== false) node.append(child);
    return node;
  }

  // Puts `nodes` (as el takes them) in `parent`, replacing only the children that differ: an unchanged paragraph or
  // table is neither laid out nor painted again.
  function sync(parent, nodes) {
    const wanted = nodes.flat(Infinity).filter((node) => node !== null && node !== undefined && node !== false)
      .map((node) => (typeof node === "string" ? document.createTextNode(node) : node));
    wanted.forEach((node, i) => {
      const old = parent.childNodes[i];
      if (!old) parent.append(node);
      else if (!old.isEqualNode(node)) old.replaceWith(node);
    });
    while (parent.childNodes.length > wanted.length) parent.lastChild.remove();
  }

  // The light Markdown of the presets and lesson texts: **bold**, *emphasis* and [text](?in-page link), as nodes.
  function rich(text) {
    const nodes = [], pattern = /\*\*(.+?)\*\*|\*(.+?)\*|\[([^\]]+)\]\((\?[^)\s]*)\)/g;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      nodes.push(text.slice(last, match.index));
      if (match[1] !== undefined) nodes.push(el("b", {}, match[1]));
      else if (match[2] !== undefined) nodes.push(el("em", {}, match[2]));
      else nodes.push(el("a", { href: match[4] }, match[3]));
      last = match.index + match[0].length;
    }
    nodes.push(text.slice(last));
    return nodes;
  }

  const label = (value) => String(+value.toFixed(3));       // a label as people write it: 3, 3.4, 2.75

  // ---- the status: where the run is, both twins' numbers, both readings with verdicts, the rule ----
  // Its step is the one its numbers were measured at: while playing, the dots (a glance) run ahead of it.
  function status(view, encoder) {
    const { config, about, readBy, now, atBest } = view, name = metricName(readBy), step = view.measurement.step;
    const head = config.head + " head" + (config.head === "mlp" ? ` (${config.width} hidden units)` : "");
    const where = el("p", {}, el("b", {}, `Step ${grouped(step)} of ${grouped(config.steps)}`),
      ` · ${view.seeds} seed${view.seeds > 1 ? "s" : ""} · ${head} on frozen ${encoder} embeddings · ` +
      `${grouped(about.training)} training pairs per seed (σ ${config.noise}${config.round_labels ? ", rounded to nodes" : ""}), ` +
      `a selection set of ${grouped(about.selection)} more with the same noise · reported on ${grouped(about.report)} ` +
      `clean pairs of ${about.title}, which select nothing`);
    const cells = (values, digits) => values.map((v) => el("td", {}, Number.isFinite(v) ? fixed(v, digits) : "–"));
    const rows = [
      [`${name}, report set · at this step`, cells(now[readBy], DIGITS[readBy])],
      [`${name}, report set · stopped at its best`, cells(atBest[readBy], DIGITS[readBy])],
      [`best step (median of seeds; checked every ${Engine.SELECT_EVERY} steps on the selection set)`,
       view.bestSteps.map((step) => el("td", {}, grouped(step)))],
      [`${name}, training pairs − selection set (memorisation)`, cells(view.memorisation, DIGITS[readBy])],
      ...["spearman", "accuracy", "error"].filter((metric) => metric !== readBy)
        .map((metric) => [`${metricName(metric)} · at this step`, cells(now[metric], DIGITS[metric])]),
      [`training pairs within x0 = ${config.x0} of their label (%): both twins measured against the buffered ` +
       "twin's x0", cells(now.inside, DIGITS.inside)],
    ];
    const table = el("table", { className: "numbers" },
      el("tr", {}, el("th", {}, ""), view.twinLabels.map((text, t) => el("th", { scope: "col", title: text }, twinHeading(t, config)))),
      rows.map(([title, tds]) => el("tr", {}, el("th", { scope: "row" }, title), tds)));
    const readings = view.readings.map((reading) => el("li", {}, el("b", {}, reading.title), ": ",
      reading.comparisons.map(({ metric, paired }, i) => [i ? " · " : "", `${metricName(metric)} `,
        el("b", { className: "reading" }, paired.numbers()), ": ",
        el("span", { className: "verdict", dataset: { verdict: paired.verdict } }, paired.verdict)])));
    return [where, el("div", { className: "scroll" }, table), el("p", {}, el("b", {}, "Buffer − none"), ", paired over the seeds:"),
            el("ul", { className: "readings" }, readings),
            el("p", { className: "rule" }, "Each twin of each seed is stopped at its own best step on its selection set. " +
               `The verdict: ${view.ruleText}.`)];
  }

  const twinHeading = (twin, config) => (twin === 0 ? `with buffer, x0 = ${config.x0}` : "without, x0 = 0");

  // ---- one report pair, as the first seed's twins see it now and at their best steps ----
  function pair(view, dot) {
    const { scheme, config, dots, about } = view, gold = about.gold[dot], x0s = [config.x0, 0];
    const [first, second] = about.sentences[dot], clamped = [];
    const head = el("tr", {}, el("th", {}), [["prediction", "pred."], ["|error|", "|err.|"], ["in buffer", "in buf."],
      ["pull as a training pair", "pull"]].map(([long, short]) => el("th", { scope: "col" }, brief(long, short))));
    const rows = [];
    view.twinLabels.forEach((name, t) => {
      for (const [when, prediction] of [["now", dots.now[t][dot]], [`best step ${grouped(dots.bestSteps[t])}`, dots.best[t][dot]]]) {
        const read = Engine.clampThrough(prediction, scheme), error = Math.abs(read - gold);
        const inside = error < x0s[t], pulled = Engine.pull(config.loss, config.k, x0s[t], prediction, gold, scheme);
        if (read !== prediction) clamped.push(prediction);
        rows.push(el("tr", { className: `twin-${t} ${when === "now" ? "now" : "best"}` },
          el("th", { scope: "row" }, `${t === 0 ? "buffer" : "none"} · ${when}`),
          el("td", {}, fixed(prediction, 3)),
          el("td", {}, fixed(error, 3) + (read !== prediction ? ` (read as ${label(read)})` : "")),
          el("td", {}, x0s[t] > 0 ? (inside ? "yes" : "no") : brief("no buffer", "–")),
          el("td", { className: "words" }, pullText(pulled, inside, gold))));
      }
    });
    const notes = [el("p", { className: "note" }, "Report pairs never train either twin: the pull is what this pair " +
      "would get as a training pair (d loss / d prediction, before the batch mean); 0 inside the buffer.")];
    if (clamped.length) {
      notes.push(el("p", { className: "note" }, `Training clamps a prediction beyond the outermost node to that node, ` +
        `and |error| is measured as the clamp reads it: ${fixed(clamped[0], 3)} reads as ` +
        `${label(Engine.clampThrough(clamped[0], scheme))}.`));
    }
    return [el("p", { className: "pair-title" }, `Report pair ${dot + 1} · gold label ${label(gold)} · step ` +
              `${grouped(view.step)} (seed 0)`),
            el("p", { className: "sentence" }, `“${first}”`), el("p", { className: "sentence" }, `“${second}”`),
            el("div", { className: "scroll" }, el("table", { className: "pair-table" }, head, rows)), notes];
  }

  // A text in full, and its abbreviation where a phone's column is narrow (page.css shows one of them).
  const brief = (long, short) => [el("span", { className: "long" }, long), el("abbr", { className: "short", title: long }, short)];

  // Descent moves a prediction against its gradient: a positive pull lowers it toward the label.
  function pullText(pulled, inside, gold) {
    if (inside) return "0 (left alone)";
    if (pulled === 0) return "0 (on its label)";
    return `${fixed(Math.abs(pulled), 2)} ${pulled > 0 ? "down" : "up"} toward ${label(gold)}`;
  }

  // Each button names its pair in data-dot (the page listens on the list, so a redrawn button needs no listener).
  function moved(view) {
    if (!view.dots || !view.dots.moved.length) return [];
    const short = (text) => (text.length <= 70 ? text : text.slice(0, 69) + "…");
    return [el("p", { className: "moved-title" }, "Most moved by the buffer (seed 0, now): the report pairs whose twins disagree most"),
      view.dots.moved.map((dot) => {
        const gap = Math.abs(view.dots.now[0][dot] - view.dots.now[1][dot]);
        return el("button", { type: "button", className: "moved-pair", dataset: { dot: String(dot) } },
          `Δ ${fixed(gap, 2)} · ${view.about.sentences[dot].map(short).join(" | ")}`);
      })];
  }

  // What the dots chart shows about where the buffer sits, for this data's labels.
  function dotsNote(view) {
    const onNodes = Array.from(view.about.gold).every((y) => Engine.nearestIndex(y, view.scheme) * view.scheme.gap === y);
    return onNodes
      ? "The labels sit on the nodes, and training clamps a prediction beyond the outermost node to that node: a " +
        "hollow dot above the top node (or below the bottom one) is inside the buffer, since it reads as that node."
      : "The labels are fractional (3.4 lies between the nodes 3 and 4), and the buffer lies around each pair's own " +
        "label, not around the nodes: a hollow dot may sit between the blue node bands.";
  }

  // ---- presets and the start-here steps ----
  function presetList(presets, settings) {
    return presets.map((preset) => {
      const hide = preset.hide.filter((name) => settings.names.includes(name));
      return el("li", {}, el("a", { href: `?preset=${encodeURIComponent(preset.name)}` }, preset.title), ". ", rich(preset.do),
        el("br"), el("em", {}, "Notice: "), rich(preset.notice), " ",
        el("a", { href: `?preset=${encodeURIComponent(preset.name)}&hide=${hide.join(",")}`, className: "classroom" },
           "classroom link (hides the finer controls)"));
    });
  }

  function presetBox(preset, stillIt) {
    return [el("p", { className: "preset-title" }, "Preset: ", el("b", {}, preset.title),
              stillIt ? "" : " (a setting changed since, so the sentences below describe the preset's own run)"),
            el("p", {}, rich(preset.do)), el("p", {}, el("em", {}, "Notice: "), rich(preset.notice))];
  }

  function lesson(steps) {
    return steps.map((step) => el("li", {},
      step.in_page ? el("a", { href: step.query }, step.title) : el("b", {}, step.title),
      step.in_page ? "" : " (in the full app: python app.py)", ". ", rich(step.do),
      el("br"), el("em", {}, "Notice: "), rich(step.notice)));
  }

  root.PlaygroundPanels = { el, sync, rich, status, pair, moved, dotsNote, presetList, presetBox, lesson, metricName, DIGITS };
})(typeof globalThis !== "undefined" ? globalThis : this);
