// The console's live cells: server-sent events from /events update every element with a
// data-live key; a floor whose tables or terminals changed reloads; a [data-fragment] box
// (the round in play) is fetched again when its data-refresh-on value changes.
// No inline script anywhere: the content security policy allows only this file.
"use strict";

(function () {
  const live = document.querySelectorAll("[data-live]");
  const boxes = document.querySelectorAll("[data-fragment]");
  if (live.length === 0 && boxes.length === 0) {
    return;
  }
  const shape = document.body.dataset.shape;

  async function refresh(box) {
    try {
      const answer = await fetch(box.dataset.fragment, { credentials: "same-origin" });
      if (!answer.ok) {
        return;
      }
      const page = new DOMParser().parseFromString(await answer.text(), "text/html");
      box.replaceChildren(...page.body.childNodes);
    } catch (error) {
      // The next event tries again.
    }
  }

  const events = new EventSource("/events");
  events.onmessage = function (message) {
    const data = JSON.parse(message.data);
    if (shape && data.shape !== shape) {
      window.location.reload();
      return;
    }
    for (const element of document.querySelectorAll("[data-live]")) {
      const value = data.values[element.dataset.live];
      if (value !== undefined && element.textContent !== value) {
        element.textContent = value;
        if (element.dataset.quiet !== undefined) {
          element.classList.toggle("quiet", value === element.dataset.quiet);
        }
        element.classList.add("changed");
        window.setTimeout(() => element.classList.remove("changed"), 1500);
      }
    }
    for (const box of boxes) {
      const value = data.values[box.dataset.refreshOn];
      if (value === undefined || box.dataset.seen === value) {
        continue;
      }
      const first = box.dataset.seen === undefined;
      box.dataset.seen = value;
      if (!first) {
        refresh(box);
      }
    }
    document.body.dataset.live = "on";
  };
  events.onerror = function () {
    document.body.dataset.live = "off";
  };
})();
