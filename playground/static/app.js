/* Karak: Goblin playground: shows the stand-in's channel the way Discord does and acts as one of
 * its users through the stand-in's JSON API (/_loopback/, see loopback/server.py) and the
 * playground's own routes (/play/config, /play/locale, /play/channel, see playground/app.py).
 * Plain JavaScript, no dependencies, no build step. Every text comes from the server (i18n). */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const KEEP = 150;                 // messages shown (the newest)
  const COLOURS = ["#5865f2", "#23a55a", "#f0b232", "#eb459e", "#ed4245", "#80848e"];
  const EYE = '<svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M12 5C5.6 5 2 12 2 12s3.6 7 10 7 10-7 10-7-3.6-7-10-7Zm0 11a4 4 0 1 1 0-8 4 4 0 0 1 0 8Zm0-2a2 2 0 1 0 0-4 2 2 0 0 0 0 4Z"/></svg>';
  // Discord's thread icon: a speech bubble with two lines of text
  const THREAD = '<svg class="thread-icon" width="16" height="16" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" fill-rule="evenodd" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2Zm3 5v2h10V8H7Zm0 4v2h7v-2H7Z"/></svg>';
  const CHECK = '<svg width="11" height="11" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M9 16.2 4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4z"/></svg>';

  let clock = null; // the clock control (clock.js), made once the config is known
  const state = {
    config: null,
    user: null,             // id of the user we act as
    place: "server",        // "server": the server's channel; "dm": the user's DM with the bot;
                            // "thread": a thread of the server's channel (state.thread)
    channel: null,          // id of the channel shown (the server's, a thread, or the user's DM)
    thread: null,           // id of the thread shown
    threads: [],            // the server channel's threads (the stand-in's control API)
    hidden: [],             // ids of the people a moderator hid the server's channel from
    botFiles: true,         // whether the bot may attach files in the server's channel
    nicknamed: [],          // ids of the people a moderator gave a server nickname
    nicks: {},              // user id -> that server nickname
    version: 0,
    messages: [],
    commands: [],
    nodes: new Map(),       // message id -> {sig, el}
    failed: new Set(),      // message ids whose last interaction failed
    busy: new Map(),        // message id -> custom_id of the interaction in flight
    openSelect: null,       // "message id|custom_id" of the open menu
    used: loadJSON("kg-used", {}),   // interaction id -> "/goblin new" as sent from here
    seen: loadJSON("kg-seen", {}),   // user id -> newest message id they looked at
    cmd: null,              // the command being filled in
    suggest: [],            // items of the suggestion list
    active: 0,
    stick: true,
    rendering: null,
    again: false,
    welcomeKey: null,
  };

  // ------------------------------------------------------------------ helpers

  function loadJSON(key, fallback) {
    try { return JSON.parse(localStorage.getItem(key)) || fallback; } catch { return fallback; }
  }
  function saveJSON(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ }
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const newer = (a, b) => (a.length !== b.length ? a.length > b.length : a > b); // snowflakes

  async function api(path, body) {
    const init = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch { /* empty */ }
    if (!res.ok) {
      const err = new Error((data && (data.error || data.message)) || res.statusText);
      err.status = res.status;
      err.code = data && typeof data.code === "string" ? data.code : null;
      err.params = (data && data.params) || {};
      throw err;
    }
    return data;
  }

  function me() { return state.config.users.find((u) => u.id === state.user); }
  function lang() { return me().locale || state.config.locale; }
  function discordLocale() { return state.config.discord_locales[lang()]; }
  function t(key, params = {}) {
    const text = (state.config.strings[lang()] || {})[key] ?? state.config.strings.en[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (m, p) => (p in params ? params[p] : m));
  }
  /** "Discord would refuse that: ..." in the viewer's language: the stand-in's refusal code
   *  translated (refusal.<code>), a generic line with the code when the page has no text for
   *  it, and the page's "does not answer" line when the server could not be reached. */
  function refusal(e) {
    if (e && e.code) {
      const key = `refusal.${e.code}`;
      const known = key in ((state.config.strings[lang()] || {})) || key in state.config.strings.en;
      return known ? t("refused", { error: t(key, e.params || {}) })
                   : t("refused_code", { code: e.code });
    }
    return e && e.status ? t("refused_code", { code: e.status }) : t("server_gone");
  }
  /** A text whose placeholders are filled with HTML (the rest escaped). */
  function tHtml(key, html) {
    const text = (state.config.strings[lang()] || {})[key] ?? key;
    return text.split(/(\{\w+\})/).map((part) => {
      const m = part.match(/^\{(\w+)\}$/);
      return m && m[1] in html ? html[m[1]] : esc(part);
    }).join("");
  }
  function userName(id) {
    if (state.config.bot.id === id) return state.config.bot.name;
    const u = state.config.users.find((x) => x.id === id);
    return u ? u.name : "?";
  }
  /** How a message shows a person: in the server (its channel and threads) by their server
   * nickname when they have one, as Discord shows a mention; in DMs by their name. */
  function memberName(id) {
    return (state.place !== "dm" && state.nicks[id]) || userName(id);
  }
  function colour(id) {
    const i = state.config.users.findIndex((u) => u.id === id);
    return COLOURS[(i < 0 ? 5 : i) % COLOURS.length];
  }
  function avatar(author) {
    if (author.bot) return '<div class="avatar bot" aria-hidden="true">K</div>';
    const name = author.global_name || author.username || "?";
    return `<div class="avatar" style="background:${colour(author.id)}" aria-hidden="true">${esc(name[0].toUpperCase())}</div>`;
  }
  function localPath(url) {
    try { const u = new URL(url, location.href); return u.pathname + u.search; } catch { return url; }
  }
  const view = window.KarakMessage({ esc, localPath, userName: memberName,
    channelName, threadName, locale: () => discordLocale() || lang() });
  setInterval(() => view.refreshTimes(document), 30_000);
  function channelName() {
    return state.place === "dm" ? state.config.bot.name : state.config.channel_name;
  }
  /** The name of thread ``id`` of the server's channel, or null when it is none of them. */
  function threadName(id) {
    const th = state.threads.find((x) => x.id === id);
    return th ? th.name : null;
  }
  function currentThread() {
    return state.place === "thread" ? state.threads.find((th) => th.id === state.thread) : null;
  }
  /** True when a moderator hid the server's channel from the person we act as, who then sees
   *  neither it nor its threads (their direct messages still). */
  function blind() {
    return state.place !== "dm" && state.hidden.includes(state.user);
  }
  const composer = window.KarakComposer({ state, $, esc, t, api, toast, refusal, localized,
    saveJSON, safeRefresh });
  const controls = window.KarakControls({ state, $, api, toast, refusal, render, safeRefresh,
    composer, switchUser, setLanguage, atBottom, toBottom, goTo });
  const moderator = window.KarakModerator({ state, $, api, t, esc, toast, refusal, safeRefresh,
    currentThread });
  function localized(obj, field) {
    const l = obj[`${field}_localizations`];
    return (l && l[discordLocale()]) || obj[field];
  }
  let toastTimer = 0;
  function toast(text) {
    const el = $("toast");
    el.textContent = text;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 5000);
  }

  // ------------------------------------------------------------------ messages

  function grouped(prev, m) {
    if (!prev || prev.author.id !== m.author.id || m.interaction_metadata) return false;
    if (Boolean(prev.loopback.ephemeral_for) !== Boolean(m.loopback.ephemeral_for)) return false;
    return Date.parse(m.timestamp) - Date.parse(prev.timestamp) < 7 * 60 * 1000;
  }

  function signature(m, group) {
    // a message naming a thread (a link or a mention) is drawn again once the thread is known
    const named = /discord\.com\/channels\/|<#/.test(m.content + JSON.stringify(m.components))
      ? state.threads.map((th) => `${th.id}:${th.name}`).join(",") : null;
    return JSON.stringify([named, m.loopback.revision, m.loopback.loading, m.content, m.embeds,
      m.components, m.attachments.map((a) => a.id), group, state.busy.get(m.id) ?? null,
      state.failed.has(m.id), state.used[m.interaction_metadata?.id] ?? null, lang(),
      (m.loopback.mentions || []).includes(state.user), m.thread ?? null]);
  }

  function build(m, group) {
    const el = document.createElement("article");
    el.className = "msg";
    el.id = `m-${m.id}`;
    el.dataset.messageId = m.id;
    if (m.loopback.ephemeral_for) { el.classList.add("ephemeral"); el.dataset.ephemeral = "1"; }
    if (group) el.classList.add("grouped");
    if ((m.loopback.mentions || []).includes(state.user)) el.classList.add("pinged");
    let html = "";
    const meta = m.interaction_metadata;
    if (meta && meta.type === 2) {
      const who = meta.user;
      const command = state.used[meta.id]
        || `/${m.interaction?.name || (state.commands[0] || { name: "goblin" }).name}`;
      html += `<div class="used">${avatar(who)}<span>${tHtml("used", {
        user: `<b>${esc(who.global_name || who.username)}</b>`,
        command: `<span class="cmd">${esc(command)}</span>` })}</span></div>`;
    }
    html += avatar(m.author);
    html += '<div class="body">';
    if (!group) {
      const time = new Date(m.timestamp).toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit" });
      html += `<div class="head"><span class="author">${esc(m.author.global_name || m.author.username)}</span>`;
      if (m.author.bot) html += `<span class="app-badge">${CHECK}</span>`;
      html += `<time class="stamp" datetime="${esc(m.timestamp)}">${esc(time)}</time></div>`;
    }
    if (m.loopback.loading) {
      html += `<div class="loading"><span class="dots"><i></i><i></i><i></i></span>${esc(t("thinking", { bot: m.author.global_name || m.author.username }))}</div>`;
    } else {
      html += view.body(m, state.busy.get(m.id), t("edited"));
    }
    if (m.thread) html += threadLink(m.thread);
    if (state.failed.has(m.id)) html += `<div class="failed">${esc(t("failed"))}</div>`;
    if (m.loopback.ephemeral_for) html += `<div class="note">${EYE}<span>${esc(t("only_you"))}</span></div>`;
    html += "</div>";
    el.innerHTML = html;
    return el;
  }

  /** The box under a message a thread was started from: the thread's name and message count,
   *  opening the thread when clicked (as Discord shows it). */
  function threadLink(th) {
    return `<button type="button" class="thread-link" data-thread="${esc(th.id)}" title="${esc(t("thread_open", { name: th.name }))}">`
      + `${THREAD}<span class="thread-name">${esc(th.name)}</span>`
      + `<span class="thread-count">${esc(t("thread_messages", { count: th.message_count }))}</span>`
      + '<span class="chevron" aria-hidden="true">\u203A</span></button>';
  }

  /** The top of a thread: its name, who started it, and whether it is archived or locked. */
  function threadWelcome(el) {
    const th = currentThread() || { name: "", owner_id: "" };
    let note = "";
    if (th.locked) note = t("thread_locked");
    else if (th.archived) note = t("thread_archived");
    el.innerHTML = `<h1 class="thread-title">${THREAD}<span>${esc(th.name)}</span></h1>`
      + `<p>${esc(t("thread_started", { user: memberName(th.owner_id) }))}</p>`
      + (note ? `<p class="thread-note">${esc(note)}</p>` : "");
    return el;
  }

  function welcome() {
    let el = $("welcome");
    const th = currentThread();
    const key = JSON.stringify([lang(), state.place, th ? [th.id, th.name, th.archived, th.locked] : null,
      blind(), state.config.channel, state.place === "dm" && me().dms_open]);
    if (el && state.welcomeKey === key) return el;
    state.welcomeKey = key;
    if (!el) {
      el = document.createElement("section");
      el.id = "welcome";
      el.className = "welcome";
    }
    if (state.place === "thread") return threadWelcome(el);
    if (blind()) {
      el.innerHTML = `<h1><span class="hash">#</span>${esc(channelName())}</h1>`
        + `<p class="hidden-note">${esc(t("mod.hidden", { channel: state.config.channel_name }))}</p>`;
      return el;
    }
    let text = view.md(state.place === "dm" ? t("welcome_dm", { bot: state.config.bot.name })
      : t("welcome", { channel: state.config.channel_name }));
    // "/goblin new" in the welcome text starts that command
    text = text.replace(/\/([\w\u00C0-\u024F-]+) ([\w\u00C0-\u024F-]+)/g, (all, root, sub) => {
      const leaf = composer.leaves().find((l) => l.names[0] === root && l.names[1] === sub);
      return leaf ? `<a href="#" data-command="${esc(leaf.path.join(" "))}">${all}</a>` : all;
    });
    const hash = state.place === "dm" ? "@" : "#";
    el.innerHTML = `<h1><span class="hash">${hash}</span>${esc(channelName())}</h1><p>${text}</p>`
      + (state.place === "dm" ? dmsSetting() : "");
    return el;
  }

  /** Under the direct messages' welcome: whether they are open to the bot (Discord's privacy
   *  setting), with the button that closes them, or opens them again. */
  function dmsSetting() {
    const bot = state.config.bot.name;
    const open = me().dms_open !== false;
    return `<p class="dms${open ? "" : " closed"}">${open ? "" : `<span>${esc(t("dms.closed", { bot }))}</span>`}`
      + `<button type="button" class="dms-toggle" data-open="${!open}">`
      + `${esc(open ? t("dms.close", { bot }) : t("dms.open"))}</button></p>`;
  }

  /** Open or close the acting person's direct messages to the bot. */
  async function setDms(open) {
    try {
      const user = await api("/play/dms", { user: state.user, open });
      me().dms_open = user.dms_open;
    } catch (e) { toast(refusal(e)); }
    await render();
  }

  function atBottom() {
    const s = $("scroller");
    return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
  }
  function toBottom() { const s = $("scroller"); s.scrollTop = s.scrollHeight; }

  async function ready(el) {
    const imgs = [...el.querySelectorAll("img")];
    if (!imgs.length) return;
    await Promise.race([Promise.all(imgs.map((i) => i.decode().catch(() => null))), sleep(2500)]);
  }

  /** Bring the DOM in line with state.messages, one render at a time (never two at once). */
  function render() {
    if (state.rendering) { state.again = true; return state.rendering; }
    document.body.dataset.rendering = "1";  // a page driver waits for this to go
    state.rendering = (async () => {
      try {
        do {
          state.again = false;
          await renderOnce();
        } while (state.again);
      } finally {
        state.rendering = null;
        delete document.body.dataset.rendering;
      }
    })();
    return state.rendering;
  }

  async function renderOnce() {
    const list = state.messages.slice(-KEEP);
    const wanted = [];
    let prev = null;
    for (const m of list) {
      const group = grouped(prev, m);
      const sig = signature(m, group);
      const old = state.nodes.get(m.id);
      wanted.push({ m, sig, el: old && old.sig === sig ? old.el : build(m, group), fresh: !old || old.sig !== sig });
      prev = m;
    }
    await Promise.all(wanted.filter((w) => w.fresh).map((w) => ready(w.el)));
    const stick = state.stick || atBottom();
    const box = $("messages");
    const keep = new Set(wanted.map((w) => w.m.id));
    for (const [id, node] of state.nodes) if (!keep.has(id)) { node.el.remove(); state.nodes.delete(id); }
    let cursor = welcome();
    if (box.firstChild !== cursor) box.prepend(cursor);
    for (const w of wanted) {
      const old = state.nodes.get(w.m.id);
      if (old && old.el !== w.el) old.el.replaceWith(w.el);
      if (cursor.nextSibling !== w.el) cursor.after(w.el);
      state.nodes.set(w.m.id, { sig: w.sig, el: w.el });
      cursor = w.el;
      if (w.fresh && state.openSelect && state.openSelect.startsWith(w.m.id + "|")) {
        const sel = w.el.querySelector(`.select[data-custom-id="${CSS.escape(state.openSelect.split("|")[1])}"]`);
        if (sel) controls.openMenu(sel, false); else state.openSelect = null;
      }
    }
    if (stick) toBottom();
    markSeen();
  }

  // ------------------------------------------------------------------ users, mentions, language

  function renderUsers() {
    const nav = $("users");
    nav.innerHTML = state.config.users.map((u, i) => `<button type="button" class="user-tab" role="tab" data-user="${u.id}" data-index="${i + 1}" aria-selected="${u.id === state.user}"><span class="avatar" style="background:${colour(u.id)}" aria-hidden="true">${esc(u.name[0])}</span><span class="name">${esc(u.name)}</span><span class="badge" hidden></span></button>`).join("");
    badges();
  }

  function markSeen() {
    const last = state.messages.length ? state.messages[state.messages.length - 1].id : "0";
    if (!state.seen[state.user] || newer(last, state.seen[state.user])) {
      state.seen[state.user] = last;
      saveJSON("kg-seen", state.seen);
    }
    badges();
  }

  function badges() {
    for (const tab of document.querySelectorAll(".user-tab")) {
      const id = tab.dataset.user;
      const seen = state.seen[id] || "0";
      const pinged = id !== state.user && state.messages.some((m) => !m.loopback.ephemeral_for
        && (m.loopback.mentions || []).includes(id) && newer(m.id, seen));
      const badge = tab.querySelector(".badge");
      badge.hidden = !pinged;
      tab.title = pinged ? t("mentioned", { user: userName(id) }) : "";
    }
  }

  /** The thread list under the server's channel (its active threads, and the one shown). */
  function renderThreads() {
    const nav = $("threads");
    const shown = state.place === "dm" ? []
      : state.threads.filter((th) => !th.archived || th.id === state.thread);
    const html = `<span class="spine" aria-hidden="true"></span>` + shown.map((th) =>
      `<button type="button" class="thread-tab" role="tab" data-thread="${esc(th.id)}" aria-selected="${state.place === "thread" && th.id === state.thread}">${THREAD}<span class="name">${esc(th.name)}</span></button>`).join("");
    nav.hidden = !shown.length;
    nav.setAttribute("aria-label", t("threads_of", { channel: state.config.channel_name }));
    if (nav.dataset.html !== html) { nav.innerHTML = html; nav.dataset.html = html; }
  }

  /** The header: the channel (or thread, or direct messages) shown and where it is. */
  function headerTexts() {
    const th = currentThread();
    state.channel = state.place === "dm" ? state.config.dms[state.user]
      : state.place === "thread" ? state.thread : state.config.channel;
    if (th) $("channel-hash").innerHTML = THREAD;
    else $("channel-hash").textContent = state.place === "dm" ? "@" : "#";
    $("channel-name").textContent = th ? th.name : channelName();
    $("guild-name").textContent = state.place === "dm" ? t("place_dm")
      : th ? `#${state.config.channel_name}` : state.config.guild_name;
    renderThreads();
    moderator.texts();
  }

  function applyTexts() {
    document.documentElement.lang = lang();
    document.title = t("title");
    headerTexts();
    for (const tab of document.querySelectorAll(".place-tab")) {
      tab.textContent = tab.dataset.place === "dm" ? `@${state.config.bot.name}`
        : `#${state.config.channel_name}`;
      tab.title = tab.dataset.place === "dm" ? t("place_dm") : t("place_server");
      tab.setAttribute("aria-selected", String(tab.dataset.place === state.place));
    }
    $("acting-as").textContent = t("acting_as");
    $("language-label").textContent = t("language");
    $("send-label").textContent = t("send");
    $("send").title = t("send");
    $("command-input").placeholder = t("command_hint");
    if (!clock) {
      clock = window.KarakClock({ state, $, api, t, toast, refusal, safeRefresh,
        refreshTimes: () => view.refreshTimes(document) });
    }
    clock.texts();
    const select = $("language");
    select.title = t("language");
    select.innerHTML = Object.entries(state.config.languages).map(([code, name]) =>
      `<option value="${code}"${code === lang() ? " selected" : ""}>${esc(name)}</option>`).join("");
  }

  /** Forget the messages shown: another channel, or another user's view, comes next. */
  function clearShown() {
    for (const node of state.nodes.values()) node.el.remove();
    state.nodes.clear();
    state.messages = [];
    state.openSelect = null;
    state.stick = true;
    composer.clearCommand();
    applyTexts();
  }

  /** Show the server's channel ("server") or the acting user's DM with the bot ("dm"). */
  async function switchPlace(place) {
    if (place === state.place) return;
    state.place = place;
    state.thread = null;
    clearShown();
    await safeRefresh();
  }

  /** Show the thread ``id`` of the server's channel. */
  async function openThread(id) {
    if (state.place === "thread" && state.thread === id) return;
    state.place = "thread";
    state.thread = id;
    clearShown();
    await safeRefresh();
  }

  /** Follow a link into Discord: open the place ``channel`` names (the server's channel, one
   *  of its threads, the acting person's direct messages with the bot; the one shown when
   *  empty), then bring message ``message`` (when given and shown there) into view, flashing.
   *  A place the page does not hold (another person's direct messages) is left alone. */
  async function goTo(channel, message) {
    if (channel && channel !== state.channel) {
      if (channel === state.config.channel) await switchPlace("server");
      else if (channel === state.config.dms[state.user]) await switchPlace("dm");
      else {
        if (!state.threads.some((th) => th.id === channel)) {
          try {
            state.threads = (await api(`/_loopback/channels/${state.config.channel}/threads`)).threads || [];
          } catch (e) { toast(refusal(e)); return; }
        }
        if (!state.threads.some((th) => th.id === channel)) return;
        await openThread(channel);
      }
      if (state.rendering) await state.rendering;
    }
    const el = message ? $(`m-${message}`) : null;
    if (!el) return;
    state.stick = false;  // a picture loading afterwards leaves the message in view
    // centred, or from its top when taller than the window (a table message on a phone)
    const tall = el.offsetHeight > $("scroller").clientHeight;
    el.scrollIntoView({ block: tall ? "start" : "center", behavior: "smooth" });
    el.classList.remove("flash");
    void el.offsetWidth;
    el.classList.add("flash");
  }

  async function switchUser(id, index) {
    if (id === state.user) return;
    document.body.dataset.switching = "1"; // until the new user's messages are shown
    try { await showUser(id, index); } finally { delete document.body.dataset.switching; }
  }

  async function showUser(id, index) {
    state.user = id;
    try { localStorage.setItem("kg-user", id); } catch { /* private mode */ }
    const url = new URL(location.href);
    url.searchParams.set("as", String(index));
    history.replaceState(null, "", url);
    clearShown();
    renderUsers();
    await safeRefresh();
  }

  async function setLanguage(code) {
    try {
      const user = await api("/play/locale", { user: state.user, locale: code });
      me().locale = user.locale;
    } catch (e) { toast(refusal(e)); }
    applyTexts();
    composer.clearCommand();
    await render();
  }

  // ------------------------------------------------------------------ talking to the stand-in

  function banner(text, bad) {
    const el = $("banner");
    el.textContent = text || "";
    el.hidden = !text;
    el.classList.toggle("bad", Boolean(bad));
  }

  let refreshing = null;
  let refreshAgain = false;
  async function refresh() {
    if (refreshing) { refreshAgain = true; return refreshing; }
    refreshing = (async () => {
      do {
        refreshAgain = false;
        // the version before anything is read: whatever changes while this reads (a thread
        // archived between the list of threads and the messages) wakes watch() again
        const summary = await api("/_loopback/");
        const server = await api("/play/channel");
        state.hidden = server.hidden || [];
        state.botFiles = server.bot_files !== false;
        state.nicknamed = server.nicknamed || [];
        state.nicks = server.nicks || {};
        if (server.id !== state.config.channel) {  // deleted by a moderator: the new one
          state.config.channel = server.id;
          state.config.channel_name = server.name;
          if (state.place === "thread") { state.place = "server"; state.thread = null; }
          if (state.place !== "dm") clearShown();
        }
        if (state.place !== "dm") {
          const listed = blind() ? { threads: [] }
            : await api(`/_loopback/channels/${state.config.channel}/threads`);
          state.threads = listed.threads || [];
          if (state.place === "thread" && !currentThread()) {  // deleted or hidden: back to the channel
            state.place = "server";
            state.thread = null;
            clearShown();
          }
          headerTexts();
        }
        const user = state.user;
        const channel = state.channel;
        const data = blind() ? { messages: [] }
          : await api(`/_loopback/channels/${channel}/messages?user=${user}`);
        if (user !== state.user || channel !== state.channel) { refreshAgain = true; continue; }
        state.version = summary.version;
        state.messages = data.messages;
        banner(summary.bot_connected ? "" : t("waiting_bot"));
        if (!state.commands.length) await loadCommands();
        await render();
      } while (refreshAgain);
    })();
    try { await refreshing; } finally { refreshing = null; }
  }

  /** refresh(), showing the "not answering" banner instead of failing. */
  function safeRefresh() {
    return refresh().catch(() => banner(t("server_gone"), true));
  }

  async function loadCommands() {
    try {
      const data = await api(`/_loopback/commands?guild_id=${state.config.guild}`);
      state.commands = data.commands || [];
    } catch { state.commands = []; }
  }

  async function watch() {
    for (;;) {
      try {
        const r = await api(`/_loopback/wait?after=${state.version}&timeout=20`);
        if (r.version !== state.version) { state.version = r.version; await refresh(); }
      } catch {
        banner(t("server_gone"), true);
        await sleep(2000);
        try {
          // back after a restart: its users, languages and commands may differ
          const config = await api("/play/config");
          if (config.users.some((u) => u.id === state.user)) state.config = config;
          state.commands = [];
          applyTexts();
          renderUsers();
          await refresh();
        } catch { /* still gone */ }
      }
    }
  }

  async function boot() {
    for (;;) {
      try { state.config = await api("/play/config"); break; } catch { await sleep(1000); }
    }
    const users = state.config.users;
    const asked = Number(new URLSearchParams(location.search).get("as"));
    const stored = localStorage.getItem("kg-user");
    state.user = (users[asked - 1] || users.find((u) => u.id === stored) || users[0]).id;
    controls.wire();
    moderator.wire();
    $("places").addEventListener("click", (e) => {
      const tab = e.target.closest(".place-tab");
      if (tab) switchPlace(tab.dataset.place);
    });
    $("threads").addEventListener("click", (e) => {
      const tab = e.target.closest(".thread-tab");
      if (tab) openThread(tab.dataset.thread);
    });
    $("messages").addEventListener("click", (e) => {
      const dms = e.target.closest(".dms-toggle");
      if (dms) { setDms(dms.dataset.open === "true"); return; }
      const link = e.target.closest(".thread-link, .thread-mention");
      if (!link) return;
      e.preventDefault();
      openThread(link.dataset.thread);
    });
    applyTexts();
    renderUsers();
    await loadCommands();
    await safeRefresh();
    document.body.dataset.ready = "1";
    watch();
  }

  boot();
})();
