// The Playground page's text panels, built as DOM nodes (every text set as text, never as markup): the run's status
// with both readings, the inspected pair, the pairs the buffer moved most and the story presets (their stories and
// the start-here steps are story.js's), in the page's words (text.js). A plain script: globalThis.PlaygroundPanels;
// needs engine.js, paired.js and text.js.
(function (root) {
  "use strict";
  const Engine = root.PlaygroundEngine, { fixed, WORDS } = root.PlaygroundPaired, { text, words, count } = root.PlaygroundText;
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
    const head = text("status_head", { head: config.head }) + (config.head === "mlp" ? text("status_width", { width: config.width }) : "");
    const where = el("p", {}, el("b", {}, text("status_step", { step: count(step), steps: count(config.steps) })),
      text("status_run", { seeds: view.seeds, plural: view.seeds > 1 ? "s" : "", head, encoder,
                           training: count(about.training), noise: config.noise,
                           rounded: config.round_labels ? text("status_rounded") : "", selection: count(about.selection),
                           report: count(about.report), title: about.title }));
    const cells = (values, digits) => values.map((v) => el("td", {}, Number.isFinite(v) ? fixed(v, digits) : "–"));
    const rows = [
      [text("row_now", { metric: name }), cells(now[readBy], DIGITS[readBy])],
      [text("row_best", { metric: name }), cells(atBest[readBy], DIGITS[readBy])],
      [text("row_best_step", { every: Engine.SELECT_EVERY }), view.bestSteps.map((step) => el("td", {}, count(step)))],
      [text("row_memorisation", { metric: name }), cells(view.memorisation, DIGITS[readBy])],
      ...["spearman", "accuracy", "error"].filter((metric) => metric !== readBy)
        .map((metric) => [text("row_other", { metric: metricName(metric) }), cells(now[metric], DIGITS[metric])]),
      [text("row_inside", { x0: config.x0 }), cells(now.inside, DIGITS.inside)],
    ];
    const table = el("table", { className: "numbers" },
      el("tr", {}, el("th", {}, ""), view.twinLabels.map((text, t) => el("th", { scope: "col", title: text }, twinHeading(t, config)))),
      rows.map(([title, tds]) => el("tr", {}, el("th", { scope: "row" }, title), tds)));
    const readings = view.readings.map((reading) => el("li", {}, el("b", {}, reading.title), ": ",
      reading.comparisons.map(({ metric, paired }, i) => [i ? " · " : "", `${metricName(metric)} `,
        el("b", { className: "reading" }, paired.numbers()), ": ",
        el("span", { className: "verdict", dataset: { verdict: paired.verdict } }, verdictText(paired.verdict))])));
    return [where, el("div", { className: "scroll" }, table),
            el("p", {}, el("b", {}, text("readings_title")), text("readings_paired")),
            el("ul", { className: "readings" }, readings),
            el("p", { className: "rule" }, text("status_rule", { rule: view.ruleText }))];
  }

  // A verdict as the page says it: the rule's word (stsdemo.paired, the same in every language) in the page's words.
  const VERDICT_TEXT = { holds: "verdict_holds", reversed: "verdict_reversed", negligible: "verdict_negligible",
                         none: "verdict_none", oneSeed: "verdict_one_seed", notMeasured: "verdict_not_measured" };
  const verdictText = (word) => text(VERDICT_TEXT[Object.keys(WORDS).find((key) => WORDS[key] === word)]);

  const twinHeading = (twin, config) => (twin === 0 ? text("twin_with", { x0: config.x0 }) : text("twin_without"));

  // ---- one report pair, as the first seed's twins see it now and at their best steps ----
  function pair(view, dot) {
    const { scheme, config, dots, about } = view, gold = about.gold[dot], x0s = [config.x0, 0];
    const [first, second] = about.sentences[dot], clamped = [];
    const head = el("tr", {}, el("th", {}), ["pair_prediction", "pair_error", "pair_in_buffer", "pair_pull"]
      .map((key) => el("th", { scope: "col" }, brief(text(key), text(`${key}_short`)))));
    const rows = [];
    view.twinLabels.forEach((name, t) => {
      const moments = [["now", text("pair_now"), dots.now[t][dot]],
                       ["best", text("pair_best", { step: count(dots.bestSteps[t]) }), dots.best[t][dot]]];
      for (const [moment, when, prediction] of moments) {
        const read = Engine.clampThrough(prediction, scheme), error = Math.abs(read - gold);
        const inside = error < x0s[t], pulled = Engine.pull(config.loss, config.k, x0s[t], prediction, gold, scheme);
        if (read !== prediction) clamped.push(prediction);
        rows.push(el("tr", { className: `twin-${t} ${moment}` },
          el("th", { scope: "row" }, `${text(t === 0 ? "pair_buffer" : "pair_none")} · ${when}`),
          el("td", {}, fixed(prediction, 3)),
          el("td", {}, fixed(error, 3) + (read !== prediction ? text("pair_read_as", { label: label(read) }) : "")),
          el("td", {}, x0s[t] > 0 ? text(inside ? "yes" : "no") : brief(text("pair_no_buffer"), "–")),
          el("td", { className: "words" }, pullText(pulled, inside, gold))));
      }
    });
    const notes = [el("p", { className: "note" }, text("pair_note_report"))];
    if (clamped.length) {
      notes.push(el("p", { className: "note" }, text("pair_note_clamp", { prediction: fixed(clamped[0], 3),
                                                                          read: label(Engine.clampThrough(clamped[0], scheme)) })));
    }
    return [el("p", { className: "pair-title" }, text("pair_title", { number: dot + 1, gold: label(gold), step: count(view.step) })),
            el("p", { className: "sentence" }, `“${first}”`), el("p", { className: "sentence" }, `“${second}”`),
            el("div", { className: "scroll" }, el("table", { className: "pair-table" }, head, rows)), notes];
  }

  // A text in full, and its abbreviation where a phone's column is narrow (page.css shows one of them).
  const brief = (long, short) => [el("span", { className: "long" }, long), el("abbr", { className: "short", title: long }, short)];

  // Descent moves a prediction against its gradient: a positive pull lowers it toward the label.
  function pullText(pulled, inside, gold) {
    if (inside) return text("pull_left_alone");
    if (pulled === 0) return text("pull_on_label");
    return text(pulled > 0 ? "pull_down" : "pull_up", { size: fixed(Math.abs(pulled), 2), label: label(gold) });
  }

  // Each button names its pair in data-dot (the page listens on the list, so a redrawn button needs no listener).
  function moved(view) {
    if (!view.dots || !view.dots.moved.length) return [];
    const short = (text) => (text.length <= 70 ? text : text.slice(0, 69) + "…");
    return [el("p", { className: "moved-title" }, text("moved_title")),
      view.dots.moved.map((dot) => {
        const gap = Math.abs(view.dots.now[0][dot] - view.dots.now[1][dot]);
        return el("button", { type: "button", className: "moved-pair", dataset: { dot: String(dot) } },
          `Δ ${fixed(gap, 2)} · ${view.about.sentences[dot].map(short).join(" | ")}`);
      })];
  }

  // What the dots chart shows about where the buffer sits, for this data's labels.
  function dotsNote(view) {
    const onNodes = Array.from(view.about.gold).every((y) => Engine.nearestIndex(y, view.scheme) * view.scheme.gap === y);
    return text(onNodes ? "dots_on_nodes" : "dots_fractional");
  }

  // ---- presets and the start-here steps ----
  function presetList(presets, settings) {
    return presets.map((preset) => {
      const hide = preset.hide.filter((name) => settings.names.includes(name));
      return el("li", {}, el("a", { href: `?preset=${encodeURIComponent(preset.name)}` }, words(preset.title)), ". ", rich(words(preset.do)),
        " ", el("a", { href: `?preset=${encodeURIComponent(preset.name)}&hide=${hide.join(",")}`, className: "classroom" },
           text("classroom_link")), " · ",
        el("a", { href: `?preset=${encodeURIComponent(preset.name)}&teach=1`, className: "teach-link" }, text("teach_link")));
    });
  }

  function presetBox(preset, stillIt) {
    return [el("p", { className: "preset-title" }, text("preset_label"), el("b", {}, words(preset.title)),
              stillIt ? "" : text("preset_changed")),
            el("p", {}, rich(words(preset.do)))];
  }

  root.PlaygroundPanels = { el, sync, rich, status, pair, moved, dotsNote, presetList, presetBox, metricName, verdictText, DIGITS };
})(typeof globalThis !== "undefined" ? globalThis : this);
