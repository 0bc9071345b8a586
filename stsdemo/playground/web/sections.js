// The page's sections beside the Playground: the payoff map (map.js) for the current settings, the Loss explorer
// (loss.js) with its knobs, and, in the app (site.json's "app"), the upload of a visitor's own labelled pairs and the
// export of the trained head; on the static site one line says those need the full app. A plain script:
// globalThis.PlaygroundSections; needs charts.js, panels.js, map.js and loss.js.
(function (root) {
  "use strict";
  const { el } = root.PlaygroundPanels, Charts = root.PlaygroundCharts, Loss = root.PlaygroundLoss;
  const { text } = root.PlaygroundText;
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 700;
  const REFERENCES = { l1: "L1", mse: "MSE" };
  const LINKED = ["k", "x0", "d", "prediction", "label"];   // what the explorer's link carries

  // context: {settings, rule, state, player, tell(notices), setValue(name, value), current() -> the shown view}
  function build(site, context) {
    const payoff = new root.PlaygroundMap.PayoffMap(site.payoff, context.rule, site.datasets);
    const reading = $("map-reading");
    reading.replaceChildren(...(site.payoff.readings || []).map((name) => el("option", { value: name }, text(`map_reading_${name}`))));
    let values = context.state.values;
    const drawMap = () => {
      const found = payoff.view(values, reading.value);
      $("map-title-line").textContent = found.title;
      Charts.heatmap($("map-chart"), found, $("map").clientWidth);
      $("map-text").replaceChildren(...found.lines.map((line) => el("p", {}, line)));
    };
    reading.addEventListener("change", drawMap);
    new ResizeObserver(drawMap).observe($("map"));

    const explorer = lossExplorer(site.loss, context.settings, location.origin + location.pathname);
    appParts(site.app, context);
    return {
      settingsChanged(next) { values = next; drawMap(); },
      openLoss: explorer.open,
    };
  }

  // ---- the Loss explorer ----
  // `linkBase`: where this explorer's link opens it (the static page, or the app that frames it, whose Loss explorer
  // tab is this section alone: ?view=loss).
  function lossExplorer(declared, settings, linkBase) {
    const knobs = { ...declared.start, prediction: declared.sample[0], label: declared.sample[1] };
    const reach = declared.sample_reach;   // |prediction| and |label| the explorer takes
    const references = new Set(Object.keys(REFERENCES));
    const boxes = {}, clamped = el("p", { id: "loss-clamped", className: "note", role: "status" });
    // a number for `name` from text (typed, or a link's), and what to say of it: a knob's is held to its range; the
    // sample's prediction or label, past ±reach or not a number, keeps its value
    const read = (name, typed) => {
      const number = Number(typed), given = typed !== "" && typed !== null && Number.isFinite(number);
      if (!declared.sliders[name]) {
        return given && Math.abs(number) <= reach ? { value: number, said: "" }
          : { value: knobs[name], said: text("loss_sample_refused", { name, given: String(typed).slice(0, 20), reach, value: knobs[name] }) };
      }
      const { low, high } = declared.sliders[name];
      if (!given) return { value: knobs[name], said: typed === "" ? "" : text("loss_knob_not_number", { title: settings.title(name), value: knobs[name] }) };
      const value = Math.min(Math.max(number, low), high);
      return { value, said: value === number ? "" : text("loss_knob_clamped", { title: settings.title(name), given: number, low, high, value }) };
    };
    const knob = (name) => {
      const { low, high, step } = declared.sliders[name], id = `loss-${name}`;
      const slider = el("input", { type: "range", min: low, max: high, step, tabIndex: -1 });
      slider.setAttribute("aria-hidden", "true");
      const box = el("input", { type: "number", id, min: low, max: high, step, inputMode: "decimal" });
      const set = (text) => {
        const { value, said } = read(name, text);
        knobs[name] = value;
        clamped.textContent = said;   // a typed value past the slider's range is drawn at its end: say so, not silently
        draw();
      };
      slider.addEventListener("input", () => set(slider.value));
      box.addEventListener("change", () => set(box.value));
      boxes[name] = [slider, box];
      const hint = name === "k" && declared.hint ? [el("span", { className: "note" }, text("loss_paper_k", { k: declared.hint }))] : [];
      return el("div", { className: "field" }, el("label", { htmlFor: id }, settings.title(name)),
                el("div", { className: "field-inputs" }, slider, box), ...hint);
    };
    const sample = (name, title) => {
      const box = el("input", { type: "number", id: `loss-${name}`, step: name === "label" ? 0.5 : 0.05, inputMode: "decimal" });
      box.addEventListener("change", () => { knobs[name] = read(name, box.value).value; draw(); });
      boxes[name] = [box];
      return el("div", { className: "field" }, el("label", { htmlFor: `loss-${name}` }, title), box);
    };
    const checks = Object.entries(REFERENCES).map(([name, title]) => {
      const box = el("input", { type: "checkbox", checked: true });
      box.addEventListener("change", () => { if (box.checked) references.add(name); else references.delete(name); draw(); });
      return el("label", { className: "check" }, box, ` ${title}`);
    });
    $("loss-knobs").replaceChildren(knob("k"), knob("x0"), knob("d"), clamped,
      el("div", { className: "field" }, el("span", {}, text("loss_references")), el("div", {}, checks)),
      el("p", { className: "note" }, text("loss_try")),
      el("div", { className: "sample-row" }, sample("prediction", text("loss_prediction")), sample("label", text("loss_label"))));

    const link = $("loss-link");
    $("loss-copy-link").addEventListener("click", () => {
      const said = (text) => { $("loss-copied").textContent = text; };
      link.select();
      (navigator.clipboard ? navigator.clipboard.writeText(link.value) : Promise.reject(new Error("no clipboard")))
        .then(() => said(text("copied")), () => said(text("copy_by_hand")));
    });

    function draw() {
      for (const [name, inputs] of Object.entries(boxes)) inputs.forEach((input) => { input.value = String(knobs[name]); });
      const query = new URLSearchParams({ tab: "loss" });
      for (const name of LINKED) query.set(name, String(knobs[name]));
      link.value = `${linkBase}?${query}`;
      Charts.draw($("loss-chart"), Loss.spec(knobs, [...references]), $("loss-chart").parentElement.clientWidth);
      $("loss").dataset.pastHalf = String(knobs.x0 > knobs.d / 2);   // what the Loss explorer's step asks (story.js)
      const verdict = $("loss-verdict");
      verdict.textContent = Loss.verdict(knobs);
      verdict.classList.toggle("invalid", Boolean(Loss.problem(knobs.k, knobs.x0, knobs.d)));
      const formulas = Loss.formulas(knobs);
      $("loss-formulas").replaceChildren(...formulas.losses.map((loss) => el("p", {}, el("b", {}, loss.name), `: ${loss.says}`,
        el("br"), el("code", {}, loss.general), el("br"), text("loss_here"), el("code", {}, loss.here))), el("p", {}, formulas.note));
      const rows = Loss.sampleRows(knobs);
      $("loss-sample").replaceChildren(el("table", { className: "sample-table" },
        el("caption", {}, text("loss_one_sample")),
        el("tr", {}, [text("loss_column_loss"), text("loss_column_x"), "f(x)", "df/dprediction", text("loss_column_in_buffer")]
          .map((heading) => el("th", { scope: "col" }, heading))),
        rows.map((row) => el("tr", {}, el("th", { scope: "row" }, row.loss), el("td", {}, row.x), el("td", {}, row.f),
                                      el("td", {}, row.pull), el("td", {}, text(row.inside))))));
    }
    new ResizeObserver(draw).observe($("loss"));

    return {
      // a link (?tab=loss&k=...&x0=...): its numbers, each within its range (said when one is not); `bring`: the
      // explorer scrolled into view (not when it is the whole page, in the app's tab)
      open(query, bring = true) {
        const said = [];
        for (const name of LINKED) {
          if (!query.has(name)) continue;
          const found = read(name, query.get(name));
          knobs[name] = found.value;
          if (found.said) said.push(found.said);
        }
        clamped.textContent = said.join(" ");
        draw();
        if (bring) $("loss").scrollIntoView({ block: "start" });
      },
    };
  }

  // ---- the app's upload and export; one line on the static site ----
  function appParts(app, context) {
    const box = $("app-parts");
    if (!app) {
      box.replaceChildren(el("p", { className: "note", id: "app-only" }, text("app_only")));
      return;
    }
    const file = el("input", { type: "file", id: "upload-file", accept: ".csv,.tsv,.txt" });
    const scale = el("input", { type: "text", id: "upload-scale", value: "infer" });
    const said = el("p", { className: "note", id: "upload-said", role: "status" }, text("upload_note"));
    file.addEventListener("change", () => { if (file.files.length) upload(app.upload, file, scale.value, said, context); });
    const exported = el("p", { className: "note", id: "export-said", role: "status" });
    const button = el("button", { type: "button", id: "export" }, text("export_button"));
    button.addEventListener("click", () => exportRun(app.export, context, exported));
    box.replaceChildren(
      el("details", { id: "own-pairs" }, el("summary", {}, text("own_pairs")),
         el("div", { className: "field" }, el("label", { htmlFor: "upload-scale" }, text("upload_scale")), scale),
         el("div", { className: "field" }, el("label", { htmlFor: "upload-file" }, text("upload_file")), file), said),
      el("details", { id: "export-box" }, el("summary", {}, text("export_title")),
         el("p", { className: "note" }, text("export_note")), button, exported));
  }

  async function answer(response) {
    const body = await response.json().catch(() => ({}));
    if (!response.ok || body.error) throw new Error(body.error || `the app answered HTTP ${response.status}`);
    return body;
  }

  // Send the file, then ask how far the embedding is until it is done; a refused file is cleared from the box.
  async function upload(url, file, scale, said, context) {
    const form = new FormData();
    form.append("file", file.files[0]);
    form.append("scale", scale);
    try {
      const { job } = await answer(await fetch(url, { method: "POST", body: form }));
      for (;;) {
        const found = await answer(await fetch(`${url}?job=${encodeURIComponent(job)}`));
        if (found.done) {
          said.textContent = `${found.title}: ${found.text}`;
          context.state.upload = found.key;
          context.setValue("data", "upload");
          return;
        }
        said.textContent = found.progress || text("embedding");
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      file.value = "";
      said.textContent = text("not_read", { error: error.message });
    }
  }

  async function exportRun(url, context, said) {
    const view = context.current();
    try {
      if (!view || view.step === 0) throw new Error(text("nothing_to_export"));
      const head = await context.player.bestHead(0);
      said.textContent = text("writing_head", { step: head.step });
      const { url: zip, name } = await answer(await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ config: view.config, head, step: view.step }) }));
      const link = el("a", { href: zip, download: name }, name);
      said.replaceChildren(text("ready"), link);
      link.click();
    } catch (error) {
      said.textContent = text("not_exported", { error: error.message });
    }
  }

  root.PlaygroundSections = { build, lossExplorer };
})(typeof globalThis !== "undefined" ? globalThis : this);
