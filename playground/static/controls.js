/* Karak: Goblin playground: what the user does on the page. Clicking a button or picking a menu
 * option sends the interaction to the stand-in as the user we act as; menus open and close the way
 * Discord's do; the user tabs, language menu, lightbox and command composer get their events here.
 * Plain JavaScript, no dependencies; app.js makes one with KarakControls({ state, $, api, toast,
 * refusal, render, safeRefresh, composer, switchUser, setLanguage, atBottom, toBottom,
 * goTo }). */
"use strict";

window.KarakControls = (ctx) => {
  const { state, $, api, toast, refusal, render, safeRefresh, composer,
          switchUser, setLanguage, atBottom, toBottom, goTo } = ctx;

  // ------------------------------------------------------------------ interactions

  async function interact(kind, messageId, customId, values) {
    if (state.busy.has(messageId)) return;
    state.busy.set(messageId, customId);
    state.failed.delete(messageId);
    render();
    try {
      const body = { user: state.user, message: messageId, custom_id: customId, wait: "answered" };
      if (values) body.values = values;
      const ix = await api(`/_loopback/${kind}`, body);
      if (ix.status === "failed") state.failed.add(messageId);
    } catch (e) {
      toast(refusal(e));
    } finally {
      state.busy.delete(messageId);
      await safeRefresh();
    }
  }

  // ------------------------------------------------------------------ menus

  function closeMenus(except) {
    for (const sel of document.querySelectorAll(".select.open")) {
      if (sel === except) continue;
      sel.classList.remove("open");
      sel.querySelector(".options").hidden = true;
    }
    if (!except) state.openSelect = null;
  }

  function openMenu(sel, scroll = true) {
    closeMenus(sel);
    const list = sel.querySelector(".options");
    sel.classList.add("open");
    list.hidden = false;
    const msgEl = sel.closest(".msg");
    state.openSelect = `${msgEl.dataset.messageId}|${sel.dataset.customId}`;
    if (scroll) list.scrollIntoView({ block: "nearest" });
  }

  // ------------------------------------------------------------------ events

  function wire() {
    $("users").addEventListener("click", (ev) => {
      const tab = ev.target.closest(".user-tab");
      if (tab) switchUser(tab.dataset.user, Number(tab.dataset.index));
    });
    $("language").addEventListener("change", (ev) => setLanguage(ev.target.value));
    $("scroller").addEventListener("scroll", () => { state.stick = atBottom(); }, { passive: true });
    $("messages").addEventListener("load", (ev) => {
      if (ev.target.tagName === "IMG" && state.stick) toBottom();
    }, true);
    $("messages").addEventListener("click", (ev) => {
      const img = ev.target.closest(".image img, .attachments img, .gallery img, .thumbnail img");
      if (img) {
        const box = $("lightbox");
        box.querySelector("img").src = img.src;
        box.hidden = false;
        return;
      }
      const jump = ev.target.closest("[data-jump]");
      if (jump) {
        ev.preventDefault();
        goTo(jump.dataset.channel, jump.dataset.jump);
        return;
      }
      const start = ev.target.closest("[data-command]");
      if (start) {
        ev.preventDefault();
        const leaf = composer.leaves().find((l) => l.path.join(" ") === start.dataset.command);
        if (leaf) composer.chooseCommand(leaf);
        return;
      }
      const msgEl = ev.target.closest(".msg");
      if (!msgEl) return;
      const option = ev.target.closest(".option");
      if (option) {
        const sel = option.closest(".select");
        closeMenus();
        interact("select", msgEl.dataset.messageId, sel.dataset.customId, [option.dataset.value]);
        return;
      }
      const opener = ev.target.closest(".select > button");
      if (opener && !opener.disabled) {
        const sel = opener.parentElement;
        if (sel.classList.contains("open")) closeMenus(); else openMenu(sel);
        return;
      }
      const button = ev.target.closest("button.btn[data-custom-id]");
      if (button && !button.disabled) interact("click", msgEl.dataset.messageId, button.dataset.customId);
    });
    document.addEventListener("click", (ev) => {
      if (!ev.target.closest(".select")) closeMenus();
      if (!ev.target.closest(".composer")) composer.hideSuggest();
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") { closeMenus(); composer.hideSuggest(); $("lightbox").hidden = true; }
    });
    $("lightbox").addEventListener("click", () => { $("lightbox").hidden = true; });
    const input = $("command-input");
    input.addEventListener("input", composer.suggestCommands);
    input.addEventListener("focus", () => { if (input.value.startsWith("/") || !input.value) composer.suggestCommands(); });
    input.addEventListener("keydown", composer.suggestKeys);
    $("suggest").addEventListener("mousedown", (ev) => ev.preventDefault());
    $("suggest").addEventListener("click", (ev) => {
      const b = ev.target.closest("button[data-i]");
      if (b) state.pick(state.suggest[Number(b.dataset.i)]);
    });
    $("command-chip").addEventListener("click", (ev) => {
      if (ev.target.closest("button")) { composer.clearCommand(); $("command-input").focus(); }
    });
    $("command-form").addEventListener("submit", (ev) => { ev.preventDefault(); composer.runCommand(); });
    $("command-options").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.tagName === "SELECT") { ev.preventDefault(); composer.runCommand(); }
    });
  }

  return { wire, openMenu, closeMenus };
};
