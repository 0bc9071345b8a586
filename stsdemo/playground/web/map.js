// Where does the buffer pay off? The recorded payoff map (stsdemo.playground.payoff, in site.json's "payoff": every
// cell's per-seed differences and each reading's corrected verdicts) for the settings' data, loss and head, under one
// of its readings: a grid of label noise x training pairs, ▲ where the buffer holds, ▼ where it is reversed, the
// cell nearest the settings outlined, and what the map shows in words. A plain script: globalThis.PlaygroundMap;
// needs paired.js, panels.js and text.js (its words).
(function (root) {
  "use strict";
  const { Paired, fixed } = root.PlaygroundPaired, { text, count } = root.PlaygroundText;
  const { verdictText } = root.PlaygroundPanels;
  const MARKS = { holds: "▲", reversed: "▼" };
  const { READ_BY, LOSSES } = root.PlaygroundEngine;   // site.json's engine.read_by and engine.losses
  const MATCHED = ["head", "width", "loss", "k", "x0", "d", "round_labels", "lr", "batch_size", "steps", "seeds"];

  const key = (data, loss, head, noise, size) => `payoff/${data}/${loss}/${head}/noise${noise}/pairs${size}`;
  const sizeName = (size) => (size === 0 ? text("map_all") : count(size));
  const place = ([noise, size]) => text("map_place", { noise, size: size === 0 ? text("map_all") : size });

  class PayoffMap {
    constructor(recorded, rule, datasets) {
      this.recorded = recorded; this.rule = rule; this.datasets = datasets;
      const configs = Object.values(recorded.cells || {}).map((entry) => entry.config);
      this.noises = [...new Set(configs.map((c) => c.noise))].sort((a, b) => a - b);
      const sizes = [...new Set(configs.map((c) => c.train_pairs))];
      this.sizes = sizes.filter((s) => s > 0).sort((a, b) => a - b).concat(sizes.includes(0) ? [0] : []);
      this.readings = recorded.readings || [];   // the readings' names; their words are the page's
      this.heads = recorded.heads || [];
    }

    part(entry, reading) {   // a recorded cell's part for one reading (null: not read that way)
      return { step: entry, best: entry.stopped_at_best, tuned: entry.tuned }[reading] || null;
    }

    paired(entry, metric, reading) {
      const part = this.part(entry, reading);
      if (!part) return null;
      const found = part.paired[metric];
      return new Paired(this.rule, found.diffs, found.seeds, "spearman");
    }

    verdict(entry, reading, found) {   // the cell's verdict after the map's correction (its own test's if unlisted)
      return ((this.recorded.verdicts || {})[reading] || {})[keyOf(entry)] || found.verdict;
    }

    // The map for `config` under `reading`: {title, rows, columns, cells, current, lines (what it shows in words)}.
    view(config, reading) {
      const head = this.heads.includes(config.head) ? config.head : this.heads[0];
      const data = config.data in READ_BY ? config.data : "sts", metric = READ_BY[data];
      const cells = this.noises.map((noise) => this.sizes.map((size) => {
        const entry = this.recorded.cells[key(data, config.loss, head, noise, size)];
        const found = entry && this.paired(entry, metric, reading);
        if (!found) return null;
        const mark = MARKS[this.verdict(entry, reading, found)] || "";
        return { entry, found, mean: found.mean, top: fixed(found.mean, 2, true) + mark, bottom: "±" + fixed(found.se, 2) };
      }));
      const pool = (this.datasets[data] || {}).pool || 1;
      const current = this.nearest(config.noise, config.train_pairs, pool);
      const title = text("map_heading", { loss: LOSSES[config.loss].short, metric: root.PlaygroundPanels.metricName(metric),
                                          data: data.toUpperCase(), head, reading: readingName(reading) });
      const lines = [this.reading(cells, reading), this.confirmations(reading)];
      if (data !== config.data) lines.unshift(text("map_upload", { data: data.toUpperCase() }));
      if (head !== config.head) lines.push(text("map_head", { head: config.head }));
      const here = cells[current[0]][current[1]];
      if (here) {
        const found = this.readings.map((name) => [name, this.paired(here.entry, metric, name)])
          .filter(([, result]) => result)
          .map(([name, result]) => `${readingName(name)} ${result.numbers()}: ${verdictText(this.verdict(here.entry, name, result))}`);
        lines.push(text("map_nearest", { place: place([this.noises[current[0]], this.sizes[current[1]]]), found: found.join("; ") }));
        lines.push(matchText(config, here.entry.config));
      }
      const first = Object.values(this.recorded.cells || {})[0];
      if (first) {
        lines.push(text("map_cells", { seeds: first.seeds.length, steps: count(first.config.steps), machine: first.machine }));
      }
      return { title, rows: this.noises.map((noise) => `σ ${noise}`), columns: this.sizes.map(sizeName), cells, current, lines };
    }

    nearest(noise, size, pool) {   // the grid cell closest to a setting: nearest noise, nearest size on a log scale
      const wanted = size <= 0 || size >= pool ? pool : size;
      const closest = (values, distance) => values.reduce((best, v, i) => (distance(v) < distance(values[best]) ? i : best), 0);
      return [closest(this.noises, (n) => Math.abs(n - noise)),
              closest(this.sizes, (s) => Math.abs(Math.log((s || pool) / wanted)))];
    }

    // What the map shows, plainly (stsdemo.playground.payoff.reading).
    reading(cells, reading) {
      const found = [];
      cells.forEach((row, r) => row.forEach((cell, c) => {
        if (cell) found.push([[this.noises[r], this.sizes[c]], this.verdict(cell.entry, reading, cell.found)]);
      }));
      if (!found.length) return text("map_no_reading", { reading: readingName(reading) });
      const holds = found.filter(([, v]) => v === "holds").map(([p]) => p);
      const costs = found.filter(([, v]) => v === "reversed").map(([p]) => p);
      const negligible = found.filter(([, v]) => v === "negligible").length;
      const where = holds.length ? text("map_where", { places: holds.map(place).join(", ") }) : text("map_nowhere");
      const against = costs.length ? text("map_against", { places: costs.map(place).join(", ") }) : "";
      const total = Object.keys((this.recorded.verdicts || {})[reading] || {}).length;
      return text("map_says", { reading: readingName(reading), where, holds: holds.length, found: found.length,
                                costs: costs.length, against, negligible, total,
                                unclear: found.length - holds.length - costs.length - negligible });
    }

    // How the reading's marks stand after their confirmations on fresh seeds (stsdemo.playground.payoff.confirmation_text)
    confirmations(reading) {
      const counts = (this.recorded.confirmations || {})[reading];
      if (!counts || !counts.marks) return text("map_confirmed_none");
      const waiting = counts.waiting ? text("map_waiting", { count: counts.waiting }) : "";
      return text("map_confirmations", { ...counts, waiting });
    }
  }

  const readingName = (name) => text(`map_reading_${name}`);

  function keyOf(entry) {
    const c = entry.config;
    return key(c.data, c.loss, c.head, c.noise, c.train_pairs);
  }

  function matchText(config, recorded) {   // stsdemo.playground.payoff.match_text
    const differ = MATCHED.filter((name) => name in recorded && config[name] !== recorded[name])
      .map((name) => text("map_differ", { name, value: config[name], recorded: recorded[name] }));
    if (!differ.length) {
      return text(config.noise === recorded.noise && config.train_pairs === recorded.train_pairs ? "map_matches" : "map_between");
    }
    return text("map_no_match", { differ: differ.join(", ") });
  }

  root.PlaygroundMap = { PayoffMap };
})(typeof globalThis !== "undefined" ? globalThis : this);
