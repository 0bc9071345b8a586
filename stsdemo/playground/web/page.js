// The Playground page: reads site.json, restores the state its link names, and wires the controls, the player
// (player.js, training in Web Workers) and the views together. Rendering stays apart from the state: a setting goes
// through setValue (checked, the x0 <= d/2 rule applied, the link rewritten, the run told), and each view is drawn
// by draw(), at most once an animation frame. The map, the Loss explorer and the app's upload and export are
// sections.js's; the start-here steps and the presets' questions and reveals story.js's. Its words are site.json's,
// in the page's language (language.js, text.js).
(function () {
  "use strict";
  const { Settings } = PlaygroundState, { Controls } = PlaygroundControls, Panels = PlaygroundPanels;
  const Charts = PlaygroundCharts, { text } = PlaygroundText;
  const $ = (id) => document.getElementById(id);

  function fail(message) {
    const box = $("failure");
    box.textContent = message;
    box.hidden = false;
  }

  // Framed by the app: its Playground tab (the app has its own header, start-here steps and Loss explorer tab), or
  // its Loss explorer tab, which is this page's Loss explorer alone (?view=loss) and plays nothing.
  const framed = window.parent !== window;
  const lossOnly = framed && new URLSearchParams(location.search).get("view") === "loss";
  if (framed) document.documentElement.classList.add(lossOnly ? "loss-only" : "framed");

  // Until site.json (and so the page's words) is here, a failure can be said in English only.
  fetch("site.json").then((response) => {
    if (!response.ok) throw new Error(`site.json could not be loaded (HTTP ${response.status})`);
    return response.json();
  }).then((site) => {
    const language = PlaygroundLanguage.pageLanguage();
    PlaygroundText.use(site.strings, language);
    document.documentElement.lang = language;
    document.title = text("title");
    PlaygroundText.fill(document.body);
    if (!lossOnly && typeof Worker === "undefined") {
      $("no-worker").hidden = false;
      $("status").replaceChildren(Panels.el("p", {}, text("no_worker_status")));
      return;
    }
    (lossOnly ? startLoss : start)(site);
  }).catch((error) => fail(PlaygroundText.ready() ? text("could_not_start", { error: error.message })
                                                  : `The Playground could not start: ${error.message}.`));

  // The page sizes the app's frame to itself.
  function sizeTheFrame() {
    new ResizeObserver(() => window.parent.postMessage({ playgroundHeight: document.documentElement.scrollHeight },
                                                       location.origin)).observe(document.body);
  }

  // The app's Loss explorer tab: the explorer, its link opening the app's tab.
  function startLoss(site) {
    const settings = new Settings(site.settings, site.presets), app = window.parent.location;
    const query = new URLSearchParams(location.search);
    PlaygroundSections.lossExplorer(site.loss, settings, app.origin + app.pathname).open(query, false);
    PlaygroundStory.lossStory(site, query.get("quiz") !== "0");   // the start-here step's question beside it
    sizeTheFrame();
  }

  function start(site) {
    PlaygroundEngine.configure(site.engine);   // every constant the engine and the player read, from Python
    const settings = new Settings(site.settings, site.presets), rule = new PlaygroundPaired.Rule(site.rule);
    const query = new URLSearchParams(location.search), tab = query.get("tab");
    const restored = settings.fromQuery(tab === "loss" ? "" : location.search);
    const state = { values: restored.values, preset: restored.preset, hidden: restored.hidden, upload: restored.upload,
                    page: restored.page };
    let view = null, selected = null;

    const player = new PlaygroundPlayer.Player({
      workerUrl: "worker.js", rule,
      source: (config) => ({ source: config.data === "upload" ? `data/upload/${state.upload}.safetensors`
                                                              : site.datasets[config.data].file }),
      onView: (next) => { view = next; show(); },
      onStatus: ({ playing }) => {
        $("play").setAttribute("aria-pressed", String(playing));
        document.body.dataset.playing = String(playing);
      },
      onError: (error) => fail(text("run_stopped", { error: error.message })),
    });
    const controls = new Controls($("settings"), settings, setValue);
    const sections = PlaygroundSections.build(site, { settings, rule, state, player, tell, setValue,
                                                      current: () => view });
    const story = PlaygroundStory.build(site, state);

    // ---- the state: one setting changed, checked, shown, linked and told to the run ----
    function setValue(name, value, refused) {
      const notices = [];
      if (refused) notices.push(text("refused_stays", { reason: refused, title: settings.title(name), value: state.values[name] }));
      else {
        state.values = { ...state.values, [name]: value };
        if (name === "loss") state.values.k = PlaygroundEngine.LOSSES[value].paper_k;   // each from the paper's k
        if (state.values.x0 > state.values.d / 2) {
          state.values.x0 = state.values.d / 2;
          notices.push(text("x0_moved", { x0: state.values.x0 }));
        }
      }
      tell(notices);
      apply();
    }

    function apply() {
      controls.show(state.values, state.hidden);
      const link = `${location.pathname}?${settings.toQuery(state)}`;
      history.replaceState(null, "", link + location.hash);
      $("link").value = location.href;
      showPreset();
      sections.settingsChanged(state.values);
      const values = { ...state.values };
      whenServed(values).then(() => player.configure(values)).then((restarted) => {
        if (restarted && view && view.step > 0) tell([text("settings_changed")]);
      });
    }

    // A server still embedding a data set answers its file with 503 and the progress (the app, at start-up): say
    // so and ask again. A static site's files are always there; a served file is asked for once.
    const served = new Set();
    async function whenServed(values) {
      const url = values.data === "upload" ? `data/upload/${state.upload}.safetensors` : site.datasets[values.data].file;
      while (!served.has(url)) {
        const answer = await fetch(url, { method: "HEAD" });
        if (answer.status !== 503) { served.add(url); break; }
        const waiting = await fetch(url).then((response) => response.json()).catch(() => ({}));
        $("status").replaceChildren(Panels.el("p", {}, waiting.progress || text("preparing")));
        await new Promise((resolve) => setTimeout(resolve, 1000 * (waiting.retry_after || 1)));
      }
    }

    function tell(notices) {
      $("notices").replaceChildren(...notices.map((text) => Panels.el("p", {}, text)));
    }

    function showPreset() {
      const box = $("preset-box"), preset = site.presets.find((p) => p.name === state.preset);
      box.hidden = !preset;
      if (preset) box.replaceChildren(...Panels.presetBox(preset, settings.matchesPreset(state.values, state.preset)));
      story.show(preset);
    }

    // ---- a view, drawn ----
    // While playing, most views are glances: only the dots moved. The status, the curves and the panels change only
    // with a new measurement (at most twice a second), a setting or the width, and are redrawn only then, their
    // unchanged parts left in place. A view is drawn at the next animation frame, the latest one only: views the
    // screen had no frame for are skipped, never queued, and the workers train the next round meanwhile.
    let drawn = {}, asked = false;
    function show() {
      if (asked) return;
      asked = true;
      requestAnimationFrame(() => { asked = false; draw(); });
    }

    function draw() {
      if (!view || !view.dots) return;
      const width = chartsWidth || $("dots-wrap").clientWidth;   // read before anything is written
      const fresh = view.measurement !== drawn.measurement || view.config !== drawn.config || width !== drawn.width;
      Charts.draw($("dots"), Charts.dotsSpec(view), width, selected);
      document.body.dataset.step = String(view.step);
      document.body.dataset.finished = String(view.finished);
      if (fresh) {
        Panels.sync($("status"), Panels.status(view, view.about.model || "all-MiniLM-L6-v2"));
        Charts.draw($("curves"), Charts.curvesSpec(view), width);
        Panels.sync($("dots-note"), [Panels.dotsNote(view)]);
        Panels.sync($("moved"), Panels.moved(view));
        $("dots").dataset.best = view.bestSteps.join(",");
      }
      if (fresh || selected !== drawn.selected) describe();
      drawn = { measurement: view.measurement, config: view.config, width, selected };
    }

    // ---- inspecting a pair: a click or tap on a dot, the arrow keys on the chart, or a listed pair ----
    function choose(dot) {
      selected = dot;
      draw();
      const place = dot === null ? null : Charts.dotPlace($("dots"), dot);
      const panel = $("pair");
      if (place) {   // next to the dot: just below it, within the chart's width
        panel.style.top = `${Math.round(place.y + 14)}px`;
        panel.style.left = `${Math.round(Math.max(0, Math.min(place.x - 40, drawn.width - panel.offsetWidth)))}px`;
        panel.scrollIntoView({ block: "nearest" });
      }
    }

    const close = Panels.el("button", { type: "button", className: "close", title: text("close_title") }, "×");
    close.setAttribute("aria-label", text("close_label"));
    close.addEventListener("click", () => { choose(null); $("dots").focus(); });
    function describe() {
      const panel = $("pair");
      panel.hidden = selected === null;
      if (selected !== null) Panels.sync(panel, [close, Panels.pair(view, selected)]);
    }

    $("moved").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-dot]");
      if (button) choose(Number(button.dataset.dot));
    });
    $("dots").addEventListener("click", (event) => {
      const box = $("dots").getBoundingClientRect();
      const found = Charts.dotAt($("dots"), event.clientX - box.left, event.clientY - box.top);
      if (found) choose(found.dot);
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && selected !== null) choose(null);
    });
    $("dots").addEventListener("keydown", (event) => {
      if (!view || !view.dots || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) return;
      event.preventDefault();
      const order = Array.from(view.dots.across, (x, i) => [x, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const at = order.findIndex(([, i]) => i === selected), move = event.key === "ArrowRight" ? 1 : -1;
      choose(order[at < 0 ? 0 : Math.min(order.length - 1, Math.max(0, at + move))][1]);
    });

    // ---- the buttons and the link ----
    $("play").addEventListener("click", () => { tell([]); player.play(); });
    $("pause").addEventListener("click", () => player.pause());
    $("step").addEventListener("click", () => { tell([]); player.step(); });
    $("reset").addEventListener("click", () => { tell([]); player.reset(); });
    $("copy-link").addEventListener("click", () => {
      const said = (text) => { $("copied").textContent = text; };
      $("link").select();
      (navigator.clipboard ? navigator.clipboard.writeText(location.href) : Promise.reject(new Error("no clipboard")))
        .then(() => said(text("copied")), () => said(text("copy_by_hand")));
    });
    // The charts' width, kept as the observer sees it: drawing never asks for a layout.
    let chartsWidth = 0;
    new ResizeObserver(() => {
      chartsWidth = $("dots-wrap").clientWidth;
      if (view && chartsWidth !== drawn.width) draw();
    }).observe($("dots-wrap"));
    if (framed) sizeTheFrame();

    $("preset-list").replaceChildren(...Panels.presetList(site.presets, settings));
    tell(restored.notices);
    apply();
    if (tab || state.preset) $("start").querySelector("details").open = false;   // a link opens its own step
    if (tab === "loss") sections.openLoss(query);
    // a preset's link scrolls to its box; framed, the app brings its tab into view (scrolling here moves it)
    else if (state.preset && !framed) $("preset-box").scrollIntoView({ block: "start" });
  }
})();
