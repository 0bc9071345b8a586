// The page's words in its language (language.js): site.json's "strings", the page part of stsdemo/strings.json, one
// table a language. text(key, values) fills the {name} marks; a key the table lacks is an error, never a silent
// English. fill(root) writes every element's declared words: data-text (its text; [words](address) and `code` in it
// become a link and code), data-text-label (its aria-label) and data-text-title (its title); count(n) writes a
// whole number in the page's language. A plain script:
// globalThis.PlaygroundText.
(function (root) {
  "use strict";
  let table = null, language = "en";

  function use(strings, pageLanguage) {
    table = strings[pageLanguage];
    language = pageLanguage;
  }

  // A text Python declares in every language ({"en": ..., "zh": ...}: a lesson's title or what to do) in the page's.
  function words(texts) {
    return texts[language] || texts.en;
  }

  function text(key, values = {}) {
    if (!table || !(key in table)) throw new Error(`the page has no text "${key}"`);
    return table[key].replace(/\{(\w+)\}/g, (mark, name) => (name in values ? String(values[name]) : mark));
  }

  // A whole number as the page's language writes it (Intl: 1,000 in English and in 简体中文 alike).
  function count(value) {
    return new Intl.NumberFormat(language).format(value);
  }

  // A text's links and code as nodes, the rest as text (never as markup).
  function nodes(words) {
    const found = [], pattern = /\[([^\]]+)\]\(([^)\s]+)\)|`([^`]+)`/g;
    let last = 0;
    for (const match of words.matchAll(pattern)) {
      found.push(words.slice(last, match.index));
      if (match[1] !== undefined) found.push(Object.assign(document.createElement("a"), { href: match[2], textContent: match[1] }));
      else found.push(Object.assign(document.createElement("code"), { textContent: match[3] }));
      last = match.index + match[0].length;
    }
    found.push(words.slice(last));
    return found;
  }

  function fill(container) {
    for (const node of container.querySelectorAll("[data-text]")) node.replaceChildren(...nodes(text(node.dataset.text)));
    for (const node of container.querySelectorAll("[data-text-label]")) node.setAttribute("aria-label", text(node.dataset.textLabel));
    for (const node of container.querySelectorAll("[data-text-title]")) node.title = text(node.dataset.textTitle);
  }

  const ready = () => table !== null;

  root.PlaygroundText = { use, ready, text, words, count, fill };
})(typeof globalThis !== "undefined" ? globalThis : this);
