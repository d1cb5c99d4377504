/// The page a ``LiveList`` sends for its path (`GET /` in `tessera serve`):
/// the live list a person uses in a browser. One self-contained HTML
/// document (inline CSS and script, no external assets, no build step) that
/// speaks the live list's protocol (see Protocol.md in this module's
/// catalog) over `ws://HOST:PORT/PATH/live`.
///
/// What the page does:
/// - It draws the elements the server sent for its rectangle (the visible
///   area plus one screen above and below), and nothing else: album
///   headers (pinned to the top while their album scrolls under them, with
///   a "+" that adds a photo) and item cells (a thumbnail in the item's
///   `colour` and its title), absolutely positioned inside a content box of
///   the list's content size, so the browser scrolls the whole list
///   natively.
/// - It sends `viewport` on scroll (at most once per animation frame) and
///   on resize, and `hello` again after every reconnection (with backoff).
/// - It plays each `plan` from the plan's own frames, alpha, z order,
///   duration and timing, moving elements above the others and the content
///   offset from `contentOffsetBefore` to `contentOffsetAfter` (the same
///   point from `tessera serve`, which never moves a viewport), kept within
///   the content after the plan as the browser keeps it; a plan that
///   arrives during an animation starts each element from where it is on
///   screen. A plan with `animated: false` settles at once.
/// - Selection (click, ctrl/cmd-click, shift-click, arrows, Space), drag to
///   reorder within an album (`move`), inline title edit (double-click or
///   Enter; `rename`), delete (Delete/Backspace or the button; `delete`)
///   and add (`add`), with ARIA roles (a multi-selectable listbox of
///   options) and a visible focus.
///
/// For tests, the page exposes `window.tessera`: `seq` (the state it
/// shows), `animating`, `connected`, `layout`, `selection` (item ids),
/// `elementFrames()` (every element in the DOM by key, as
/// `[x, y, width, height]` in content coordinates), `items()` (the item
/// cells in the DOM with their index paths, titles and frames), `plans`
/// (the last plans received: `fromSeq`, `seq`, `animated`) and `sent`
/// (the number of messages sent).
package enum LivePage {
    /// The page's HTML.
    package static let html: String = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera · live list</title>
<style>
:root { --accent: #2f6fdf; --line: #d9dce1; --ink: #1d2025; --muted: #6a707a; --bar: 48px; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 14px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f4f5f7; }
body { display: flex; flex-direction: column; }
.bar { height: var(--bar); flex: none; display: flex; align-items: center; gap: 12px; padding: 0 14px; background: #fff; border-bottom: 1px solid var(--line); }
.bar h1 { font-size: 16px; margin: 0 8px 0 0; font-weight: 600; }
.switch { display: inline-flex; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.switch button { border: 0; background: #fff; padding: 6px 12px; font: inherit; cursor: pointer; color: var(--ink); }
.switch button + button { border-left: 1px solid var(--line); }
.switch button[aria-checked="true"] { background: var(--accent); color: #fff; }
.bar .action { border: 1px solid var(--line); background: #fff; border-radius: 8px; padding: 6px 12px; font: inherit; cursor: pointer; }
.bar .action:disabled { opacity: .45; cursor: default; }
button:focus-visible, .switch button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
#status { margin-left: auto; color: var(--muted); font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#status.error { color: #b3261e; font-weight: 600; }
#status .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #aaa; margin-right: 6px; vertical-align: 1px; }
#status.live .dot { background: #2e9d5b; }
#scroller { flex: 1; overflow: auto; position: relative; outline: none; }
#scroller:focus-visible { box-shadow: inset 0 0 0 2px rgba(47,111,223,.35); }
#content { position: relative; margin: 0; }
.el { position: absolute; will-change: left, top; }
.cell { display: flex; flex-direction: column; gap: 4px; padding: 0; cursor: default; user-select: none; border-radius: 8px; }
.cell .thumb { flex: 1; min-height: 0; border-radius: 8px; background-image: linear-gradient(150deg, rgba(255,255,255,.38), rgba(255,255,255,0) 45%, rgba(0,0,0,.22)); box-shadow: inset 0 0 0 1px rgba(0,0,0,.08); }
.cell .title { flex: none; height: 22px; line-height: 22px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 0 2px; font-size: 13px; }
.cell .title input { width: 100%; font: inherit; padding: 0 4px; height: 22px; border: 1px solid var(--accent); border-radius: 4px; outline: none; }
.layout-list .cell { flex-direction: row; align-items: center; gap: 12px; padding: 0 12px; border-radius: 0; border-bottom: 1px solid #e6e8eb; background: #fff; }
.layout-list .cell .thumb { flex: none; width: 40px; height: 40px; }
.layout-list .cell .title { flex: 1; font-size: 14px; }
.layout-column .cell { padding: 6px; background: #fff; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.cell.selected .thumb { box-shadow: inset 0 0 0 1px rgba(0,0,0,.08), 0 0 0 3px var(--accent); }
.layout-list .cell.selected { background: #e4edfc; }
.layout-list .cell.selected .thumb { box-shadow: inset 0 0 0 1px rgba(0,0,0,.08); }
.cell.selected .title { color: var(--accent); font-weight: 600; }
#scroller:focus .cell.focused { outline: 2px dashed var(--ink); outline-offset: 3px; }
.cell.flying { box-shadow: 0 8px 22px rgba(0,0,0,.22); }
.cell.dragging { box-shadow: 0 12px 28px rgba(0,0,0,.3); opacity: .95; cursor: grabbing; }
.cell.shifting { transition: left .16s ease-in-out, top .16s ease-in-out, width .16s, height .16s; }
.header { display: flex; align-items: center; gap: 10px; padding: 0 12px; background: rgba(244,245,247,.94); backdrop-filter: blur(6px); border-bottom: 1px solid transparent; }
.header.pinned { border-bottom-color: var(--line); }
.header .name { font-weight: 650; font-size: 15px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.header .count { color: var(--muted); font-size: 12px; white-space: nowrap; }
.header .add { margin-left: auto; width: 28px; height: 28px; border-radius: 50%; border: 1px solid var(--line); background: #fff; font-size: 18px; line-height: 24px; cursor: pointer; padding: 0; color: var(--accent); }
.readonly .header .add, .readonly #delete { display: none; }
</style>
</head>
<body>
<header class="bar">
  <h1>Photos</h1>
  <div class="switch" role="radiogroup" aria-label="Layout">
    <button type="button" role="radio" data-layout="flow" aria-checked="true">Grid</button>
    <button type="button" role="radio" data-layout="list" aria-checked="false">List</button>
    <button type="button" role="radio" data-layout="column" aria-checked="false">Columns</button>
  </div>
  <button type="button" class="action" id="delete" disabled aria-keyshortcuts="Delete">Delete</button>
  <span id="status" role="status" aria-live="polite"><span class="dot"></span><span id="status-text">Connecting…</span></span>
</header>
<main id="scroller" role="listbox" aria-label="Photos" aria-multiselectable="true" tabindex="0">
  <div id="content" class="layout-flow"></div>
</main>
<script>
(() => {
"use strict";
const scroller = document.getElementById("scroller");
const content = document.getElementById("content");
const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const deleteButton = document.getElementById("delete");

// ---- state ----
let ws = null, connected = false, backoff = 250, reconnectTimer = null;
let seq = null, layout = "flow", editable = true, sections = [], contentSize = [0, 0];
const nodes = new Map();          // key -> DOM node (node._el: the element, node._cur: [x, y, w, h, alpha])
const selection = new Set();      // item ids
let anchorId = null, focusId = null;
let anim = null;                  // the animation playing
let drag = null;                  // the drag in progress
let queued = [];                  // messages held while dragging
let lastSent = "";                // the last viewport message's rectangle
let viewportsInFlight = 0;        // viewport messages whose elements reply has not come
let nextRequest = 1;
const pending = new Map();        // request -> what it asked
const insertedBySeq = new Map();  // seq -> [keys inserted by that plan]
let editing = null;               // { id, input, original }
let sentCount = 0, statusTimer = null, synthetic = null;
const plans = [];                 // the last plans received: { fromSeq, seq, animated }

const idOf = (key) => key.slice(2);
const isItem = (el) => el.kind === "item";

// ---- timing: the same curves as AnimationTiming.fraction(at:duration:) ----
function fraction(timing, p, duration, plan) {
  p = Math.min(Math.max(p, 0), 1);
  if (p >= 1) return 1;
  const name = typeof timing === "string" ? timing : (timing && Object.keys(timing)[0]) || "easeInOut";
  if (name === "linear") return p;
  if (name === "spring") {
    const spec = (typeof timing === "object" && timing.spring) || plan || {};
    const zeta = Math.max(spec.dampingRatio ?? 1, 0), response = spec.response ?? 0.3;
    if (!(response > 0) || !(duration > 0)) return p;
    const omega = 2 * Math.PI / response, t = p * duration;
    if (zeta < 1) {
      const damped = omega * Math.sqrt(1 - zeta * zeta);
      return 1 - Math.exp(-zeta * omega * t) * (Math.cos(damped * t) + zeta * omega / damped * Math.sin(damped * t));
    }
    if (zeta === 1) return 1 - Math.exp(-omega * t) * (1 + omega * t);
    const root = Math.sqrt(zeta * zeta - 1), r1 = -omega * (zeta - root), r2 = -omega * (zeta + root);
    return 1 - (r2 * Math.exp(r1 * t) - r1 * Math.exp(r2 * t)) / (r2 - r1);
  }
  return p < 0.5 ? 4 * p * p * p : 1 - Math.pow(-2 * p + 2, 3) / 2;
}

// ---- connection ----
function socketAddress() {
  const token = new URLSearchParams(location.search).get("token");
  // The socket is "live" under the page's own path (/live for a page at /).
  const base = location.pathname.replace(/\/+$/, "");
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "/live" + (token ? "?token=" + encodeURIComponent(token) : "");
}
function connect() {
  reconnectTimer = null;
  setStatus("Connecting…");
  let socket;
  try { socket = new WebSocket(socketAddress()); } catch (e) { scheduleReconnect(); return; }
  ws = socket;
  socket.onopen = () => {
    if (ws !== socket) return;
    connected = true; backoff = 250;
    const rect = wantedRect();
    lastSent = rect.join(",");
    send({ type: "hello", layout, viewport: rect, ids: false, resume: seq === null ? null : { seq } });
  };
  socket.onmessage = (event) => { if (ws === socket) receive(event.data); };
  socket.onclose = () => {
    if (ws !== socket) return;
    ws = null; connected = false;
    statusBox.classList.remove("live");
    scheduleReconnect();
  };
  socket.onerror = () => { try { socket.close(); } catch (e) {} };
}
function scheduleReconnect() {
  if (reconnectTimer) return;
  setStatus("Disconnected: reconnecting in " + (backoff / 1000).toFixed(backoff < 1000 ? 2 : 0) + " s");
  reconnectTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 8000);
}
function resync() { if (ws) { try { ws.close(); } catch (e) {} } }
function send(message) {
  if (!ws || ws.readyState !== 1) return false;
  ws.send(JSON.stringify(message)); sentCount++;
  return true;
}
function request(message) {
  message.request = nextRequest++;
  pending.set(message.request, message);
  send(message);
  return message.request;
}

// ---- status line ----
function setStatus(text) { if (!statusTimer) statusText.textContent = text; }
function showLive() {
  const n = selection.size;
  statusBox.classList.toggle("live", connected);
  setStatus((connected ? "Live" : "Offline") + (seq !== null ? " · change " + seq : "") + (n ? " · " + n + " selected" : ""));
}
function showError(text) {
  clearTimeout(statusTimer); statusTimer = null;
  statusText.textContent = text; statusBox.classList.add("error");
  statusTimer = setTimeout(() => { statusTimer = null; statusBox.classList.remove("error"); showLive(); }, 4000);
}

// ---- viewport ----
function wantedRect() {
  const w = Math.max(1, scroller.clientWidth), h = Math.max(1, scroller.clientHeight), top = scroller.scrollTop;
  // The window, and a window above and below it, within the area the
  // server answers (8192 × 8192): less margin on a very large window.
  const tall = Math.floor(8192 * 8192 / Math.round(w)) - 2;
  const margin = Math.max(0, Math.min(h, Math.floor((tall - h) / 2)));
  const y0 = Math.max(0, top - margin), y1 = Math.min(top + h + margin, y0 + tall);
  return [0, Math.round(y0), Math.round(w), Math.max(1, Math.floor(y1 - y0))];
}
function sendViewport(force, newLayout) {
  if (!connected || seq === null) return;
  const rect = wantedRect(), text = rect.join(",");
  if (!force && !newLayout && text === lastSent) return;
  lastSent = text;
  const message = { type: "viewport", viewport: rect };
  if (newLayout) message.layout = newLayout;
  viewportsInFlight += 1;
  send(message);
}
let frameScheduled = false;
function scheduleFrame() {
  if (frameScheduled) return;
  frameScheduled = true;
  requestAnimationFrame(() => { frameScheduled = false; updatePins(); if (!anim && !drag) sendViewport(false); });
}
scroller.addEventListener("scroll", scheduleFrame, { passive: true });
window.addEventListener("resize", scheduleFrame);

// ---- drawing ----
function setContentSize(size) {
  contentSize = size;
  content.style.width = size[0] + "px";
  content.style.height = size[1] + "px";
}
function makeNode(el) {
  const node = document.createElement("div");
  node.dataset.key = el.key;
  if (isItem(el)) {
    node.className = "el cell";
    node.id = "cell-" + idOf(el.key);
    node.setAttribute("role", "option");
    const thumb = document.createElement("div"); thumb.className = "thumb";
    const title = document.createElement("div"); title.className = "title";
    node.append(thumb, title);
  } else {
    node.className = "el header";
    node.setAttribute("role", "presentation");
    const name = document.createElement("span"); name.className = "name"; name.setAttribute("role", "heading"); name.setAttribute("aria-level", "2");
    const count = document.createElement("span"); count.className = "count";
    const add = document.createElement("button"); add.className = "add"; add.type = "button"; add.textContent = "+";
    add.addEventListener("pointerdown", (e) => e.stopPropagation());
    add.addEventListener("click", (e) => { e.stopPropagation(); addItem(node._el); });
    node.append(name, count, add);
  }
  content.appendChild(node);
  nodes.set(el.key, node);
  return node;
}
function updateNode(node, el) {
  node._el = el;
  node.dataset.section = el.section;
  if (isItem(el)) {
    node.dataset.item = el.item;
    node.dataset.id = idOf(el.key);
    const title = node.querySelector(".title");
    if (!(editing && editing.id === idOf(el.key))) title.textContent = el.title;
    node.title = el.title;
    node.querySelector(".thumb").style.backgroundColor = el.colour || "#9aa";
    const section = sections[el.section];
    if (section) { node.setAttribute("aria-setsize", section.count); node.setAttribute("aria-posinset", el.item + 1); }
    const selected = selection.has(idOf(el.key));
    node.classList.toggle("selected", selected);
    node.setAttribute("aria-selected", selected ? "true" : "false");
    node.classList.toggle("focused", focusId === idOf(el.key));
  } else {
    const section = sections[el.section];
    node.querySelector(".name").textContent = el.title;
    node.querySelector(".count").textContent = section ? section.count + (section.count === 1 ? " photo" : " photos") : "";
    node.querySelector(".add").setAttribute("aria-label", "Add a photo to " + el.title);
  }
}
function place(node, frame, alpha, z) {
  const s = node.style;
  s.left = frame[0] + "px"; s.top = frame[1] + "px"; s.width = frame[2] + "px"; s.height = frame[3] + "px";
  s.opacity = alpha >= 1 ? "" : String(Math.max(0, alpha));
  s.zIndex = String(z);
  node._cur = [frame[0], frame[1], frame[2], frame[3], alpha];
  node.dataset.frame = frame.join(",");
}
function restingZ(el) { return (isItem(el) ? 1 : 500) + (el.z || 0); }
function removeNode(key) {
  const node = nodes.get(key);
  if (!node) return;
  if (editing && node.dataset.id === editing.id) editing = null;
  node.remove(); nodes.delete(key);
}
/// Shows exactly `elements`, at rest.
function render(elements) {
  const keep = new Set(elements.map((el) => el.key));
  for (const key of [...nodes.keys()]) if (!keep.has(key)) removeNode(key);
  for (const el of elements) {
    const node = nodes.get(el.key) || makeNode(el);
    node.classList.remove("flying");
    updateNode(node, el);
    place(node, el.frame, 1, restingZ(el));
  }
  updatePins();
  updateActiveDescendant();
}

// ---- pinned headers ----
function updatePins() {
  const top = scroller.scrollTop, inset = layout === "flow" ? 8 : 0;
  const extent = new Map();
  let first = null;
  for (const node of nodes.values()) {
    const el = node._el, f = node._cur;
    if (!el || !isItem(el) || !f) continue;
    const e = extent.get(el.section) || { min: Infinity, max: -Infinity };
    e.min = Math.min(e.min, f[1]); e.max = Math.max(e.max, f[1] + f[3]);
    extent.set(el.section, e);
    if (f[1] + f[3] > top && (!first || el.section < first.section || (el.section === first.section && el.item < first.item))) first = el;
  }
  const headed = new Set();
  for (const node of nodes.values()) {
    const el = node._el;
    if (!el || isItem(el) || !node._cur) continue;
    headed.add(el.section);
    const y = node._cur[1], h = node._cur[3], e = extent.get(el.section);
    const bottom = e ? e.max + inset : y + h;
    const pinned = Math.max(y, Math.min(top, bottom - h));
    node.style.transform = pinned > y ? "translateY(" + (pinned - y) + "px)" : "";
    node.classList.toggle("pinned", pinned > y);
  }
  // The album scrolled under the top whose header is outside the rectangle:
  // a header drawn for it, pinned.
  const s = first ? first.section : null;
  if (s !== null && !headed.has(s) && sections[s] && (extent.get(s).min < top + 40)) {
    if (!synthetic) {
      synthetic = document.createElement("div");
      synthetic.className = "el header pinned";
      synthetic.setAttribute("role", "presentation");
      synthetic.innerHTML = '<span class="name" role="heading" aria-level="2"></span><span class="count"></span><button type="button" class="add">+</button>';
      synthetic.querySelector(".add").addEventListener("click", (e) => { e.stopPropagation(); addItem(synthetic._el); });
      synthetic.querySelector(".add").addEventListener("pointerdown", (e) => e.stopPropagation());
      content.appendChild(synthetic);
    }
    const section = sections[s], h = 40, bottom = extent.get(s).max + inset;
    synthetic._el = { kind: "header", section: s, title: String(section.id) };
    synthetic.querySelector(".name").textContent = section.id;
    synthetic.querySelector(".count").textContent = section.count + (section.count === 1 ? " photo" : " photos");
    synthetic.querySelector(".add").setAttribute("aria-label", "Add a photo to " + section.id);
    const st = synthetic.style;
    st.left = "0px"; st.width = contentSize[0] + "px"; st.height = h + "px"; st.zIndex = "600";
    st.top = Math.min(top, bottom - h) + "px";
    synthetic.hidden = false;
  } else if (synthetic) {
    synthetic.hidden = true;
  }
}

// ---- messages ----
function receive(text) {
  let message;
  try { message = JSON.parse(text); } catch (e) { showError("The server sent something that is not JSON"); return; }
  if (drag && (message.type === "plan" || message.type === "elements")) { queued.push(message); return; }
  handle(message);
}
function handle(message) {
  switch (message.type) {
  case "snapshot":
    viewportsInFlight = 0;
    finishAnimation();
    seq = message.seq; sections = message.sections || []; editable = message.editable !== false;
    document.body.classList.toggle("readonly", !editable);
    setContentSize(message.contentSize);
    render(message.elements || []);
    showLive();
    sendViewport(false);
    break;
  case "elements":
    viewportsInFlight = Math.max(0, viewportsInFlight - 1);
    // A reply to a viewport sent before a layout switch is in the old
    // layout: the switch's own reply follows it.
    if (layoutSwitching && layoutSwitching.skip > 0) { layoutSwitching.skip -= 1; break; }
    if (message.seq !== seq) break;
    if (anim) { anim.settled = message.elements; anim.sizeAfter = message.contentSize; break; }
    if (layoutSwitching) { const anchor = layoutSwitching; layoutSwitching = null; morphTo(message.elements, message.contentSize, anchor); break; }
    setContentSize(message.contentSize);
    render(message.elements);
    break;
  case "plan":
    if (message.fromSeq !== seq) { showError("Out of step (" + seq + " → " + message.fromSeq + "): resynchronizing"); resync(); break; }
    play(message);
    break;
  case "done": {
    const asked = pending.get(message.request);
    pending.delete(message.request);
    if (asked && asked.type === "add") editAdded(asked, message.seq);
    break;
  }
  case "error": {
    pending.delete(message.request);
    // An error with no request may answer a viewport message.
    if (message.request === undefined) viewportsInFlight = Math.max(0, viewportsInFlight - 1);
    // A delete naming photos that are gone (deleted where this page did
    // not show them): they leave the selection, so that Delete again
    // deletes the rest.
    if (message.code === "notFound" && Array.isArray(message.ids)) {
      for (const gone of message.ids) { const id = String(gone); selection.delete(id); if (focusId === id) focusId = null; if (anchorId === id) anchorId = null; }
      updateSelectionUI();
    }
    showError(message.message || message.code || "error");
    if (message.request !== undefined) sendViewport(true);
    break;
  }
  }
}

// ---- animation ----
function play(plan, local) {
  seq = plan.seq;
  if (!local) { plans.push({ fromSeq: plan.fromSeq, seq: plan.seq, animated: plan.animated !== false }); if (plans.length > 100) plans.shift(); }
  if (plan.sections) sections = plan.sections;
  // Nothing this page shows changed (items elsewhere were edited): keep
  // what is on screen, and any animation under way.
  if (plan.unchanged) { showLive(); return; }
  const inserted = [];
  for (const pe of local ? [] : plan.elements || []) {
    const d = pe.disposition || "";
    if (isItem(pe) && d.startsWith("delete")) { const id = idOf(pe.key); selection.delete(id); if (focusId === id) focusId = null; if (anchorId === id) anchorId = null; }
    if (isItem(pe) && d.startsWith("insert")) inserted.push(pe.key);
  }
  if (!local) insertedBySeq.set(plan.seq, inserted);
  if (insertedBySeq.size > 64) insertedBySeq.delete(insertedBySeq.keys().next().value);
  let dy = (plan.contentOffsetAfter ? plan.contentOffsetAfter[1] : 0) - (plan.contentOffsetBefore ? plan.contentOffsetBefore[1] : 0);
  // The server never moves the viewport (its offsets are the origin of the
  // rectangle this page sent): the page keeps its own scrolling within the
  // content, as the browser does, and moves it with the animation, so that
  // content shrinking under a screen at the end brings the screen up with
  // the plan rather than at its end.
  const scrollNow = anim ? anim.scrollTo : scroller.scrollTop;
  if (plan.contentSizeAfter) {
    const limit = Math.max(0, plan.contentSizeAfter[1] - scroller.clientHeight);
    dy = Math.max(-scrollNow, Math.min(dy, limit - scrollNow));
  }
  const interrupting = anim !== null;
  let scrollFrom = scroller.scrollTop, scrollBase = scrollFrom;
  if (interrupting) { scrollBase = anim.scrollTo; cancelAnimationFrame(anim.frame); anim = null; }
  if (!plan.animated || !(plan.duration > 0) || document.hidden) {
    setContentSize(plan.contentSizeAfter);
    if (dy) scroller.scrollTop = scrollBase + dy;
    render(plan.settled || []);
    updateSelectionUI();
    showLive();
    sendViewport(false);
    return;
  }
  setContentSize([Math.max(plan.contentSizeBefore[0], plan.contentSizeAfter[0], contentSize[0]), Math.max(plan.contentSizeBefore[1], plan.contentSizeAfter[1], contentSize[1])]);
  const tracks = [];
  const inPlan = new Set();
  for (const pe of plan.elements || []) {
    inPlan.add(pe.key);
    const existing = nodes.get(pe.key);
    const node = existing || makeNode(pe);
    updateNode(node, pe);
    const fromAlpha = pe.fromAlpha ?? 1, toAlpha = pe.toAlpha ?? 1;
    const start = interrupting && existing && existing._cur ? existing._cur.slice() : pe.from.concat([fromAlpha]);
    const d = pe.disposition || "";
    const moving = d.startsWith("move");
    const z = (isItem(pe) ? (moving ? 700 : d.startsWith("insert") || d.startsWith("delete") ? 100 : 1) : 500) + Math.max(pe.fromZ ?? 0, pe.toZ ?? pe.z ?? 0);
    node.classList.toggle("flying", moving);
    tracks.push({ node, from: start, to: pe.frame.concat([toAlpha]), z });
    place(node, start.slice(0, 4), start[4], z);
  }
  anim = {
    start: performance.now(), duration: plan.duration * 1000, timing: plan.timing, plan, tracks,
    scrollFrom, scrollTo: scrollBase + dy, settled: plan.settled || [], sizeAfter: plan.contentSizeAfter, frame: 0
  };
  anim.frame = requestAnimationFrame(step);
  updateSelectionUI();
  showLive();
}
function step() {
  if (!anim) return;
  const now = performance.now();
  const p = Math.min(1, Math.max(0, (now - anim.start) / anim.duration));
  const f = fraction(anim.timing, p, anim.duration / 1000, anim.plan);
  for (const t of anim.tracks) {
    const frame = [0, 1, 2, 3].map((i) => t.from[i] + (t.to[i] - t.from[i]) * f);
    place(t.node, frame, t.from[4] + (t.to[4] - t.from[4]) * f, t.z);
  }
  if (anim.scrollTo !== anim.scrollFrom) scroller.scrollTop = anim.scrollFrom + (anim.scrollTo - anim.scrollFrom) * f;
  updatePins();
  if (p >= 1) { finishAnimation(); return; }
  anim.frame = requestAnimationFrame(step);
}
function finishAnimation(asksForViewport = true) {
  if (!anim) return;
  const done = anim;
  anim = null;
  cancelAnimationFrame(done.frame);
  if (done.scrollTo !== done.scrollFrom) scroller.scrollTop = done.scrollTo;
  setContentSize(done.sizeAfter);
  render(done.settled);
  updateSelectionUI();
  if (asksForViewport) sendViewport(false);
}
/// A layout switch: every element the two layouts share goes from where it
/// is to where the new layout puts it (0.3 s, ease-in-out); the others fade.
let layoutSwitching = null;
/// The item at the top of the screen keeps its place on screen when it is
/// among the new elements; otherwise the scroll position keeps its
/// proportion of the content's height.
function morphTo(elements, size, anchor) {
  const top = scroller.scrollTop, height = scroller.clientHeight;
  const found = anchor && elements.find((el) => el.key === "i:" + anchor.id);
  let target = found ? found.frame[1] - anchor.offset : contentSize[1] > 0 ? top * size[1] / contentSize[1] : 0;
  target = Math.round(Math.max(0, Math.min(target, size[1] - height)));
  const delta = target - top;
  const shifted = (f) => [f[0], f[1] + delta, f[2], f[3]];
  const elementsPlan = [];
  const next = new Set(elements.map((el) => el.key));
  for (const el of elements) {
    const node = nodes.get(el.key);
    const from = node && node._cur ? shifted(node._cur) : el.frame;
    elementsPlan.push(Object.assign({}, el, { from, fromAlpha: node ? 1 : 0, toAlpha: 1, disposition: node ? "shift" : "insert" }));
  }
  for (const [key, node] of nodes) {
    if (next.has(key) || !node._cur) continue;
    elementsPlan.push(Object.assign({}, node._el, { from: shifted(node._cur), frame: shifted(node._cur), fromAlpha: 1, toAlpha: 0, disposition: "delete" }));
  }
  setContentSize([Math.max(size[0], contentSize[0]), Math.max(size[1], contentSize[1], target + height)]);
  scroller.scrollTop = target;
  play({ type: "plan", fromSeq: seq, seq, animated: true, duration: 0.3, timing: "easeInOut", contentSizeBefore: contentSize, contentSizeAfter: size,
         contentOffsetBefore: [0, 0], contentOffsetAfter: [0, 0], elements: elementsPlan, settled: elements, sections }, true);
}

// ---- selection and focus ----
function itemNodes() {
  const list = [];
  for (const node of nodes.values()) if (node._el && isItem(node._el)) list.push(node);
  list.sort((a, b) => a._el.section - b._el.section || a._el.item - b._el.item);
  return list;
}
function updateSelectionUI() {
  for (const node of nodes.values()) {
    if (!node._el || !isItem(node._el)) continue;
    const id = node.dataset.id, selected = selection.has(id);
    node.classList.toggle("selected", selected);
    node.setAttribute("aria-selected", selected ? "true" : "false");
    node.classList.toggle("focused", focusId === id);
  }
  deleteButton.disabled = selection.size === 0 || !editable;
  updateActiveDescendant();
  showLive();
}
function updateActiveDescendant() {
  if (focusId && nodes.has("i:" + focusId)) scroller.setAttribute("aria-activedescendant", "cell-" + focusId);
  else scroller.removeAttribute("aria-activedescendant");
}
function select(id, mode) {
  if (mode === "toggle") {
    if (selection.has(id)) selection.delete(id); else selection.add(id);
    anchorId = id;
  } else if (mode === "extend" && anchorId !== null && nodes.has("i:" + anchorId)) {
    const list = itemNodes().map((n) => n.dataset.id);
    const a = list.indexOf(anchorId), b = list.indexOf(id);
    selection.clear();
    for (let i = Math.min(a, b); i <= Math.max(a, b); i++) selection.add(list[i]);
  } else if (mode !== "focus") {
    selection.clear(); selection.add(id); anchorId = id;
  }
  focusId = id;
  updateSelectionUI();
}
function scrollIntoView(id) {
  const node = nodes.get("i:" + id);
  if (!node || !node._cur) return;
  const y = node._cur[1], h = node._cur[3], top = scroller.scrollTop, height = scroller.clientHeight, pinned = 48;
  if (y - pinned < top) scroller.scrollTop = Math.max(0, y - pinned);
  else if (y + h > top + height) scroller.scrollTop = y + h - height + 8;
}
function neighbour(id, key) {
  const list = itemNodes();
  if (!list.length) return null;
  const index = list.findIndex((n) => n.dataset.id === id);
  if (index < 0) return list[0].dataset.id;
  if (key === "ArrowLeft") return list[Math.max(0, index - 1)].dataset.id;
  if (key === "ArrowRight") return list[Math.min(list.length - 1, index + 1)].dataset.id;
  const f = list[index]._cur, cx = f[0] + f[2] / 2, cy = f[1] + f[3] / 2;
  let best = null, bestScore = Infinity;
  for (const n of list) {
    const g = n._cur, gx = g[0] + g[2] / 2, gy = g[1] + g[3] / 2;
    const dy = key === "ArrowDown" ? gy - cy : cy - gy;
    if (dy < 1) continue;
    const score = dy * 4 + Math.abs(gx - cx);
    if (score < bestScore) { bestScore = score; best = n.dataset.id; }
  }
  return best || id;
}

// ---- edits ----
function deleteSelection() {
  if (!editable || !selection.size) return;
  request({ type: "delete", ids: [...selection] });
}
function addItem(header) {
  if (!editable || !header) return;
  const section = sections[header.section];
  request({ type: "add", section: section ? section.id : header.title, title: "New photo" });
}
function editAdded(asked, doneSeq) {
  for (const key of insertedBySeq.get(doneSeq) || []) {
    const node = nodes.get(key);
    if (node && node._el && node._el.title === asked.title && String((sections[node._el.section] || {}).id) === String(asked.section)) {
      const id = idOf(key);
      select(id, "single");
      scrollIntoView(id);
      startEdit(id);
      return;
    }
  }
}
function startEdit(id) {
  if (!editable) return;
  const node = nodes.get("i:" + id);
  if (!node) return;
  if (editing) endEdit(false);
  const title = node.querySelector(".title");
  const input = document.createElement("input");
  input.type = "text"; input.value = node._el.title; input.maxLength = 200; input.setAttribute("aria-label", "Title");
  title.textContent = ""; title.appendChild(input);
  editing = { id, input, original: node._el.title };
  input.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (e.key === "Enter") { e.preventDefault(); endEdit(true); }
    else if (e.key === "Escape") { e.preventDefault(); endEdit(false); }
  });
  input.addEventListener("blur", () => { if (editing && editing.input === input) endEdit(true); });
  input.addEventListener("pointerdown", (e) => e.stopPropagation());
  input.focus(); input.select();
}
function endEdit(save) {
  if (!editing) return;
  const { id, input, original } = editing;
  editing = null;
  const value = input.value.trim();
  const node = nodes.get("i:" + id);
  const shown = save && value && value !== original ? value : original;
  if (node) { node._el.title = shown; node.title = shown; node.querySelector(".title").textContent = shown; }
  if (save && value && value !== original) request({ type: "rename", id, title: value });
  scroller.focus({ preventScroll: true });
}

// ---- pointer: click, shift/ctrl-click, drag to reorder ----
content.addEventListener("pointerdown", (e) => {
  if (e.button !== 0) return;
  const node = e.target.closest(".cell");
  if (!node || editing && node.dataset.id === editing.id) return;
  const r = content.getBoundingClientRect();
  drag = { node, id: node.dataset.id, x0: e.clientX - r.left, y0: e.clientY - r.top, clientX: e.clientX, clientY: e.clientY, started: false, pointer: e.pointerId,
           mods: { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey }, target: null, slots: null, origin: null, others: null };
  node.setPointerCapture(e.pointerId);
});
content.addEventListener("pointermove", (e) => {
  if (!drag || e.pointerId !== drag.pointer) return;
  drag.clientX = e.clientX; drag.clientY = e.clientY;
  if (!drag.started) {
    const r = content.getBoundingClientRect();
    if (Math.hypot(e.clientX - r.left - drag.x0, e.clientY - r.top - drag.y0) < 5 || !editable || drag.mods.shift || drag.mods.toggle || anim) return;
    beginDrag();
    requestAnimationFrame(autoScroll);
  }
  followPointer();
});
/// The dragged cell under the pointer, and the others out of its way.
function followPointer() {
  const r = content.getBoundingClientRect();
  const x = drag.clientX - r.left, y = drag.clientY - r.top;
  const o = drag.origin;
  place(drag.node, [o[0] + x - drag.x0, o[1] + y - drag.y0, o[2], o[3]], 1, 900);
  let best = 0, bestDistance = Infinity;
  drag.slots.forEach((slot, i) => {
    const f = slot.frame, d = Math.hypot(f[0] + f[2] / 2 - x, f[1] + f[3] / 2 - y);
    if (d < bestDistance) { bestDistance = d; best = i; }
  });
  if (best !== drag.target) { drag.target = best; layoutDrag(); }
}
/// Near the top or bottom edge, a drag scrolls the list, as far as the
/// album's cells in the DOM go.
function autoScroll() {
  if (!drag || !drag.started) return;
  const box = scroller.getBoundingClientRect(), edge = 48;
  const speed = drag.clientY < box.top + edge ? -(box.top + edge - drag.clientY) / 3 : drag.clientY > box.bottom - edge ? (drag.clientY - box.bottom + edge) / 3 : 0;
  if (speed) {
    const first = drag.slots[0].frame, last = drag.slots[drag.slots.length - 1].frame;
    const low = Math.max(0, first[1] - edge), high = Math.max(low, last[1] + last[3] + edge - scroller.clientHeight);
    const top = scroller.scrollTop;
    const next = speed > 0 ? Math.min(top + speed, Math.max(top, high)) : Math.max(top + speed, Math.min(top, low));
    if (Math.abs(next - scroller.scrollTop) >= 0.5) { scroller.scrollTop = next; followPointer(); }
  }
  requestAnimationFrame(autoScroll);
}
function beginDrag() {
  const el = drag.node._el;
  drag.started = true;
  drag.origin = drag.node._cur.slice(0, 4);
  drag.node.classList.add("dragging");
  // The album's cells in the DOM, in index order: the slots a drop can take.
  const same = itemNodes().filter((n) => n._el.section === el.section);
  drag.slots = same.map((n) => ({ index: n._el.item, frame: n._cur.slice(0, 4) }));
  drag.others = same.filter((n) => n !== drag.node);
  drag.from = same.indexOf(drag.node);
  drag.target = drag.from;
  if (!selection.has(drag.id)) select(drag.id, "single");
}
function layoutDrag() {
  // Every other cell takes the slot of its index once the dragged one is
  // taken out and put in at the target.
  drag.others.forEach((n, i) => {
    const slot = i < drag.target ? i : i + 1;
    n.classList.add("shifting");
    place(n, drag.slots[slot].frame, 1, restingZ(n._el));
  });
}
content.addEventListener("pointerup", endPointer);
content.addEventListener("pointercancel", (e) => endPointer(e, true));
function endPointer(e, cancelled) {
  if (!drag || e.pointerId !== drag.pointer) return;
  const d = drag;
  drag = null;
  if (!d.started) {
    if (!cancelled) select(d.id, d.mods.shift ? "extend" : d.mods.toggle ? "toggle" : "single");
    scroller.focus({ preventScroll: true });
    flushQueued();
    return;
  }
  d.node.classList.remove("dragging");
  const to = d.slots[cancelled ? d.from : d.target];
  const moved = !cancelled && d.target !== d.from;
  // The dropped cell goes to its slot at once; the others are already there.
  d.node.classList.add("shifting");
  place(d.node, to.frame, 1, restingZ(d.node._el));
  const order = d.others.slice();
  order.splice(cancelled ? d.from : d.target, 0, d.node);
  order.forEach((n, i) => { n._el.item = d.slots[i].index; n.dataset.item = d.slots[i].index; if (!moved) place(n, d.slots[i].frame, 1, restingZ(n._el)); });
  setTimeout(() => order.forEach((n) => n.classList.remove("shifting")), 200);
  if (moved) request({ type: "move", id: d.id, to: to.index });
  scroller.focus({ preventScroll: true });
  flushQueued();
}
function flushQueued() {
  const messages = queued;
  queued = [];
  for (const m of messages) handle(m);
  if (!anim) sendViewport(false);
}
content.addEventListener("dblclick", (e) => {
  const node = e.target.closest(".cell");
  if (node) startEdit(node.dataset.id);
});
scroller.addEventListener("pointerdown", (e) => {
  if (e.target === scroller || e.target === content) { selection.clear(); anchorId = null; updateSelectionUI(); scroller.focus({ preventScroll: true }); }
});

// ---- keyboard ----
scroller.addEventListener("keydown", (e) => {
  if (editing) return;
  const key = e.key;
  if (key.startsWith("Arrow")) {
    e.preventDefault();
    const next = focusId === null ? (itemNodes()[0] || {dataset: {}}).dataset.id : neighbour(focusId, key);
    if (next === undefined || next === null) return;
    select(next, e.shiftKey ? "extend" : (e.ctrlKey || e.metaKey) ? "focus" : "single");
    scrollIntoView(next);
  } else if (key === " ") {
    e.preventDefault();
    if (focusId !== null) select(focusId, "toggle");
  } else if (key === "Enter") {
    e.preventDefault();
    if (focusId !== null) startEdit(focusId);
  } else if (key === "Delete" || key === "Backspace") {
    e.preventDefault();
    deleteSelection();
  } else if (key === "Escape") {
    selection.clear(); updateSelectionUI();
  } else if ((key === "a" || key === "A") && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    for (const n of itemNodes()) selection.add(n.dataset.id);
    updateSelectionUI();
  }
});
deleteButton.addEventListener("click", deleteSelection);
for (const button of document.querySelectorAll(".switch button")) {
  button.addEventListener("click", () => switchLayout(button.dataset.layout));
}
function switchLayout(name) {
  if (name === layout) return;
  layout = name;
  content.className = "layout-" + name;
  for (const b of document.querySelectorAll(".switch button")) b.setAttribute("aria-checked", b.dataset.layout === name ? "true" : "false");
  // The animation under way ends where it was going, and the switch's own
  // viewport message asks for the rectangle (one in the old layout would
  // be answered first, and taken for the switch's).
  finishAnimation(false);
  const top = scroller.scrollTop;
  const first = itemNodes().find((n) => n._cur[1] + n._cur[3] > top + 40);
  layoutSwitching = first ? { id: first.dataset.id, offset: first._cur[1] - top, skip: viewportsInFlight } : { skip: viewportsInFlight };
  sendViewport(true, name);
}

// ---- the test hook ----
window.tessera = {
  get seq() { return seq; },
  get animating() { return anim !== null || drag !== null || queued.length > 0; },
  get connected() { return connected; },
  get layout() { return layout; },
  get selection() { return [...selection].sort(); },
  get sent() { return sentCount; },
  get plans() { return plans.slice(); },
  elementFrames() {
    const out = {};
    for (const [key, node] of nodes) if (node._cur) out[key] = node._cur.slice(0, 4);
    return out;
  },
  items() {
    return itemNodes().map((n) => ({ id: n.dataset.id, section: n._el.section, item: n._el.item, title: n._el.title, frame: n._cur.slice(0, 4), selected: selection.has(n.dataset.id) }));
  },
  switchLayout,
};

connect();
})();
</script>
</body>
</html>
"""#
}
