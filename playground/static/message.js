/* Karak: Goblin playground: draws a message's body the way Discord's client does: content and
 * embeds in Discord's markdown, attachments, action rows of buttons and menus, or a Components V2
 * layout (containers with their accent bar, text displays, sections with a button or thumbnail
 * beside their text, media galleries, files, separators). Plain JavaScript, no dependencies.
 * app.js makes one with KarakMessage({ esc, localPath, userName, channelName, threadName }). */
"use strict";

window.KarakMessage = (ctx) => {
  const { esc, localPath } = ctx;
  const CHEVRON = '<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M7 10l5 5 5-5z"/></svg>';
  const COMPONENTS_V2 = 1 << 15;  // the message flag of a Components V2 layout
  // Discord's thread icon, as a mention of a thread shows it
  const THREAD = '<svg class="thread-icon" width="16" height="16" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" fill-rule="evenodd" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2Zm3 5v2h10V8H7Zm0 4v2h7v-2H7Z"/></svg>';

  // ------------------------------------------------------------------ timestamps and emoji

  /** How Discord writes <t:…:x> in each style (t, T, d, D, f, F; R is relative). */
  const STAMP = {
    t: { hour: "numeric", minute: "2-digit" },
    T: { hour: "numeric", minute: "2-digit", second: "2-digit" },
    d: { day: "2-digit", month: "2-digit", year: "numeric" },
    D: { day: "numeric", month: "long", year: "numeric" },
    f: { day: "numeric", month: "long", year: "numeric", hour: "numeric", minute: "2-digit" },
    F: { weekday: "long", day: "numeric", month: "long", year: "numeric", hour: "numeric", minute: "2-digit" },
  };
  const UNITS = [["year", 365 * 86400], ["month", 30 * 86400], ["day", 86400], ["hour", 3600],
    ["minute", 60], ["second", 1]];
  /** "in 2 hours" / "il y a 3 minutes" / "před 2 dny": ``seconds`` (Unix time) from now. */
  function relative(seconds, locale) {
    const diff = seconds - (Date.now() / 1000 + (window.KarakClockOffset || 0)); // the clock control's
    const [unit, size] = UNITS.find(([, size]) => Math.abs(diff) >= size) || UNITS[UNITS.length - 1];
    return new Intl.RelativeTimeFormat(locale, { numeric: "always" }).format(Math.round(diff / size), unit);
  }
  /** Discord's timestamp markup <t:seconds:style>, shown in the viewer's language and time zone
   * (the full date and time on hover); relative ones are kept current by refreshTimes(). */
  function timestamp(seconds, style) {
    const locale = ctx.locale();
    const when = new Date(Number(seconds) * 1000);
    if (Number.isNaN(when.getTime())) return null;
    const text = style === "R" ? relative(Number(seconds), locale)
      : when.toLocaleString(locale, STAMP[style] || STAMP.f);
    return `<time class="timestamp" datetime="${when.toISOString()}" data-seconds="${Number(seconds)}"`
      + ` data-style="${style}" title="${esc(when.toLocaleString(locale, STAMP.F))}">${esc(text)}</time>`;
  }
  function refreshTimes(root) {
    for (const t of root.querySelectorAll("time.timestamp[data-style='R']")) {
      const text = relative(Number(t.dataset.seconds), ctx.locale());
      if (t.textContent !== text) t.textContent = text;
    }
  }
  /** Emoji Discord draws as pictures (Twemoji), drawn here as icons so no emoji font is needed. */
  const ICONS = {
    "\u23EE": "M5 5h2v14H5zM13 5v14l-6-7zM20 5v14l-7-7z",  // ⏮
    "\u23ED": "M17 5h2v14h-2zM11 5v14l6-7zM4 5v14l7-7z",   // ⏭
    "\u23EA": "M12 5v14l-9-7zM21 5v14l-9-7z",             // ⏪
    "\u23E9": "M3 5v14l9-7zM12 5v14l9-7z",                // ⏩
    "\u{1F3C6}": "M7 3h10v6a5 5 0 0 1-10 0zM3 4h4v2H5v1a3 3 0 0 0 2.2 2.9l-.5 1.9A5 5 0 0 1 3 7z"
      + "M21 4h-4v2h2v1a3 3 0 0 1-2.2 2.9l.5 1.9A5 5 0 0 0 21 7zM11 13.5h2V17h-2zM7 17h10v4H7z",  // 🏆
  };
  /** The icons drawn in a colour of their own (the others take the text's). */
  const ICON_FILL = { "\u{1F3C6}": "#f0b232" };
  const ICON_CHARS = new RegExp(`(?:${Object.keys(ICONS).join("|")})\uFE0F?`, "gu");
  /** ``html`` (already escaped) with those emoji as inline icons named by the emoji. */
  function icons(html) {
    return html.replace(ICON_CHARS, (e) => {
      const name = e.replace("\uFE0F", "");
      return `<svg class="emoji" viewBox="0 0 24 24" role="img" aria-label="${name}">`
        + `<path fill="${ICON_FILL[name] || "currentColor"}" d="${ICONS[name]}"/></svg>`;
    });
  }
  /** A component's label: escaped, its emoji as icons. */
  function label(text) { return icons(esc(text || "")); }

  // ------------------------------------------------------------------ markdown (Discord's subset)

  function inline(text) {
    const keep = [];
    const stash = (html) => { keep.push(html); return `\u0000${keep.length - 1}\u0000`; };
    let s = esc(text);
    // a backslash shows the character after it as it is, and is not shown (a name as typed)
    s = s.replace(/\\(&(?:lt|gt|amp|quot|#39);|[^A-Za-z0-9\s])/g, (_, c) => stash(c));
    s = s.replace(/`([^`\n]+)`/g, (_, c) => stash(`<code>${c}</code>`));
    s = s.replace(/&lt;t:(-?\d{1,13})(?::([tTdDfFR]))?&gt;/g,
      (all, seconds, style) => { const h = timestamp(seconds, style || "f"); return h ? stash(h) : all; });
    s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)|(https?:\/\/[^\s<]+[^\s<.,;:!?)])/g,
      (_, label, url, bare) => stash(link(url || bare, label || bare)));
    s = s.replace(/&lt;@!?(\d+)&gt;/g, (_, id) => stash(`<span class="mention">@${esc(ctx.userName(id))}</span>`));
    s = s.replace(/&lt;#(\d+)&gt;/g, (_, id) => stash(ctx.threadName(id) ? threadMention(id)
      : `<span class="mention">#${esc(ctx.channelName())}</span>`));
    // a word glued to a link or mention by a no-break space stays on its line ("→ #thread")
    s = s.replace(/(\S+\u00A0)(\u0000\d+\u0000)/g, '<span class="glued">$1$2</span>');
    s = s.replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>");
    s = s.replace(/__(.+?)__/g, "<u>$1</u>");
    s = s.replace(/(^|[^*\w])\*(?![\s*])(.+?)\*(?!\w)/g, "$1<em>$2</em>");
    s = s.replace(/(^|[^\w])_(?![\s_])(.+?)_(?!\w)/g, "$1<em>$2</em>");
    s = s.replace(/~~(.+?)~~/g, "<s>$1</s>");
    s = icons(s);
    return s.replace(/\u0000(\d+)\u0000/g, (_, i) => keep[Number(i)]);
  }
  /** A link; one into Discord (a server's channel or thread, or direct messages: ``@me``, with
   *  a message's id or without) opens that place in the page, at that message, as Discord's
   *  client does (the page's click handler follows data-channel and data-jump). */
  function link(url, label) {
    const place = url.match(/^https:\/\/discord\.com\/channels\/(?:\d+|@me)\/(\d+)(?:\/(\d+))?$/);
    if (!place) return `<a href="${url}" target="_blank" rel="noopener noreferrer">${label}</a>`;
    const [, channel, message] = place;
    // a bare link to a thread: Discord draws it as a mention of the thread, with its name
    if (!message && label === url && ctx.threadName(channel)) return threadMention(channel);
    const shown = label === url ? "#" + esc(ctx.threadName(channel) || ctx.channelName()) : label;
    return `<a href="#${message ? `m-${message}` : ""}" data-jump="${message || ""}"`
      + ` data-channel="${channel}">${shown}</a>`;
  }
  /** A mention of thread ``id``: its icon and name, opening the thread when clicked. */
  function threadMention(id) {
    return `<a href="#" class="mention thread-mention" data-thread="${esc(id)}">${THREAD}`
      + `<span>${esc(ctx.threadName(id))}</span></a>`;
  }
  /** Discord's block markdown: headings (#, ##, ###), -# subtext, > quotes, - / 1. lists. */
  function md(text) {
    const out = [];
    let list = null;
    const flush = () => {
      if (list) out.push(`<${list.tag}${list.start > 1 ? ` start="${list.start}"` : ""}>${list.items.join("")}</${list.tag}>`);
      list = null;
    };
    const item = (tag, start, html) => {
      if (!list || list.tag !== tag) { flush(); list = { tag, start, items: [] }; }
      list.items.push(`<li>${html}</li>`);
    };
    for (const line of String(text || "").split("\n")) {
      const bullet = line.match(/^\s*[-*] (.+)$/);
      const numbered = line.match(/^\s*(\d+)\. (.+)$/);
      if (bullet) { item("ul", 1, inline(bullet[1])); continue; }
      if (numbered) { item("ol", Number(numbered[1]), inline(numbered[2])); continue; }
      flush();
      const heading = line.match(/^(#{1,3}) (.+)$/);
      const sub = line.match(/^-# (.+)$/);
      if (heading) out.push(`<div class="h${heading[1].length}">${inline(heading[2])}</div>`);
      else if (sub) out.push(`<div class="subtext">${inline(sub[1])}</div>`);
      else if (line.startsWith("> ")) out.push(`<div class="quote">${inline(line.slice(2)) || "<br>"}</div>`);
      else out.push(`<div>${inline(line) || "<br>"}</div>`);
    }
    flush();
    return out.join("");
  }

  function embedImages(m) {
    const used = new Set();
    for (const e of m.embeds) {
      for (const k of ["image", "thumbnail"]) if (e[k] && e[k].url) used.add(localPath(e[k].url));
    }
    return used;
  }

  function embeds(m) {
    return m.embeds.map((e) => {
      const bar = e.color != null ? `#${e.color.toString(16).padStart(6, "0")}` : "var(--line)";
      let h = `<div class="embed" style="border-left-color:${bar}">`;
      if (e.author && e.author.name) h += `<div class="title">${esc(e.author.name)}</div>`;
      if (e.title) {
        h += e.url ? `<div class="title">${link(e.url, esc(e.title))}</div>`
          : `<div class="title">${esc(e.title)}</div>`;
      }
      if (e.description) h += `<div class="md">${md(e.description)}</div>`;
      if (e.fields && e.fields.length) {
        h += '<div class="fields">' + e.fields.map((f) =>
          `<div class="field${f.inline ? " inline" : ""}"><div class="name">${inline(f.name)}</div><div class="md">${md(f.value)}</div></div>`).join("") + "</div>";
      }
      const img = e.image || e.thumbnail;
      if (img && img.url) h += `<div class="image"><img src="${esc(localPath(img.url))}" alt="" loading="eager"></div>`;
      if (e.footer && e.footer.text) h += `<div class="footer">${esc(e.footer.text)}</div>`;
      return h + "</div>";
    }).join("");
  }

  function attachments(m) {
    const used = embedImages(m);
    const rest = m.attachments.filter((a) => !used.has(localPath(a.url)));
    if (!rest.length) return "";
    return '<div class="attachments">' + rest.map((a) => (/\.(png|jpe?g|gif|webp)$/i.test(a.filename)
      ? `<img src="${esc(localPath(a.url))}" alt="${esc(a.description || a.filename)}">`
      : `<a href="${esc(localPath(a.url))}" download>${esc(a.filename)}</a>`)).join("") + "</div>";
  }

  /** A button or select menu (in an action row, or beside a section's text). */
  function control(c, busy) {
    const off = c.disabled || busy !== undefined;
    if (c.type === 2) {
      const emoji = c.emoji && c.emoji.name ? `<span>${label(c.emoji.name)}</span>` : "";
      if (c.style === 5) {
        return `<a class="btn s5" href="${esc(c.url)}" target="_blank" rel="noopener noreferrer">${emoji}${label(c.label)} ↗</a>`;
      }
      return `<button type="button" class="btn s${c.style}${busy === c.custom_id ? " busy" : ""}" data-custom-id="${esc(c.custom_id)}"${off ? " disabled" : ""}>${emoji}${label(c.label)}</button>`;
    }
    if (c.type !== 3) return "";
    const chosen = (c.options || []).find((o) => o.default);
    let h = `<div class="select${busy === c.custom_id ? " busy" : ""}" data-custom-id="${esc(c.custom_id)}">`;
    h += `<button type="button" aria-haspopup="listbox"${off ? " disabled" : ""}><span${chosen ? ' class="chosen"' : ""}>${label(chosen ? chosen.label : c.placeholder)}</span>${CHEVRON}</button>`;
    h += '<div class="options" role="listbox" hidden>';
    for (const o of c.options || []) {
      h += `<button type="button" class="option" role="option" data-value="${esc(o.value)}"><span class="label">${label(o.label)}</span>`;
      if (o.description) h += `<span class="desc">${esc(o.description)}</span>`;
      h += "</button>";
    }
    return h + "</div></div>";
  }

  function actionRow(row, busy) {
    return `<div class="row">${(row.components || []).map((c) => control(c, busy)).join("")}</div>`;
  }

  function components(m, busy) {
    if (!m.components || !m.components.length) return "";
    return `<div class="components">${m.components.map((row) => actionRow(row, busy)).join("")}</div>`;
  }

  // ------------------------------------------------------------------ Components V2 layout

  function isLayout(m) { return (m.flags & COMPONENTS_V2) !== 0; }

  function picture(media, alt, cls) {
    const url = media && media.url ? localPath(media.url) : "";
    return `<img class="${cls}" src="${esc(url)}" alt="${esc(alt || "")}" loading="eager">`;
  }

  /** Discord's gallery grid: rows of 1 to 3 pictures; three pictures show one large beside two. */
  const GALLERY_ROWS = { 1: [1], 2: [2], 3: [3], 4: [2, 2], 5: [2, 3], 6: [3, 3], 7: [1, 3, 3],
    8: [2, 3, 3], 9: [3, 3, 3], 10: [1, 3, 3, 3] };

  function gallery(c) {
    const items = (c.items || []).slice(0, 10);
    const spans = (GALLERY_ROWS[items.length] || [1]).flatMap((n) => Array(n).fill(6 / n));
    return `<div class="gallery n${items.length}">` + items.map((it, i) =>
      `<div class="cell" style="grid-column:span ${spans[i]}">${picture(it.media, it.description, it.spoiler ? "spoiler" : "")}</div>`).join("") + "</div>";
  }

  function piece(c, busy) {
    switch (c.type) {
      case 1: return actionRow(c, busy);
      case 10: return `<div class="text-display md">${md(c.content)}</div>`;
      case 11: return `<div class="thumbnail">${picture(c.media, c.description, c.spoiler ? "spoiler" : "")}</div>`;
      case 12: return gallery(c);
      case 13: {
        const url = c.file && c.file.url ? localPath(c.file.url) : "";
        const name = url.split("/").pop() || "file";
        return `<a class="file" href="${esc(url)}" download>${esc(decodeURIComponent(name))}</a>`;
      }
      case 14: return `<div class="separator${c.divider === false ? "" : " line"} s${c.spacing === 2 ? 2 : 1}"></div>`;
      case 9: {
        const side = c.accessory ? `<div class="accessory">${piece(c.accessory, busy) || control(c.accessory, busy)}</div>` : "";
        return `<div class="section"><div class="texts">${(c.components || []).map((x) => piece(x, busy)).join("")}</div>${side}</div>`;
      }
      case 17: {
        const bar = c.accent_color != null ? ` style="border-left-color:#${c.accent_color.toString(16).padStart(6, "0")}"` : "";
        return `<div class="container${c.accent_color != null ? " accent" : ""}${c.spoiler ? " spoiler" : ""}"${bar}>${(c.components || []).map((x) => piece(x, busy)).join("")}</div>`;
      }
      default: return "";
    }
  }

  function layout(m, busy) {
    return `<div class="layout">${m.components.map((c) => piece(c, busy)).join("")}</div>`;
  }

  /** The body of a message: its layout, or its content, embeds, attachments and rows.
   * busy: the custom_id of the interaction in flight on it (its controls are disabled). */
  function body(m, busy, editedLabel) {
    if (isLayout(m)) return layout(m, busy);  // a layout shows only what its components show
    const edited = m.edited_timestamp && m.content ? `<span class="edited">${esc(editedLabel)}</span>` : "";
    return `<div class="content">${m.content ? md(m.content) : ""}${edited}</div>`
      + embeds(m) + attachments(m) + components(m, busy);
  }

  return { body, inline, md, refreshTimes };
};
