// The Playground's one State: every setting of a run (stsdemo.playground.config.PlaygroundConfig), checked against its
// declaration from site.json, read from and written to the page's link as the app's links are
// (stsdemo.app.links): `preset=<name>` starts from a story preset's settings, the link's own values win, a bad value
// takes its default with a notice, x0 > d/2 takes min(x0's default, d/2), and `hide=a,b` hides those controls (a
// teacher's classroom link). `data=upload&upload=<key>` plays a visitor's own pairs in the app. The page's own words
// are kept too: `teach=1` (the teacher's mode, which also hides the preset's finer controls), `quiz=0` (no
// questions) and `lang=<en|zh>`. No DOM here.
// A plain script: globalThis.PlaygroundState; needs language.js.
(function (root) {
  "use strict";
  const NOT_IN_PAGE = ["model"];        // the page plays the shipped encoder only
  const UPLOAD_KEY = /^[A-Za-z0-9_-]{1,80}$/;
  const LANGUAGES = PlaygroundLanguage.LANGUAGES;   // language.js: the languages a link may ask for

  const text = (key, values) => root.PlaygroundText.text(key, values);   // the page's words (text.js)

  class Settings {
    constructor(declarations, presets) {
      this.declarations = declarations;
      this.names = Object.keys(declarations).filter((name) => !NOT_IN_PAGE.includes(name));
      this.presets = Object.fromEntries(presets.map((preset) => [preset.name, preset]));
    }
    meta(name) { return this.declarations[name]; }
    title(name) { return text(`setting_${name}`); }   // strings.json's, in the page's language
    defaults() { return Object.fromEntries(Object.entries(this.declarations).map(([name, meta]) => [name, meta.default])); }

    // One value checked against its declaration (stsdemo.config.check_setting): the value, or an Error saying why.
    check(name, value) {
      const meta = this.meta(name), title = this.title(name);
      if (meta.choices) {
        if (!meta.choices.includes(value)) throw new Error(text("refuse_choice", { title, choices: meta.choices.join(", ") }));
        return value;
      }
      if (typeof meta.default === "boolean") {
        if (typeof value !== "boolean") throw new Error(text("refuse_boolean", { title }));
        return value;
      }
      if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(text("refuse_number", { title }));
      if (meta.integer && !Number.isInteger(value)) throw new Error(text("refuse_whole", { title }));
      const low = meta.low, high = meta.high;
      if (low !== null && (meta.low_open ? !(value > low) : value < low)) {
        throw new Error(text(meta.low_open ? "refuse_more_than" : "refuse_at_least", { title, low }));
      }
      if (high !== null && value > high) throw new Error(text("refuse_at_most", { title, high }));
      return value;
    }

    // A link's text as the setting's value (a word, true/false, a number), checked.
    read(name, text) {
      const meta = this.meta(name);
      if (meta.choices) return this.check(name, text.trim());
      if (typeof meta.default === "boolean") {
        const word = text.trim().toLowerCase();
        if (["true", "1", "yes", "on"].includes(word)) return true;
        if (["false", "0", "no", "off"].includes(word)) return false;
        throw new Error(text("refuse_boolean", { title: this.title(name) }));
      }
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim()) || text.length > 40) {
        throw new Error(text("refuse_number", { title: this.title(name) }));
      }
      return this.check(name, Number(text));
    }

    // The one rule across settings (stsdemo.losses.buffer.check_buffer, lenient here): x0 <= d/2, else x0 = min(its default, d/2).
    withBuffer(values, notices) {
      if (values.x0 <= values.d / 2) return values;
      const x0 = Math.min(this.meta("x0").default, values.d / 2);
      notices.push(text("link_x0", { x0: values.x0, half: values.d / 2, used: x0 }));
      return { ...values, x0 };
    }

    // What a link restores: {values, preset (its name or null), hidden (names), upload (a key or null),
    // page ({teach, quiz, lang}), notices}.
    fromQuery(search) {
      const params = new URLSearchParams(search), notices = [];
      let values = this.defaults(), preset = null;
      const asked = params.get("preset");
      if (asked !== null) {
        if (asked.trim() in this.presets) {
          preset = asked.trim();
          values = { ...values, ...this.presets[preset].settings };
        } else {
          notices.push(text("link_preset", { presets: Object.keys(this.presets).join(", ") }));
        }
      }
      for (const name of this.names) {
        if (!params.has(name)) continue;
        try {
          values[name] = this.read(name, params.get(name));
        } catch (error) {
          notices.push(text("link_using", { error: error.message, value: values[name] }));
        }
      }
      let upload = params.get("upload");
      if (upload !== null && !UPLOAD_KEY.test(upload)) {
        notices.push(text("link_upload"));
        upload = null;
      }
      if (values.data === "upload" && upload === null) values.data = this.meta("data").default;
      values = this.withBuffer(values, notices);
      const hidden = [], unknown = [];
      for (const name of (params.get("hide") || "").split(",").map((word) => word.trim()).filter(Boolean)) {
        (this.names.includes(name) ? hidden : unknown).push(name);
      }
      if (unknown.length) {
        notices.push(text("link_hide", { count: unknown.length, plural: unknown.length > 1 ? "s" : "",
                                         names: this.names.join(", ") }));
      }
      const page = { teach: params.get("teach") === "1", quiz: params.get("quiz") !== "0",
                     lang: LANGUAGES.includes(params.get("lang")) ? params.get("lang") : null };
      if (page.teach && preset) {
        hidden.push(...this.presets[preset].hide.filter((name) => this.names.includes(name) && !hidden.includes(name)));
      }
      return { values, preset, hidden, upload: values.data === "upload" ? upload : null, page, notices };
    }

    // The link of a state: its preset, each value that differs from where the preset (or the defaults) start, its
    // upload key, the hidden controls and the page's own words, so a copied classroom link keeps hide= and teach=.
    toQuery({ values, preset, hidden, upload, page = {} }) {
      const start = preset ? { ...this.defaults(), ...this.presets[preset].settings } : this.defaults();
      const params = new URLSearchParams();
      if (preset) params.set("preset", preset);
      for (const name of this.names) {
        if (values[name] !== start[name]) params.set(name, String(values[name]));
      }
      if (values.data === "upload" && upload) params.set("upload", upload);
      if (hidden.length) params.set("hide", hidden.join(","));
      if (page.teach) params.set("teach", "1");
      if (page.quiz === false) params.set("quiz", "0");
      if (page.lang) params.set("lang", page.lang);
      return params.toString().replace(/%2C/g, ",");
    }

    // Whether `values` are still the preset's (a preset's sentences describe exactly its own run).
    matchesPreset(values, preset) {
      if (!preset) return false;
      const start = { ...this.defaults(), ...this.presets[preset].settings };
      return this.names.filter((name) => name !== "speed").every((name) => values[name] === start[name]);
    }
  }

  root.PlaygroundState = { Settings, NOT_IN_PAGE };
})(typeof globalThis !== "undefined" ? globalThis : this);
