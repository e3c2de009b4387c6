/* Karak: Goblin playground: the message box's slash commands, as in Discord: "/" lists the
 * commands (in the viewer's language), choosing one shows its options (choices as menus,
 * autocompleted ones suggesting as you type), Enter sends it through the stand-in's control API.
 * Plain JavaScript, no dependencies; app.js makes one with KarakComposer({ state, $, esc, t,
 * api, toast, refusal, localized, saveJSON, safeRefresh }). */
"use strict";

window.KarakComposer = (ctx) => {
  const { state, $, esc, t, api, toast, refusal, localized, saveJSON, safeRefresh } = ctx;


  function leaves() {
    const out = [];
    for (const root of state.commands) {
      if ((root.type || 1) !== 1) continue;
      const subs = (root.options || []).filter((o) => o.type === 1 || o.type === 2);
      if (!subs.length) {
        out.push({ path: [root.name], names: [localized(root, "name")], desc: localized(root, "description"), options: root.options || [] });
      }
      for (const sub of subs) {
        const inner = sub.type === 2 ? (sub.options || []).filter((o) => o.type === 1) : [sub];
        for (const leaf of inner) {
          const path = sub.type === 2 ? [root.name, sub.name, leaf.name] : [root.name, sub.name];
          const names = sub.type === 2 ? [localized(root, "name"), localized(sub, "name"), localized(leaf, "name")]
            : [localized(root, "name"), localized(sub, "name")];
          out.push({ path, names, desc: localized(leaf, "description"), options: leaf.options || [] });
        }
      }
    }
    return out;
  }

  function showSuggest(items, onPick) {
    const box = $("suggest");
    state.suggest = items;
    state.pick = onPick;
    state.active = 0;
    if (!items.length) { box.hidden = true; return; }
    box.innerHTML = items.map((it, i) => (it.empty
      ? `<div class="empty">${esc(it.name)}</div>`
      : `<button type="button" data-i="${i}" class="${i === 0 ? "active" : ""}" role="option"><span class="name">${esc(it.name)}</span><span class="desc">${esc(it.desc || "")}</span></button>`)).join("");
    box.hidden = false;
  }
  function hideSuggest() { $("suggest").hidden = true; state.suggest = []; }
  function moveActive(step) {
    const buttons = [...$("suggest").querySelectorAll("button")];
    if (!buttons.length) return;
    state.active = (state.active + step + buttons.length) % buttons.length;
    buttons.forEach((b, i) => b.classList.toggle("active", i === state.active));
    buttons[state.active].scrollIntoView({ block: "nearest" });
  }

  function suggestCommands() {
    const text = $("command-input").value.trim().replace(/^\//, "").toLowerCase();
    if (!$("command-input").value.startsWith("/") && text) { hideSuggest(); return; }
    const items = leaves().filter((l) => {
      const shown = l.names.join(" ").toLowerCase();
      const plain = l.path.join(" ");
      return !text || shown.startsWith(text) || plain.startsWith(text)
        || l.names[l.names.length - 1].toLowerCase().startsWith(text);
    }).slice(0, 25).map((l) => ({ name: "/" + l.names.join(" "), desc: l.desc, leaf: l }));
    showSuggest(items.length ? items : [{ empty: true, name: t("no_match") }], (it) => chooseCommand(it.leaf));
  }

  function clearCommand() {
    state.cmd = null;
    $("command-chip").hidden = true;
    $("command-chip").innerHTML = "";
    $("command-options").innerHTML = "";
    $("command-input").hidden = false;
    $("command-input").value = "";
    hideSuggest();
  }

  function chooseCommand(leaf) {
    hideSuggest();
    if (!leaf.options.length) {
      state.cmd = { leaf, fields: [] };
      runCommand();
      return;
    }
    state.cmd = { leaf, fields: [] };
    const chip = $("command-chip");
    chip.innerHTML = `<span>/${esc(leaf.names.join(" "))}</span><button type="button" aria-label="${esc(t("close"))}" title="${esc(t("close"))}">×</button>`;
    chip.hidden = false;
    $("command-input").hidden = true;
    $("command-input").value = "";
    const box = $("command-options");
    box.innerHTML = "";
    for (const o of leaf.options) {
      const label = localized(o, "name");
      const wrap = document.createElement("label");
      wrap.className = "opt" + (o.required ? " required" : "");
      wrap.title = localized(o, "description") || "";
      wrap.innerHTML = `<span>${esc(label)}</span>`;
      let control;
      if (o.type === 5 || (o.choices && o.choices.length)) {
        control = document.createElement("select");
        const choices = o.type === 5 ? [{ name: t("yes"), value: true }, { name: t("no"), value: false }]
          : o.choices.map((c) => ({ name: localized(c, "name"), value: c.value }));
        control.innerHTML = '<option value=""></option>' + choices.map((c, i) => `<option value="${i}">${esc(c.name)}</option>`).join("");
        control.choices = choices;
      } else {
        control = document.createElement("input");
        control.type = o.type === 4 || o.type === 10 ? "number" : "text";
        if (o.min_value != null) control.min = o.min_value;
        if (o.max_value != null) control.max = o.max_value;
        if (o.max_length != null) control.maxLength = o.max_length;
        if (o.autocomplete) {
          control.setAttribute("aria-autocomplete", "list");
          control.addEventListener("input", () => autocomplete(o, control));
          control.addEventListener("focus", () => autocomplete(o, control));
          control.addEventListener("keydown", suggestKeys);
        }
      }
      control.dataset.option = o.name;
      wrap.appendChild(control);
      box.appendChild(wrap);
      state.cmd.fields.push({ o, control, wrap, label });
    }
    const first = box.querySelector("input, select");
    if (first) first.focus();
  }

  let autoTimer = 0;
  function autocomplete(option, control) {
    clearTimeout(autoTimer);
    delete control.dataset.value;
    const leaf = state.cmd && state.cmd.leaf;
    if (!leaf) return;
    autoTimer = setTimeout(async () => {
      try {
        const data = await api("/_loopback/autocomplete", {
          user: state.user, channel: state.channel, command: leaf.path.join(" "),
          option: option.name, value: control.value });
        if (document.activeElement !== control) return;
        const items = (data.choices || []).map((c) => ({ name: c.name, value: c.value }));
        showSuggest(items.length ? items : [{ empty: true, name: t("no_match") }], (it) => {
          control.value = it.name;
          control.dataset.value = String(it.value);
          hideSuggest();
        });
      } catch (e) { toast(refusal(e)); }
    }, 200);
  }

  function suggestKeys(ev) {
    if ($("suggest").hidden || !state.suggest.length || state.suggest[0].empty) return;
    if (ev.key === "ArrowDown") { ev.preventDefault(); moveActive(1); }
    else if (ev.key === "ArrowUp") { ev.preventDefault(); moveActive(-1); }
    else if (ev.key === "Enter" || ev.key === "Tab") {
      ev.preventDefault();
      ev.stopPropagation();
      state.pick(state.suggest[state.active]);
    } else if (ev.key === "Escape") { hideSuggest(); }
  }

  function typed() {
    const text = $("command-input").value.trim().replace(/^\//, "").toLowerCase().replace(/\s+/g, " ");
    if (!text) return null;
    return leaves().find((l) => l.names.join(" ").toLowerCase() === text || l.path.join(" ") === text) || null;
  }

  async function runCommand() {
    if (!state.cmd) {
      const leaf = typed();
      if (leaf) chooseCommand(leaf); else suggestCommands();
      return;
    }
    const options = {};
    for (const f of state.cmd.fields) {
      f.wrap.classList.remove("missing");
      let value;
      if (f.control.tagName === "SELECT") {
        value = f.control.value === "" ? undefined : f.control.choices[Number(f.control.value)].value;
      } else if (f.control.value.trim() !== "") {
        if (f.o.type === 4) value = parseInt(f.control.value, 10);
        else if (f.o.type === 10) value = Number(f.control.value);
        else value = f.control.dataset.value ?? f.control.value;
      }
      if (value === undefined || Number.isNaN(value)) {
        if (f.o.required) {
          f.wrap.classList.add("missing");
          toast(t("missing", { option: f.label }));
          f.control.focus();
          return;
        }
        continue;
      }
      options[f.o.name] = value;
    }
    const leaf = state.cmd.leaf;
    const shown = "/" + leaf.names.join(" ");
    clearCommand();
    state.stick = true;
    try {
      const ix = await api("/_loopback/command", {
        user: state.user, channel: state.channel, command: leaf.path.join(" "), options,
        wait: "answered" });
      state.used[ix.id] = shown;
      const ids = Object.keys(state.used);
      if (ids.length > 300) for (const id of ids.slice(0, ids.length - 300)) delete state.used[id];
      saveJSON("kg-used", state.used);
      if (ix.status === "failed") toast(t("failed"));
    } catch (e) {
      toast(refusal(e));
    }
    await safeRefresh();
  }

  return { leaves, hideSuggest, suggestCommands, clearCommand, chooseCommand, suggestKeys,
    runCommand };
};
