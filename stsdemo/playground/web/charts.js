// The page's charts on canvases: a drawing spec (panels with their ranges, ticks, shaded bands, lines and dots, and a
// legend each; the form the page's canvas draws) drawn in a few milliseconds, 1,200
// dots included, where a plotting library took hundreds. dotsSpec and curvesSpec build the Playground's two charts
// from a view (player.js), heatmap draws the payoff map. Panels sit in `spec.columns` columns, one below 560 px.
// Their words are the page's (text.js, read when a chart is built). A plain script: globalThis.PlaygroundCharts.
(function (root) {
  "use strict";
  const text = (key, values) => root.PlaygroundText.text(key, values);
  const FONT = "12px ui-sans-serif, system-ui, -apple-system, 'Segoe UI', sans-serif";
  const INK = "#1f2937", GRID = "rgba(31, 41, 55, 0.12)", SUBTLE = "#4b5563";
  const LINE_MARKS = ["line", "dash", "dot-line"], DASHES = { line: [], dash: [5, 4], "dot-line": [2, 3] };
  // one palette with the app (Okabe & Ito, colour-blind friendly): each loss, and the buffer's shading
  const COLORS = { sk2: "#D55E00", trelu: "#0072B2", l1: "#7f7f7f", mse: "#009E73", buffer: "rgba(0, 114, 178, 0.22)",
                   margin: "rgba(0, 114, 178, 0.07)", bad: "rgba(204, 37, 41, 0.20)" };
  const TWIN_OF = { sk2: "mse", trelu: "l1" };
  const AXIS_REACH = 0.6;   // the dots' axes reach this many gaps beyond the outermost nodes

  const twinColors = (loss) => [COLORS[loss], COLORS[TWIN_OF[loss]]];

  // ---- the renderer ----
  function legendPlaces(ctx, panel, width) {   // [x, line] of each legend entry, wrapping at the panel's right edge
    let x = 4, line = 0;
    return (panel.legend || []).map((entry) => {
      const size = (LINE_MARKS.includes(entry.mark) ? 22 : 12) + ctx.measureText(entry.name).width;
      if (x > 4 && x + size > width - 4) { x = 4; line += 1; }
      const place = [x, line];
      x += size + 14;
      return place;
    });
  }

  function frame(spec, panel, left, top, width, height, lines) {
    const margin = { l: 44, r: 14, t: 22 + 18 * Math.max(lines, spec.legends ? 1 : 0), b: panel.x_title ? 34 : 20 };
    const [x0, x1] = panel.x_range, [y0, y1] = panel.y_range;
    const innerW = Math.max(10, width - margin.l - margin.r), innerH = Math.max(10, height - margin.t - margin.b);
    return {
      left, top, width, height,
      X: (v) => left + margin.l + (v - x0) / (x1 - x0 || 1) * innerW,
      Y: (v) => top + margin.t + innerH - (v - y0) / (y1 - y0 || 1) * innerH,
      inside: [left + margin.l, top + margin.t, innerW, innerH],
    };
  }

  function axes(ctx, panel, f) {
    ctx.strokeStyle = GRID; ctx.fillStyle = SUBTLE; ctx.lineWidth = 1;
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    for (const [value, label] of panel.x_ticks || []) {
      const x = f.X(value);
      ctx.beginPath(); ctx.moveTo(x, f.inside[1]); ctx.lineTo(x, f.inside[1] + f.inside[3]); ctx.stroke();
      ctx.fillText(label, x, f.inside[1] + f.inside[3] + 3);
    }
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const [value, label] of panel.y_ticks || []) {
      const y = f.Y(value);
      ctx.beginPath(); ctx.moveTo(f.inside[0], y); ctx.lineTo(f.inside[0] + f.inside[2], y); ctx.stroke();
      ctx.fillText(label, f.inside[0] - 4, y);
    }
    ctx.strokeStyle = "rgba(31, 41, 55, 0.35)";
    ctx.strokeRect(...f.inside);
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    if (panel.x_title) ctx.fillText(panel.x_title, f.inside[0] + f.inside[2] / 2, f.top + f.height - 2);
    if (panel.y_title) {
      ctx.save(); ctx.translate(f.left + 11, f.inside[1] + f.inside[3] / 2); ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = "middle"; ctx.fillText(panel.y_title, 0, 0); ctx.restore();
    }
  }

  function marks(ctx, panel, f, selected) {
    ctx.save();
    ctx.beginPath(); ctx.rect(...f.inside); ctx.clip();
    for (const band of panel.bands || []) {
      const [x0, x1, y0, y1] = band.box;
      ctx.fillStyle = band.color;
      ctx.fillRect(f.X(x0), f.Y(y1), f.X(x1) - f.X(x0), f.Y(y0) - f.Y(y1));
    }
    for (const line of panel.lines || []) {
      ctx.strokeStyle = line.color; ctx.lineWidth = line.width || 2;
      ctx.setLineDash(line.dot ? [2, 3] : line.dash ? [5, 4] : []);
      ctx.beginPath();
      let open = false;
      line.x.forEach((x, i) => {
        const y = line.y[i];
        if (y === null || y === undefined || !Number.isFinite(y)) { open = false; return; }
        if (open) ctx.lineTo(f.X(x), f.Y(y)); else ctx.moveTo(f.X(x), f.Y(y));
        open = true;
      });
      ctx.stroke();
    }
    ctx.setLineDash([]);
    for (const dots of panel.dots || []) {
      ctx.lineWidth = 1.3; ctx.strokeStyle = dots.color; ctx.fillStyle = dots.hollow ? "#ffffff" : dots.color;
      ctx.globalAlpha = dots.hollow ? 1 : 0.8;
      for (let i = 0; i < dots.x.length; i++) {
        ctx.beginPath(); ctx.arc(f.X(dots.x[i]), f.Y(dots.y[i]), dots.size || 3, 0, 2 * Math.PI); ctx.fill();
        if (dots.hollow) ctx.stroke();
      }
      ctx.globalAlpha = 1;
      const j = selected === null || !dots.i ? -1 : dots.i.indexOf(selected);
      if (j >= 0) {
        ctx.lineWidth = 2.5; ctx.strokeStyle = INK;
        ctx.beginPath(); ctx.arc(f.X(dots.x[j]), f.Y(dots.y[j]), 7, 0, 2 * Math.PI); ctx.stroke();
      }
    }
    ctx.restore();
  }

  function heading(ctx, panel, f, places) {
    ctx.textAlign = "left"; ctx.textBaseline = "top"; ctx.fillStyle = INK;
    ctx.font = "600 " + FONT; ctx.fillText(panel.title || "", f.left + 4, f.top + 2); ctx.font = FONT;
    (panel.legend || []).forEach((entry, index) => {
      let x = f.left + places[index][0];
      const y = f.top + 22 + 18 * places[index][1];
      ctx.strokeStyle = entry.color; ctx.fillStyle = entry.color; ctx.lineWidth = 2;
      if (LINE_MARKS.includes(entry.mark)) {
        ctx.setLineDash(DASHES[entry.mark]);
        ctx.beginPath(); ctx.moveTo(x, y + 6); ctx.lineTo(x + 18, y + 6); ctx.stroke(); ctx.setLineDash([]);
        x += 22;
      } else {
        ctx.beginPath(); ctx.arc(x + 4, y + 6, 3.5, 0, 2 * Math.PI);
        if (entry.mark === "hollow") { ctx.fillStyle = "#ffffff"; ctx.fill(); ctx.lineWidth = 1.3; ctx.stroke(); }
        else if (entry.mark === "band") { ctx.fillRect(x, y, 10, 12); }
        else ctx.fill();
        x += 12;
      }
      ctx.fillStyle = INK; ctx.fillText(entry.name, x, y);
    });
  }

  // Draw `spec` at `width` CSS pixels; the canvas keeps each panel's frame for dotAt (`canvas.frames`).
  function draw(canvas, spec, width, selected = null) {
    width = Math.max(220, Math.floor(width));
    const columns = width < 560 ? 1 : (spec.columns || 1);
    const rows = Math.ceil(spec.panels.length / columns), panelHeight = spec.panel_height || 260;
    const height = rows * panelHeight, ratio = root.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {   // a resize
      canvas.style.width = width + "px"; canvas.style.height = height + "px";                           // lays out
      canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    const panelWidth = width / columns;
    canvas.frames = spec.panels.map((panel, index) => {
      const places = legendPlaces(ctx, panel, panelWidth);
      const lines = places.length ? places[places.length - 1][1] + 1 : 0;
      const f = frame(spec, panel, (index % columns) * panelWidth, Math.floor(index / columns) * panelHeight,
                      panelWidth, panelHeight, lines);
      axes(ctx, panel, f);
      marks(ctx, panel, f, selected);
      heading(ctx, panel, f, places);
      return [panel, f];
    });
  }

  // The dot index nearest (x, y) on a drawn canvas, within 12 px, and where it is: {dot, x, y} or null.
  function dotAt(canvas, x, y) {
    let found = null, nearest = 12 * 12;
    for (const [panel, f] of canvas.frames || []) {
      for (const dots of panel.dots || []) {
        dots.x.forEach((value, j) => {
          const dx = f.X(value) - x, dy = f.Y(dots.y[j]) - y, distance = dx * dx + dy * dy;
          if (distance < nearest && dots.i) { nearest = distance; found = { dot: dots.i[j], x: f.X(value), y: f.Y(dots.y[j]) }; }
        });
      }
    }
    return found;
  }

  // Where a dot is drawn (its first panel): {x, y} in CSS pixels, or null.
  function dotPlace(canvas, dot) {
    for (const [panel, f] of canvas.frames || []) {
      for (const dots of panel.dots || []) {
        const j = dots.i ? dots.i.indexOf(dot) : -1;
        if (j >= 0) return { x: f.X(dots.x[j]), y: f.Y(dots.y[j]) };
      }
    }
    return null;
  }

  // ---- axes helpers  ----
  function niceTicks(low, high, count = 4) {   // about `count` round values (1, 2 or 5 x 10^n), never fewer than 3
    const raw = Math.max(high - low, 1e-9) / count, power = 10 ** Math.floor(Math.log10(raw));
    const steps = [0.1, 0.2, 0.5, 1, 2, 5, 10].map((m) => m * power);
    const first = steps.findIndex((step) => step >= raw);
    let values = [], chosen = steps[0];
    for (const step of steps.slice(0, first + 1).reverse()) {
      chosen = step; values = [];
      for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) values.push(v);
      if (values.length >= 3) break;
    }
    const digits = Math.max(0, -Math.floor(Math.log10(chosen)));
    return values.map((v) => [v, v.toFixed(digits)]);
  }

  function paddedRange(values, pad = 0.08, least = 1e-3) {
    const finite = values.filter((v) => v !== null && Number.isFinite(v));
    if (!finite.length) return [0, 1];
    const low = Math.min(...finite), high = Math.max(...finite), margin = Math.max((high - low) * pad, least);
    return [low - margin, high + margin];
  }

  const nodesOf = (scheme) => Array.from({ length: scheme.nodes }, (_, i) => i * scheme.gap);

  // ---- the Playground's two charts ----
  // One twin's report pairs (the first seed): gold label across, prediction up, the buffer ±x0 shaded around each
  // node. For the buffered twin the pairs within x0 of their label are hollow: were they training pairs, its loss
  // would leave them alone. The x0 = 0 twin has no buffer.
  function dotsPanel(view, twin, title) {
    const { scheme, config, dots } = view, gap = scheme.gap;
    const low = scheme.low - AXIS_REACH * gap, high = scheme.high + AXIS_REACH * gap;
    const shown = Array.from(dots.now[twin], (p) => Math.min(Math.max(p, low), high));
    const color = twinColors(config.loss)[twin], groups = [], legend = [];
    for (const hollow of [false, true]) {
      if (hollow && twin === 1) continue;
      const chosen = shown.map((_, i) => i).filter((i) => dots.inside[twin][i] === hollow);
      groups.push({ x: chosen.map((i) => dots.across[i]), y: chosen.map((i) => shown[i]), i: chosen, color, hollow });
      legend.push({ name: text(hollow ? "dots_inside" : "dots_outside", { count: chosen.length }), color,
                    mark: hollow ? "hollow" : "dot" });
    }
    const ticks = nodesOf(scheme).map((node) => [node, String(+node.toFixed(3))]);
    return { title, legend, x_range: [low, high], y_range: [low, high], x_ticks: ticks, y_ticks: ticks,
             x_title: text("axis_gold"), y_title: text("axis_prediction"),
             bands: nodesOf(scheme).map((node) => ({ box: [node - gap / 2, node + gap / 2, node - config.x0, node + config.x0],
                                                     color: COLORS.buffer })),
             lines: [{ x: [low, high], y: [low, high], color: "rgba(31,41,55,0.35)", width: 1, dash: true }],
             dots: groups };
  }

  function dotsSpec(view) {
    const titles = [text("dots_with", { twin: view.twinLabels[0] }), text("dots_without", { twin: view.twinLabels[1] })];
    return { columns: 2, panel_height: 330, legends: true, panels: [0, 1].map((t) => dotsPanel(view, t, titles[t])) };
  }

  // The twins' means over seeds against the step: the report set and the selection set in the data set's own metric
  // (each twin's best step, the median over seeds, a dotted line), the memorisation gap (fit on the training pairs
  // minus the selection set) and the share of training pairs within the buffered twin's x0.
  function curvesSpec(view) {
    const x = view.history.map((point) => point.step), colors = twinColors(view.config.loss), readBy = view.readBy;
    const metric = text(`metric_${readBy}`);
    const panels = [
      [text("curve_report", { metric }), (point) => point[readBy], true],
      [text("curve_selection", { metric }), (point) => point.selection, true],
      [text("curve_memorisation"), (point) => [0, 1].map((t) => point.fit[t] - point.selection[t]), false],
      [text("curve_inside"), (point) => point.inside, false],
    ].map(([title, valueOf, marked], index) => {
      const series = [0, 1].map((t) => view.history.map((point) => valueOf(point)[t]));
      const yRange = paddedRange(series[0].concat(series[1]));
      const lines = series.map((y, t) => ({ x, y, color: colors[t], width: t === 0 ? 2.2 : 1.8, dash: t === 1 }));
      if (marked) view.bestSteps.forEach((step, t) => lines.push({ x: [step, step], y: yRange, color: colors[t], width: 1.4, dot: true }));
      const legend = index ? [] : view.twinLabels.map((name, t) => ({ name, color: colors[t], mark: t ? "dash" : "line" }))
        .concat([{ name: text("curve_best"), color: SUBTLE, mark: "dot-line" }]);
      return { title, x_range: [0, view.steps], y_range: yRange, x_ticks: niceTicks(0, view.steps),
               y_ticks: niceTicks(yRange[0], yRange[1], 3), lines, legend };
    });
    panels[2].x_title = panels[3].x_title = text("axis_step");
    return { columns: 2, panel_height: 210, legends: true, panels };
  }

  // ---- the payoff map: one cell per (noise, size), coloured by the mean difference, its text in two lines ----
  function heatmap(canvas, map, width) {
    width = Math.max(280, Math.floor(width));
    const left = 62, top = 8, bottom = 44, rowHeight = 52, columns = map.columns.length, rows = map.rows.length;
    const cellWidth = (width - left - 8) / columns, height = top + rows * rowHeight + bottom;
    const ratio = root.devicePixelRatio || 1;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    const scale = Math.max(0.1, ...map.cells.flat().filter(Boolean).map((cell) => Math.abs(cell.mean)));
    map.rows.forEach((rowName, r) => {
      const y = top + r * rowHeight;
      ctx.fillStyle = SUBTLE; ctx.textAlign = "right"; ctx.fillText(rowName, left - 6, y + rowHeight / 2);
      ctx.textAlign = "center";
      map.columns.forEach((_, c) => {
        const cell = map.cells[r][c], x = left + c * cellWidth;
        ctx.fillStyle = cell ? divergingColor(cell.mean / scale) : "#f3f4f6";
        ctx.fillRect(x + 1, y + 1, cellWidth - 2, rowHeight - 2);
        if (map.current && map.current[0] === r && map.current[1] === c) {
          ctx.strokeStyle = "#111827"; ctx.lineWidth = 3; ctx.strokeRect(x + 2.5, y + 2.5, cellWidth - 5, rowHeight - 5);
        }
        if (!cell) return;
        ctx.fillStyle = Math.abs(cell.mean / scale) > 0.6 ? "#ffffff" : INK;
        ctx.fillText(cell.top, x + cellWidth / 2, y + rowHeight / 2 - 8);
        ctx.fillText(cell.bottom, x + cellWidth / 2, y + rowHeight / 2 + 9);
      });
    });
    ctx.fillStyle = SUBTLE;
    map.columns.forEach((name, c) => ctx.fillText(name, left + (c + 0.5) * cellWidth, top + rows * rowHeight + 12));
    ctx.fillText(text("map_pairs_axis"), left + (width - left) / 2, top + rows * rowHeight + 32);
  }

  function divergingColor(share) {   // blue where the buffer helped (share > 0), red where it cost, white at 0
    const t = Math.min(1, Math.abs(share)), [r, g, b] = share >= 0 ? [33, 102, 172] : [178, 24, 43];
    const mix = (c) => Math.round(255 + (c - 255) * t);
    return `rgb(${mix(r)}, ${mix(g)}, ${mix(b)})`;
  }

  root.PlaygroundCharts = { draw, dotAt, dotPlace, dotsSpec, curvesSpec, heatmap, niceTicks, paddedRange, twinColors,
                            COLORS, INK, SUBTLE };
})(typeof globalThis !== "undefined" ? globalThis : this);
