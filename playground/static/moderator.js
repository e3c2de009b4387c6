/* The playground's moderator menu (the shield beside the channel's name): what a moderator of
 * the server does to the thread shown (archive, lock, unarchive or unlock, delete) or to the
 * channel (delete it; take the bot's Attach Files there, or give it back; hide it from a person,
 * or let them see it again; give a person a server nickname with markdown characters, or clear
 * it); in either, delete the bot's newest post. POST /play/moderate does
 * it through the stand-in, so the bot hears the gateway events Discord would send (THREAD_UPDATE,
 * THREAD_DELETE, CHANNEL_DELETE, CHANNEL_UPDATE). A deletion asks for a second press. Built by
 * app.js: window.KarakModerator({ state, $, api, t, esc, toast, refusal, safeRefresh,
 * currentThread }); texts() after every change of place, language or state. */
(function () {
  "use strict";
  const THREAD_ACTS = ["archive", "lock", "unarchive", "delete_thread"];

  window.KarakModerator = function ({ state, $, api, t, esc, toast, refusal, safeRefresh,
                                      currentThread }) {
    let armed = null;    // the deletion waiting for its confirming press
    let shown = [];      // the menu's items, as drawn

    /** The menu for the place shown: a title, items, and where the people's part starts. */
    function entries() {
      const channel = state.config.channel_name;
      const th = currentThread();
      if (th) {
        const items = [];
        if (!th.archived) items.push({ act: "archive", label: t("mod.archive"), hint: t("mod.archive_hint") });
        if (!th.locked) items.push({ act: "lock", label: t("mod.lock"), hint: t("mod.lock_hint") });
        if (th.locked) items.push({ act: "unarchive", label: t("mod.unlock") });
        else if (th.archived) items.push({ act: "unarchive", label: t("mod.unarchive") });
        items.push({ act: "delete_thread", label: t("mod.delete_thread"),
          hint: t("mod.delete_thread_hint"), danger: true });
        items.push({ act: "delete_post", label: t("mod.delete_post"),
          hint: t("mod.delete_post_hint"), danger: true });
        return { title: t("mod.title_thread"), items, people: items.length };
      }
      const items = [{ act: "delete_channel", label: t("mod.delete_channel"),
        hint: t("mod.delete_channel_hint", { channel }), danger: true },
        { act: "delete_post", label: t("mod.delete_post"), hint: t("mod.delete_post_hint"),
          danger: true }];
      items.push(state.botFiles
        ? { act: "take_files", label: t("mod.take_files", { channel }), hint: t("mod.take_files_hint") }
        : { act: "give_files", label: t("mod.give_files", { channel }) });
      for (const u of state.config.users) {
        if (u.admin) continue;  // the server's owner sees every channel
        const hidden = state.hidden.includes(u.id);
        items.push({ act: hidden ? "show" : "hide", user: u.id, hidden,
          label: hidden ? t("mod.show", { user: u.name, channel })
                        : t("mod.hide", { user: u.name, channel }) });
      }
      let names = t("mod.names");
      for (const u of state.config.users) {
        if (u.admin) continue;  // no moderator changes the server owner's nickname
        const named = state.nicknamed.includes(u.id);
        items.push({ act: named ? "unnick" : "nick", user: u.id, head: names,
          label: named ? t("mod.unnick", { user: u.name })
                       : t("mod.nick", { user: u.name, nick: `**${u.name}**` }),
          hint: named ? "" : t("mod.nick_hint") });
        names = "";
      }
      return { title: t("mod.title_channel", { channel }), items, people: 3,
        sight: t("mod.sight", { channel }) };
    }

    function draw() {
      const menu = $("mod-menu");
      const { title, items, people, sight } = entries();
      shown = items;
      let html = `<div class="mod-title">${esc(title)}</div>`;
      items.forEach((item, i) => {
        if (i === people && sight) html += `<div class="mod-sight">${esc(sight)}</div>`;
        if (item.head) html += `<div class="mod-sight">${esc(item.head)}</div>`;
        const key = item.act + (item.user || "");
        const cls = ["mod-item", item.danger ? "danger" : "", armed === key ? "armed" : "",
          item.hidden ? "hidden-from" : ""].filter(Boolean).join(" ");
        html += `<button type="button" role="menuitem" class="${cls}" data-i="${i}" data-act="${esc(item.act)}"`
          + (item.user ? ` data-user="${esc(item.user)}"` : "") + ">"
          + `<span class="label">${esc(armed === key ? t("mod.confirm") : item.label)}</span>`
          + (item.hint ? `<span class="hint">${esc(item.hint)}</span>` : "") + "</button>";
      });
      menu.innerHTML = html;
    }

    function isOpen() { return !$("mod-menu").hidden; }

    function open() {
      armed = null;
      draw();
      $("mod-menu").hidden = false;
      $("mod").setAttribute("aria-expanded", "true");
    }

    function close() {
      armed = null;
      $("mod-menu").hidden = true;
      $("mod").setAttribute("aria-expanded", "false");
    }

    /** The button's texts and whether it shows (no moderator in direct messages); the open
     *  menu drawn again (a thread archived meanwhile offers Unarchive). */
    function texts() {
      const button = $("mod");
      button.hidden = state.place === "dm";
      button.title = t("mod.button");
      button.setAttribute("aria-label", t("mod.button"));
      if (button.hidden) close();
      else if (isOpen()) draw();
    }

    async function run(item) {
      const key = item.act + (item.user || "");
      if (item.danger && armed !== key) { armed = key; draw(); return; }
      close();
      const body = { act: item.act };
      if (THREAD_ACTS.includes(item.act) || (item.act === "delete_post" && currentThread()))
        body.thread = state.thread;
      if (item.user) body.user = item.user;
      try {
        const server = await api("/play/moderate", body);
        state.hidden = server.hidden || [];
        state.botFiles = server.bot_files !== false;
        state.nicknamed = server.nicknamed || [];
        state.nicks = server.nicks || {};
      } catch (e) { toast(refusal(e)); }
      await safeRefresh();
    }

    function wire() {
      $("mod").addEventListener("click", () => { if (isOpen()) close(); else open(); });
      $("mod-menu").addEventListener("click", (ev) => {
        const b = ev.target.closest(".mod-item");
        if (b) run(shown[Number(b.dataset.i)]);
      });
      // the path as dispatched: an armed item is drawn anew, so the clicked one left the page
      document.addEventListener("click", (ev) => {
        const inside = ev.composedPath().some((el) => el.id === "mod" || el.id === "mod-menu");
        if (isOpen() && !inside) close();
      });
      document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") close(); });
    }

    return { wire, texts, close };
  };
})();
