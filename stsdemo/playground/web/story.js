// The lesson on the page, in the page's language (language.js): a preset's question before ▶ Play, what to watch, and
// after the run (the player at the preset's last step) the reveal, whether the answer was right, the answers so far and
// a closed fold for the curious; the same for the Loss explorer's start-here step, revealed once x0 is dragged past d/2
// (the explorer's data-past-half); the start-here steps with their stories; the glossary, each marked word a button whose
// entry shows on hover, focus or tap. The texts are site.json's (stsdemo.story, stsdemo.playground.stories). Answers stay
// in this browser (localStorage). ?quiz=0 asks nothing; ?teach=1 is the teacher's mode: big type, the story step by
// step, the keys Space (play or pause), → (one step), R (reset), + and − (speed), and a slow motion of one pair's
// update with and without the buffer. It reads the run from the page's body (data-step, data-finished, data-playing)
// and presses the page's own buttons: it drives no run itself.
// A plain script: globalThis.PlaygroundStory; needs language.js, engine.js, charts.js, panels.js and loss.js.
(function (root) {
  "use strict";
  const { el, rich } = root.PlaygroundPanels;
  const $ = (id) => document.getElementById(id);
  const LANGUAGE = PlaygroundLanguage.pageLanguage();   // language.js; read before the page rewrites its link
  const STORE = "stsdemo-quiz";                               // {preset name: the chosen choice's place}
  const NARROW = "(max-width: 600px)";                        // a phone: the start-here steps fold to one line
  const TWINS = ["story_twin_with", "story_twin_without"];     // the slow motion's two twins, in its order
  const text = (key, values) => root.PlaygroundText.text(key, values);   // the page's words (text.js)
  const say = root.PlaygroundText.words;   // a text declared in every language, in the page's (text.js)
  const count = (n) => root.PlaygroundText.count(n);   // a whole number in the page's language
  const TERM = /\[\[([a-z-]+):([^\]]+)\]\]/g;                // stsdemo.story.TERM
  let tips = 0;                                                 // glossary entries made: each entry's id

  // the answers kept in this browser; a browser that keeps none (storage off) keeps them for this visit
  const answers = {
    kept: {},
    read() { try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch { return this.kept; } },
    write(name, choice) {
      const all = { ...this.read(), [name]: choice };
      this.kept = all;
      try { localStorage.setItem(STORE, JSON.stringify(all)); } catch { /* kept for this visit */ }
    },
  };

  const lossStep = (site) => site.lesson.find((step) => step.tab === "loss");   // the Loss explorer's start-here step

  // What every story of the page needs: its words with their glossary buttons, its question before and its reveal
  // after. `quiz`: ask the questions (?quiz=0 asks none).
  function teller(site, quiz) {
    const glossary = site.glossary;
    // a text as nodes: each [[key:words]] a button that shows its glossary entry on hover, focus or tap
    function marked(words) {
      const source = say(words), nodes = [];
      let last = 0;
      for (const match of source.matchAll(TERM)) {
        nodes.push(source.slice(last, match.index), term(match[1], match[2]));
        last = match.index + match[0].length;
      }
      nodes.push(source.slice(last));
      return nodes;
    }
    function term(key, shown) {
      const entry = glossary[key], id = `term-tip-${++tips}`;
      const tip = el("span", { className: "term-tip", id, role: "tooltip", hidden: true },
                     el("b", {}, say(entry.name)), text("story_colon"), say(entry.meaning));
      const button = el("button", { type: "button", className: "term" }, shown);
      button.setAttribute("aria-describedby", id);
      const open = (shown) => {
        tip.hidden = !shown;
        button.setAttribute("aria-expanded", String(shown));
        if (shown) onScreen(tip);
      };
      button.addEventListener("mouseenter", () => open(true));
      button.addEventListener("mouseleave", () => open(document.activeElement === button));
      button.addEventListener("focus", () => open(true));
      button.addEventListener("blur", () => open(false));
      button.addEventListener("click", () => open(tip.hidden));
      button.addEventListener("keydown", (event) => { if (event.key === "Escape") open(false); });
      open(false);
      return el("span", { className: "term-wrap" }, button, tip);
    }
    const curious = (story) => el("details", { className: "curious" }, el("summary", {}, text("story_curious")),
                                  el("p", {}, marked(story.curious)));

    // Every question the page asks, keyed as its answer is kept: the presets' by name, a start-here step's as step:<tab>.
    const step = lossStep(site);
    const questions = [...site.presets.map((preset) => ({ name: preset.name, story: preset.story })),
                       ...(step ? [{ name: "step:loss", story: step.story }] : [])];
    function asked(name, story, radioName, before) {
      const { question } = story, chosen = answers.read()[name];
      const choices = question.choices.map((choice, i) => {
        const radio = el("input", { type: "radio", name: radioName, value: String(i), checked: chosen === i });
        radio.addEventListener("change", () => answers.write(name, i));
        return el("label", { className: "choice" }, radio, " ", say(choice));
      });
      return {
        ask: el("fieldset", { className: "question", hidden: !quiz }, el("legend", {}, text(before), marked(question.ask)), choices),
        watch: el("p", { className: "watch" }, marked(story.watch)),
        reveal: el("div", { className: "reveal", hidden: true, ariaLive: "polite" }),
      };
    }
    function revealed(name, story, into, unanswered) {
      const { question } = story, all = answers.read(), chosen = all[name];
      const right = say(question.choices[question.answer]);
      const verdict = !quiz ? [el("b", {}, text("story_answer")), right, text("story_stop")]
        : chosen === undefined ? [text(unanswered), " ", el("b", {}, text("story_answer")), right, text("story_stop")]
        : [el("b", {}, text("story_yours")), say(question.choices[chosen]),
           chosen === question.answer ? text("story_right") : text("story_wrong"),
           chosen === question.answer ? "" : [" ", el("b", {}, text("story_answer")), right, text("story_stop")]];
      const scored = questions.filter((q) => all[q.name] !== undefined);
      const tally = scored.filter((q) => all[q.name] === q.story.question.answer).length;
      into.replaceChildren(el("p", { className: "verdict-line" }, verdict), el("p", {}, marked(story.reveal)),
        quiz ? el("p", { className: "note" }, text("story_so_far", { right: tally, total: scored.length })) : null, curious(story));
      into.hidden = false;
    }

    return { marked, curious, asked, revealed };
  }

  // The Loss explorer's start-here step beside the explorer (the page's, and the app's Loss explorer tab): its question,
  // what to do and watch, revealed once x0 is dragged past d/2, what the step asks (the explorer's data-past-half).
  function lossStory(site, quiz) {
    const step = lossStep(site);
    if (!step) return;
    const { asked, revealed } = teller(site, quiz), box = $("loss-story");
    const loss = asked("step:loss", step.story, "loss-quiz-answer", "story_think");
    loss.reveal.id = "loss-reveal";
    box.lang = LANGUAGE === "zh" ? "zh-Hans" : "en";
    box.replaceChildren(loss.ask, el("p", { className: "do" }, rich(say(step.do))), loss.watch, loss.reveal);
    box.hidden = false;
    new MutationObserver(() => {
      if ($("loss").dataset.pastHalf === "true" && loss.reveal.hidden) {
        loss.ask.disabled = true;   // the answer is the one given before the drag
        revealed("step:loss", step.story, loss.reveal, "story_unanswered_drag");
      }
    }).observe($("loss"), { attributes: true, attributeFilter: ["data-past-half"] });
  }

  function build(site, state) {
    for (const id of ["lesson", "story"]) $(id).lang = LANGUAGE === "zh" ? "zh-Hans" : "en";
    const { marked, curious, asked, revealed } = teller(site, state.page.quiz);
    // ---- the start-here steps, each with its story, and the glossary ----
    $("lesson").replaceChildren(...site.lesson.map((step) => {
      const { question } = step.story;
      return el("li", {},
        step.in_page ? el("a", { href: step.query }, say(step.title)) : el("b", {}, say(step.title)),
        step.in_page ? "" : text("in_full_app"), ". ", rich(say(step.do)),
        el("p", { className: "ask" }, el("b", {}, text("story_think")), marked(question.ask), " ",
           question.choices.map((choice, i) => el("span", { className: "choice" }, `${"ABC"[i]}. `, say(choice), " "))),
        el("p", { className: "watch" }, marked(step.story.watch)),
        el("details", { className: "after" }, el("summary", {}, text("story_after")),
           el("p", {}, el("b", {}, text("story_answer")), say(question.choices[question.answer]), text("story_stop"),
              marked(step.story.reveal)), curious(step.story)));
    }));
    $("lesson").after(el("details", { id: "glossary", className: "glossary" }, el("summary", {}, text("story_glossary")),
      el("dl", {}, Object.values(site.glossary).map((entry) => [el("dt", {}, say(entry.name)), el("dd", {}, say(entry.meaning))]))));
    if (matchMedia(NARROW).matches) $("start").querySelector("details").open = false;

    // a preset's story beside the Playground: revealed when the run reaches the preset's last step
    const box = $("story");
    let shown = null, parts = null;
    function show(preset) {
      if (preset === shown) return;
      shown = preset;
      box.hidden = !preset;
      if (!preset) { box.replaceChildren(); return; }
      parts = asked(preset.name, preset.story, "quiz-answer", "story_before");
      parts.reveal.id = "reveal";
      box.replaceChildren(parts.ask, parts.watch, parts.reveal);
      follow();
    }

    // ---- the run, as the page's body says it: the step beside ▶ Play, the story's stages ----
    function follow() {
      const { step, finished, playing } = document.body.dataset;
      if (step !== undefined) $("step-count").textContent = text("story_step", { step: count(step), steps: count(state.values.steps) });
      if (!parts) return;
      const done = finished === "true";
      parts.ask.disabled = Number(step) > 0;        // the answer is the one given before the run
      if (done && parts.reveal.hidden) revealed(shown.name, shown.story, parts.reveal, "story_unanswered");
      parts.reveal.hidden = !done;
      // the teacher's mode tells the story step by step: what to watch once it plays, the question until then
      if (state.page.teach) parts.watch.hidden = !(playing === "true" || done || Number(step) > 0);
    }
    new MutationObserver(follow).observe(document.body, { attributes: true,
                                                          attributeFilter: ["data-step", "data-finished", "data-playing"] });
    lossStory(site, state.page.quiz);
    if (state.page.teach) teach(state, site.loss.sample);
    return { show };
  }

  // an entry opened near the screen's right edge moves left, within the screen
  function onScreen(tip) {
    tip.style.transform = "";
    const box = tip.getBoundingClientRect(), right = document.documentElement.clientWidth - 8;
    if (box.right > right) tip.style.transform = `translateX(${Math.round(Math.max(right - box.right, 8 - box.left))}px)`;
  }

  // ---- the teacher's mode ----
  function teach(state, sample) {
    document.body.classList.add("teach");
    $("playground").prepend(el("p", { className: "note teach-keys" }, text("story_teach")));
    $("story").after(slowMotion(state, sample));
    const typing = (target) => target.closest("input, select, textarea, [contenteditable]");
    const press = (id) => $(id).click();
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      const key = event.key;
      if (key === " ") {
        if (event.target.closest("button, summary, a")) return;   // Space presses what has the focus
        press(document.body.dataset.playing === "true" ? "pause" : "play");
      } else if (key === "ArrowRight") press("step");
      else if (key === "r" || key === "R") press("reset");
      else if (key === "+" || key === "=" || key === "-" || key === "−") speed(key === "-" || key === "−" ? 0.5 : 2);
      else return;
      event.preventDefault();
    });
  }

  // the speed box (hidden in a teacher's link, still the page's one control for it), doubled or halved in its range
  function speed(factor) {
    const box = $("setting-speed");
    const next = Math.min(Number(box.max), Math.max(Number(box.min), Math.round(Number(box.value) * factor)));
    box.value = String(next);
    box.dispatchEvent(new Event("change"));
  }

  // ---- the teacher's slow motion: one pair pulled toward its label, update by update, by the run's loss (k, x0) and
  // by its twin without the buffer; the buffered prediction stops at the buffer's edge, the other reaches the label ----
  const SLOW = { rate: 0.05, reach: 1 };   // a step's share of the pull, and the view's reach either side of the label
  function slowMotion(state, [first, label]) {   // the Loss explorer's sample (site.json's loss.sample)
    const { CURVES } = root.PlaygroundLoss, { COLORS } = root.PlaygroundCharts;
    const canvas = el("canvas", { id: "slow-chart", height: 90 });
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", text("story_slow"));
    const said = el("p", { className: "note", id: "slow-said", role: "status" });
    let predictions = [];
    const curve = (twin) => (twin === 0 ? CURVES[state.values.loss]
                                        : CURVES[root.PlaygroundEngine.LOSSES[state.values.loss].twin.toLowerCase()]);
    const pull = (twin, prediction) => {   // df/dprediction: the buffered loss takes x0, its twin is k times its own
      const { k, x0 } = state.values, x = Math.abs(prediction - label), sign = Math.sign(prediction - label);
      return sign * (twin === 0 ? curve(0).df(x, k, x0) : k * curve(1).df(x));
    };
    function draw() {
      const width = canvas.parentElement.clientWidth || 600, context = canvas.getContext("2d"), margin = 120;
      canvas.width = width;
      const across = (value) => margin + (value - label + SLOW.reach) / (2 * SLOW.reach) * (width - margin - 12);
      const { x0 } = state.values;
      context.clearRect(0, 0, width, canvas.height);
      context.fillStyle = COLORS.buffer;
      context.fillRect(across(label - x0), 4, across(label + x0) - across(label - x0), 82);
      context.fillStyle = "#1f2937";
      context.fillRect(across(label) - 1, 4, 2, 82);
      context.font = "13px sans-serif";
      predictions.forEach((prediction, twin) => {
        const y = 26 + twin * 40;
        context.fillStyle = "#1f2937";
        context.fillText(text(TWINS[twin]), 4, y + 4);
        context.fillStyle = twin === 0 ? COLORS[state.values.loss] : "#7f7f7f";
        context.beginPath();
        context.arc(across(prediction), y, 7, 0, 2 * Math.PI);
        context.fill();
      });
      Object.assign(canvas.dataset, { predictions: predictions.join(","), label: String(label) });
      said.textContent = predictions.map((prediction, twin) =>
        text("story_read", { twin: text(TWINS[twin]), prediction: prediction.toFixed(3), pull: Math.abs(pull(twin, prediction)).toFixed(3) })).join(" · ");
    }
    const start = () => { predictions = [first, first]; draw(); };
    const once = el("button", { type: "button", id: "slow-once" }, text("story_once"));
    once.addEventListener("click", () => {
      predictions = predictions.map((prediction, twin) => prediction - SLOW.rate * pull(twin, prediction));
      draw();
    });
    const again = el("button", { type: "button", id: "slow-again" }, text("story_again"));
    again.addEventListener("click", start);
    const box = el("details", { id: "slow", className: "slow" }, el("summary", {}, text("story_slow")), canvas, said,
                   el("div", { className: "slow-buttons" }, once, again));
    box.addEventListener("toggle", () => { if (box.open) start(); });
    return box;
  }

  root.PlaygroundStory = { build, lossStory };
})(typeof globalThis !== "undefined" ? globalThis : this);
