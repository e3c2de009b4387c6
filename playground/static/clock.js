/* The playground's clock control: moves the stand-in's clock and the bot's on by an hour, eight
 * hours or a day (POST /play/clock), so a slow match plays over a fake day. Built by app.js:
 * window.KarakClock({ state, $, api, t, toast, refusal, safeRefresh, refreshTimes }); the
 * relative times shown ("in 2 days") count from the moved clock (window.KarakClockOffset). */
(function () {
  "use strict";
  window.KarakClock = function ({ state, $, api, t, toast, refusal, safeRefresh, refreshTimes }) {
    const labels = { 3600: () => t("clock.hour"), 28800: () => t("clock.hours"),
      86400: () => t("clock.day") };
    let offset = (state.config.clock && state.config.clock.offset) || 0;
    window.KarakClockOffset = offset;

    function texts() {
      const box = $("clock");
      const steps = (state.config.clock && state.config.clock.steps) || [];
      box.title = t("clock.title");
      box.innerHTML = "";
      const shown = document.createElement("span");
      shown.className = "clock-ahead";
      shown.hidden = offset <= 0;
      shown.textContent = t("clock.ahead").replace("{hours}", String(Math.floor(offset / 3600)));
      box.appendChild(shown);
      for (const seconds of steps) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "clock-step";
        b.dataset.seconds = String(seconds);
        b.textContent = (labels[seconds] || (() => `+${seconds / 3600} h`))();
        b.addEventListener("click", () => advance(seconds));
        box.appendChild(b);
      }
    }

    async function advance(seconds) {
      try {
        offset = (await api("/play/clock", { advance: seconds })).offset;
      } catch (e) { toast(refusal(e)); return; }
      window.KarakClockOffset = offset;
      texts();
      refreshTimes();
      await safeRefresh();
    }

    return { texts };
  };
})();
