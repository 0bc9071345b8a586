// The Playground's live view: a gr.HTML component's js_on_load (``element``, ``props``, ``watch`` and ``server``
// are Gradio's). A frame is the run's status (HTML the server escaped) and two charts, each a finished drawing spec
// (stsdemo.app.playground_plots): panels with their ranges, ticks, shaded bands, lines and dots, and a legend per
// panel. Play, Step and Reset send a frame as the component's value (one JSON string); while a run plays, this
// asks the server for each next frame itself (``server.playground_tick``), bypassing the event queue, whose
// bookkeeping cost more than the drawing. This only draws: 1,200 dots take a few milliseconds on a canvas where
// a plotting library took hundreds. Panels sit in ``spec.columns`` columns, one in a window narrower than 560 px.
(() => {
  const FONT = "12px ui-sans-serif, system-ui, -apple-system, 'Segoe UI', sans-serif";
  const INK = "#1f2937", GRID = "rgba(31, 41, 55, 0.12)", SUBTLE = "#6b7280";
  const LINE_MARKS = ["line", "dash", "dot-line"], DASHES = {line: [], dash: [5, 4], "dot-line": [2, 3]};
  let drawnWidth = 0;

  // Where each legend entry goes: [x, line] from the panel's left, wrapping to a new line at its right edge.
  function legendPlaces(ctx, panel, width) {
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
    const margin = {l: 44, r: 18, t: 22 + 18 * Math.max(lines, spec.legends ? 1 : 0), b: panel.x_title ? 34 : 20};
    const [x0, x1] = panel.x_range, [y0, y1] = panel.y_range;
    const innerW = Math.max(10, width - margin.l - margin.r), innerH = Math.max(10, height - margin.t - margin.b);
    return {
      margin, left, top, width, height,
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

  function marks(ctx, panel, f) {
    ctx.save();
    ctx.beginPath(); ctx.rect(...f.inside); ctx.clip();
    for (const band of panel.bands || []) {
      ctx.fillStyle = band.color;
      const [x0, x1, y0, y1] = band.box;
      ctx.fillRect(f.X(x0), f.Y(y1), f.X(x1) - f.X(x0), f.Y(y0) - f.Y(y1));
    }
    for (const line of panel.lines || []) {
      ctx.strokeStyle = line.color; ctx.lineWidth = line.width || 2;
      ctx.setLineDash(line.dot ? [2, 3] : line.dash ? [5, 4] : []);
      ctx.beginPath();
      let open = false;
      line.x.forEach((x, i) => {
        const y = line.y[i];
        if (y === null || y === undefined) { open = false; return; }
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
        ctx.beginPath(); ctx.arc(f.X(dots.x[i]), f.Y(dots.y[i]), 3, 0, 2 * Math.PI); ctx.fill();
        if (dots.hollow) ctx.stroke();
      }
      ctx.globalAlpha = 1;
    }
    if (selected !== null) {
      for (const dots of panel.dots || []) {
        const j = (dots.i || []).indexOf(selected);
        if (j < 0) continue;
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
        else ctx.fill();
        x += 12;
      }
      ctx.fillStyle = INK; ctx.fillText(entry.name, x, y);
    });
  }

  function drawChart(canvas, spec) {
    if (!canvas || !spec || !spec.panels) return;
    const width = Math.max(220, Math.floor(element.clientWidth || 600));
    const columns = width < 560 ? 1 : (spec.columns || 1);
    const rows = Math.ceil(spec.panels.length / columns);
    const panelHeight = spec.panel_height || 260, height = rows * panelHeight;
    const ratio = window.devicePixelRatio || 1;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    const panelWidth = width / columns;
    canvas.frames = [];
    spec.panels.forEach((panel, index) => {
      const places = legendPlaces(ctx, panel, panelWidth);
      const lines = places.length ? places[places.length - 1][1] + 1 : 0;
      const f = frame(spec, panel, (index % columns) * panelWidth, Math.floor(index / columns) * panelHeight,
                      panelWidth, panelHeight, lines);
      canvas.frames.push([panel, f]);
      axes(ctx, panel, f);
      marks(ctx, panel, f);
      heading(ctx, panel, f, places);
    });
    canvas.dataset.drawn = String(spec.stamp || 0);   // what was drawn last (the tests read it) ...
    if (spec.best) canvas.dataset.best = spec.best.join(",");   // ... and the twins' marked best steps
  }

  // Inspecting a pair: a click or tap on a dot (either panel), the arrow keys on the focused chart, or a pair of the
  // "most moved" list selects one report pair; it is ringed in both panels and the server tells its sentences, both
  // twins' predictions now and at their best steps, their distances, whether each sits inside the buffer and the
  // pull it would get as a training pair. Every text from the server is set as text, never as markup.
  let selected = null, viewKey = null;
  const text = (tag, value, cls) => { const el = document.createElement(tag); el.textContent = value;
                                      if (cls) el.className = cls; return el; };
  const number = (value) => (value >= 0 ? "+" : "−") + Math.abs(value).toFixed(2);

  function dotAt(canvas, x, y) {
    let best = null, bestDistance = 12 * 12;
    for (const [panel, f] of canvas.frames || []) {
      for (const dots of panel.dots || []) {
        dots.x.forEach((value, j) => {
          const dx = f.X(value) - x, dy = f.Y(dots.y[j]) - y, distance = dx * dx + dy * dy;
          if (distance < bestDistance) { bestDistance = distance; best = dots.i[j]; }
        });
      }
    }
    return best;
  }

  function describe(pair) {
    const box = element.querySelector("#pg-pair");
    box.replaceChildren();
    if (!pair) return;
    box.append(text("p", "Report pair " + (pair.dot + 1) + " · gold label " + pair.gold + " · step " +
                    pair.step.toLocaleString("en") + " (seed 0)", "pg-pair-title"));
    box.append(text("p", "“" + pair.sentence1 + "”", "pg-sentence"), text("p", "“" + pair.sentence2 + "”", "pg-sentence"));
    const table = document.createElement("table");
    const head = document.createElement("tr");
    ["", "prediction", "|error|", "inside the buffer", "pull as a training pair"].forEach((h) => head.append(text("th", h)));
    table.append(head);
    for (const twin of pair.twins) {
      for (const [when, reading] of [["now", twin.now], ["best step " + twin.best_step, twin.best]]) {
        const row = document.createElement("tr");
        row.append(text("td", twin.name + " · " + when), text("td", reading.prediction.toFixed(3)),
                   text("td", reading.distance.toFixed(3)),
                   text("td", twin.x0 > 0 ? (reading.inside ? "yes" : "no") : "no buffer"),
                   text("td", reading.inside ? "0 (left alone)" : number(reading.pull)));
        row.className = "pg-pair-" + (twin.x0 > 0 ? "buffer" : "none") + "-" + (when === "now" ? "now" : "best");
        table.append(row);
      }
    }
    box.append(table);
  }

  async function select(dot) {
    selected = dot;
    if (shown) render(shown);
    if (dot === null || !viewKey) { describe(null); return; }
    let pair = null;
    try { pair = await server.playground_pair([viewKey, dot]); } catch (error) { pair = null; }
    if (selected === dot) describe(pair);
  }

  function listMoved(moved) {
    const list = element.querySelector("#pg-moved");
    list.replaceChildren();
    if (!moved || !moved.length) return;
    list.append(text("p", "Most moved by the buffer (seed 0, now): the report pairs whose twins disagree most", "pg-moved-title"));
    for (const item of moved) {
      const button = text("button", "Δ " + item.gap.toFixed(2) + " · " + item.text, "pg-moved-pair");
      button.type = "button";
      button.addEventListener("click", () => select(item.dot));
      list.append(button);
    }
  }

  const dotsCanvas = element.querySelector("#pg-dots");
  dotsCanvas.tabIndex = 0;
  dotsCanvas.setAttribute("role", "img");
  dotsCanvas.setAttribute("aria-label", "Report pairs of both twins: click a dot, or use the arrow keys, to inspect a pair");
  dotsCanvas.addEventListener("click", (event) => {
    const box = dotsCanvas.getBoundingClientRect();
    const dot = dotAt(dotsCanvas, event.clientX - box.left, event.clientY - box.top);
    if (dot !== null) select(dot);
  });
  dotsCanvas.addEventListener("keydown", (event) => {
    if (!shown) return;
    const order = [];
    for (const dots of shown.dots.panels[0].dots) dots.i.forEach((i, j) => order.push([dots.x[j], i]));
    order.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const at = order.findIndex(([, i]) => i === selected);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      event.preventDefault();
      const next = at < 0 ? 0 : Math.min(order.length - 1, Math.max(0, at + (event.key === "ArrowRight" ? 1 : -1)));
      select(order[next][1]);
    } else if (event.key === "Escape") {
      select(null);
    }
  });

  // A frame: {status (HTML the server escaped), dots, curves, playing, token, view_key}.
  let shown = null;
  function render(view) {
    if (!view || !view.dots) return;
    const fresh = shown !== view;
    shown = view;
    if (view.view_key) viewKey = view.view_key;
    element.querySelector("#pg-status").innerHTML = view.status;
    if (fresh) listMoved(view.dots.moved);
    drawChart(element.querySelector("#pg-dots"), view.dots);
    drawChart(element.querySelector("#pg-curves"), view.curves);
    drawnWidth = Math.floor(element.clientWidth);
  }

  // Play: while playing, ask the server for the next frame, draw it, and ask again no sooner than
  // MIN_INTERVAL_MS after the last ask: one request at a time, so a slow machine gets fewer frames, never a queue.
  const MIN_INTERVAL_MS = 120, BUSY_WAIT_MS = 400;   // the server's frame slots were all taken: ask again soon
  let playing = false, generation = 0;
  async function play(token) {
    const mine = ++generation;
    playing = true;
    while (playing && mine === generation) {
      const asked = performance.now();
      let view;
      try { view = await server.playground_tick(token); } catch (error) { view = null; }
      if (!playing || mine !== generation) return;
      if (view && view.busy) { await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS)); continue; }
      if (!view || !view.dots) { playing = false; return; }
      render(view);
      if (selected !== null) select(selected);
      if (!view.playing) { playing = false; return; }
      const wait = MIN_INTERVAL_MS - (performance.now() - asked);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  function pause() { playing = false; generation += 1; }

  // What the visitor asked for last: a frame that says "playing" starts the loop only if Play was the last
  // thing asked (a Pause while the data set was still being embedded wins over the Play that waited for it).
  let wanted = "";
  function intent(event) {
    wanted = event.detail;
    if (wanted === "pause" || wanted === "changed") pause();
    const status = element.querySelector("#pg-status");
    const note = status.querySelector(".pg-changed");
    if (note) note.remove();
    if (wanted === "changed" && shown) {
      status.insertAdjacentHTML("afterbegin", "<p class=\"pg-changed\">A setting changed, so the run stopped: " +
        "press ▶ Play to start it again with the new settings (the numbers below are the old run's).</p>");
    }
  }

  function received() {
    let view;
    try { view = JSON.parse(props.value || "{}"); } catch (error) { return; }
    if (view.waiting) { element.querySelector("#pg-status").innerHTML = view.status; return; }
    if (!view.dots) return;
    pause();
    render(view);
    if (selected !== null) select(selected);
    if (view.playing && view.token && wanted === "play") play(view.token);
  }

  watch("value", received);
  received();
  document.addEventListener("stsdemo-playground-intent", intent);
  new ResizeObserver(() => {
    if (shown && Math.floor(element.clientWidth) !== drawnWidth) render(shown);
  }).observe(element);
})();
