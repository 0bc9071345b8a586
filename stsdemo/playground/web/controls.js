// The Playground's controls, generated from the settings' declarations (site.json): a choice is a select, a yes/no
// a checkbox, a number with a slider step a slider with its box, any other number a box; each with its label, range
// and help. A box always shows the value the run uses (a value the rule x0 <= d/2 moved is shown moved). The hidden
// width appears for the mlp head only; a teacher's hide= hides controls. Titles and a choice's words are the page's
// (text.js). A plain script: globalThis.PlaygroundControls; needs state.js, panels.js and text.js.
(function (root) {
  "use strict";
  const { el } = root.PlaygroundPanels, { text } = root.PlaygroundText;
  const GROUPS = [   // the controls a visitor moves most, then the training's finer ones
    { title: null, names: ["data", "loss", "noise", "train_pairs", "round_labels", "k", "x0", "d", "head", "width"] },
    { title: "group_training", names: ["lr", "batch_size", "steps", "seeds", "speed"] },
  ];
  const WORDED = ["data", "head", "loss"];   // the choices read as words (choice_<setting>_<value>); others as they are

  class Controls {
    // settings: a PlaygroundState.Settings; onChange(name, value) when a visitor sets a value
    constructor(container, settings, onChange) {
      this.settings = settings; this.onChange = onChange; this.boxes = {};
      for (const group of GROUPS) {
        const names = group.names.filter((name) => settings.names.includes(name));
        const fields = names.map((name) => this.field(name));
        container.append(group.title ? el("details", { className: "group" }, el("summary", {}, text(group.title)), fields) : el("div", { className: "group" }, fields));
      }
    }

    field(name) {
      const meta = this.settings.meta(name), id = `setting-${name}`, helpId = `${id}-help`;
      const help = el("p", { className: "help", id: helpId, hidden: true }, text(`help_${name}`) + (meta.paper ? text("paper_value", { value: meta.paper }) : ""));
      const helpButton = el("button", { type: "button", className: "help-button", title: text("help_title") }, "?");
      helpButton.setAttribute("aria-expanded", "false");
      helpButton.setAttribute("aria-controls", helpId);
      helpButton.setAttribute("aria-label", text("help_label", { title: this.settings.title(name) }));
      helpButton.addEventListener("click", () => {
        help.hidden = !help.hidden;
        helpButton.setAttribute("aria-expanded", String(!help.hidden));
      });
      const inputs = this.inputs(name, meta, id);
      inputs.forEach((input) => input.setAttribute("aria-describedby", helpId));
      const title = el("label", { htmlFor: id }, this.settings.title(name));
      const row = el("div", { className: "field", id: `field-${name}`, dataset: { name } },
        el("div", { className: "field-head" }, title, helpButton), el("div", { className: "field-inputs" }, inputs), help);
      this.boxes[name] = { row, inputs, meta };
      return row;
    }

    inputs(name, meta, id) {
      if (meta.choices) {
        const select = el("select", { id }, meta.choices.map((choice) =>
          el("option", { value: choice }, WORDED.includes(name) ? text(`choice_${name}_${choice}`) : choice)));
        select.addEventListener("change", () => this.onChange(name, select.value));
        return [select];
      }
      if (typeof meta.default === "boolean") {
        const box = el("input", { type: "checkbox", id });
        box.addEventListener("change", () => this.onChange(name, box.checked));
        return [box];
      }
      const low = meta.low_open ? meta.low + (meta.step || 0) : meta.low;
      const number = el("input", { type: "number", id, min: low, max: meta.high, step: meta.step || "any", inputMode: "decimal" });
      number.addEventListener("change", () => this.typed(name, number));
      if (!meta.step || name === "train_pairs") return [number];
      const slider = el("input", { type: "range", min: low, max: meta.high, step: meta.step, tabIndex: -1 });
      slider.setAttribute("aria-hidden", "true");   // the box beside it carries the value for assistive technology
      slider.addEventListener("input", () => { number.value = slider.value; });
      slider.addEventListener("change", () => this.onChange(name, Number(slider.value)));
      return [slider, number];
    }

    // A typed number: checked against its declaration; a bad one puts the box back and says why.
    typed(name, box) {
      try {
        this.onChange(name, this.settings.check(name, box.value.trim() === "" ? NaN : Number(box.value)));
      } catch (error) {
        this.onChange(name, null, error.message);
      }
    }

    // Show `values` (what the run uses), the width for the mlp head only, and hide the `hidden` controls.
    show(values, hidden) {
      for (const [name, { row, inputs, meta }] of Object.entries(this.boxes)) {
        for (const input of inputs) {
          if (input.type === "checkbox") input.checked = values[name];
          else input.value = String(values[name]);
        }
        if (meta.choices) {
          for (const option of inputs[0].options) option.hidden = name === "data" && option.value === "upload" && values.data !== "upload";
        }
        row.hidden = hidden.includes(name) || (name === "width" && values.head !== "mlp");
      }
    }
  }

  root.PlaygroundControls = { Controls };
})(typeof globalThis !== "undefined" ? globalThis : this);
