// The page's language: ?lang=en or ?lang=zh in the link, else the browser's first language the page speaks (any
// zh-* is 简体中文), else English.
const PlaygroundLanguage = (function () {
  "use strict";
  const LANGUAGES = ["en", "zh"];

  function pageLanguage(search = window.location.search, preferred = navigator.languages || [navigator.language]) {
    const asked = new URLSearchParams(search).get("lang");
    if (LANGUAGES.includes(asked)) return asked;
    for (const tag of preferred) {
      const base = String(tag || "").toLowerCase().split("-")[0];
      if (LANGUAGES.includes(base)) return base;
    }
    return "en";
  }

  return { LANGUAGES, pageLanguage };
})();
