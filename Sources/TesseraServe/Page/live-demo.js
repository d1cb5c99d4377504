/*
 * live-demo.js: the live list's own page (live.html) on top of the player
 * module (tessera-live.js): album headers pinned while their album scrolls
 * under them, photo cells, the layout switch, selection (click,
 * ctrl/cmd-click, shift-click, arrows, Space), drag to reorder within an
 * album, inline title edit, delete and add, and the status line. It speaks
 * to the server only through TesseraLive: a Connection for the messages, a
 * Player for drawing and playing plans.
 *
 * After a dropped connection it says `hello` naming the state it shows
 * (`resume`: its `seq` and `state`), on whichever server answers: one that
 * kept that state sends one plan from it (`resumed`), any other a snapshot.
 *
 * For tests, it exposes `window.tessera`: `seq` (the state it shows),
 * `state` (that state's fingerprint),
 * `animating`, `connected`, `layout`, `selection` (item ids),
 * `elementFrames()` (every element in the DOM by key, as [x, y, width,
 * height] in content coordinates), `items()` (the item cells in the DOM
 * with their index paths, titles and frames), `plans` (the last plans
 * received: fromSeq, seq, animated), `sent` (the number of messages sent)
 * and `switchLayout(name)`.
 */
(() => {
"use strict";
const scroller = document.getElementById("scroller");
const content = document.getElementById("content");
const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const deleteButton = document.getElementById("delete");

// ---- state ----
let seq = null, state = null, layout = "flow", editable = true, sections = [];
const selection = new Set();      // item ids
let anchorId = null, focusId = null;
let drag = null;                  // the drag in progress
let queued = [];                  // messages held while dragging
let lastSent = "";                // the last viewport message's rectangle
let viewportsInFlight = 0;        // viewport messages whose elements reply has not come
const adds = new Map();           // request -> the add it asked for
const insertedBySeq = new Map();  // seq -> [keys inserted by that plan]
let editing = null;               // { id, input, original }
let statusTimer = null, synthetic = null;
const plans = [];                 // the last plans received: { fromSeq, seq, animated }

const idOf = (key) => key.slice(2);
const isItem = (el) => el.kind === "item";

// ---- connection ----
const connection = new TesseraLive.Connection({
  hello() {
    const rect = TesseraLive.viewportFor(scroller);
    lastSent = rect.join(",");
    return { layout, viewport: rect, ids: false, resume: seq === null ? null : state === null ? { seq } : { seq, state } };
  },
  onMessage: receive,
  // Messages held during a drag came on the connection that closed: the
  // hello names the state shown without them, and its answer covers them.
  onOpen() { queued = []; },
  onConnecting() { setStatus("Connecting…"); },
  onClose(wait) {
    statusBox.classList.remove("live");
    setStatus("Disconnected: reconnecting in " + (wait / 1000).toFixed(wait < 1000 ? 2 : 0) + " s");
  },
  onInvalid() { showError("The server sent something that is not JSON"); },
});

// ---- status line ----
function setStatus(text) { if (!statusTimer) statusText.textContent = text; }
function showLive() {
  const n = selection.size;
  statusBox.classList.toggle("live", connection.connected);
  setStatus((connection.connected ? "Live" : "Offline") + (seq !== null ? " · change " + seq : "") + (n ? " · " + n + " selected" : ""));
}
function showError(text) {
  clearTimeout(statusTimer); statusTimer = null;
  statusText.textContent = text; statusBox.classList.add("error");
  statusTimer = setTimeout(() => { statusTimer = null; statusBox.classList.remove("error"); showLive(); }, 4000);
}

// ---- viewport ----
function sendViewport(force, newLayout) {
  if (!connection.connected || seq === null) return;
  const rect = TesseraLive.viewportFor(scroller), text = rect.join(",");
  if (!force && !newLayout && text === lastSent) return;
  lastSent = text;
  viewportsInFlight += 1;
  connection.viewport(rect, newLayout);
}
let frameScheduled = false;
function scheduleFrame() {
  if (frameScheduled) return;
  frameScheduled = true;
  requestAnimationFrame(() => { frameScheduled = false; updatePins(); if (!player.animating && !drag) sendViewport(false); });
}
scroller.addEventListener("scroll", scheduleFrame, { passive: true });
window.addEventListener("resize", scheduleFrame);

// ---- drawing ----
const player = new TesseraLive.Player({
  scroller, content,
  create: makeNode, update: updateNode,
  remove(node) { if (editing && node.dataset.id === editing.id) editing = null; },
  drawn() { updatePins(); updateActiveDescendant(); },
  finished(asksForViewport) { updateSelectionUI(); if (asksForViewport) sendViewport(false); },
});
function makeNode(el) {
  const node = document.createElement("div");
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
  return node;
}
function updateNode(node, el) {
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

// ---- messages ----
function receive(message) {
  if (drag && (message.type === "plan" || message.type === "elements")) { queued.push(message); return; }
  handle(message);
}
function handle(message) {
  switch (message.type) {
  case "snapshot":
    viewportsInFlight = 0;
    player.finish();
    seq = message.seq; state = message.state || null; sections = message.sections || []; editable = message.editable !== false;
    insertedBySeq.clear();
    document.body.classList.toggle("readonly", !editable);
    player.setContentSize(message.contentSize);
    player.render(message.elements || []);
    showLive();
    sendViewport(false);
    break;
  case "elements":
    viewportsInFlight = Math.max(0, viewportsInFlight - 1);
    // A reply to a viewport sent before a layout switch is in the old
    // layout: the switch's own reply follows it.
    if (layoutSwitching && layoutSwitching.skip > 0) { layoutSwitching.skip -= 1; break; }
    if (message.seq !== seq) break;
    if (player.animating) { player.retarget(message.elements, message.contentSize); break; }
    if (layoutSwitching) { const anchor = layoutSwitching; layoutSwitching = null; morphTo(message.elements, message.contentSize, anchor); break; }
    player.setContentSize(message.contentSize);
    player.render(message.elements);
    break;
  case "plan":
    // Out of step: the next hello names no state, and gets a snapshot.
    if (message.fromSeq !== seq) { showError("Out of step (" + seq + " → " + message.fromSeq + "): resynchronizing"); state = null; connection.resync(); break; }
    if (message.resumed) {
      // The answer to a hello that named this page's state, maybe from
      // another server: the plan from it, with what this connection may do.
      viewportsInFlight = 0;
      insertedBySeq.clear();
      editable = message.editable !== false;
      document.body.classList.toggle("readonly", !editable);
    }
    play(message);
    break;
  case "done": {
    const asked = adds.get(message.request);
    adds.delete(message.request);
    if (asked) editAdded(asked, message.seq);
    break;
  }
  case "error": {
    adds.delete(message.request);
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

// ---- playing plans ----
function play(plan, local) {
  seq = plan.seq;
  if (!local) state = plan.state || null;
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
  const animating = player.play(plan);
  updateSelectionUI();
  showLive();
  if (!animating) sendViewport(false);
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
  let target = found ? found.frame[1] - anchor.offset : player.contentSize[1] > 0 ? top * size[1] / player.contentSize[1] : 0;
  target = Math.round(Math.max(0, Math.min(target, size[1] - height)));
  const delta = target - top;
  const shifted = (f) => [f[0], f[1] + delta, f[2], f[3]];
  const elementsPlan = [];
  const next = new Set(elements.map((el) => el.key));
  for (const el of elements) {
    const node = player.nodes.get(el.key);
    const from = node && node._cur ? shifted(node._cur) : el.frame;
    elementsPlan.push(Object.assign({}, el, { from, fromAlpha: node ? 1 : 0, toAlpha: 1, disposition: node ? "shift" : "insert" }));
  }
  for (const [key, node] of player.nodes) {
    if (next.has(key) || !node._cur) continue;
    elementsPlan.push(Object.assign({}, node._el, { from: shifted(node._cur), frame: shifted(node._cur), fromAlpha: 1, toAlpha: 0, disposition: "delete" }));
  }
  player.setContentSize([Math.max(size[0], player.contentSize[0]), Math.max(size[1], player.contentSize[1], target + height)]);
  scroller.scrollTop = target;
  play({ type: "plan", fromSeq: seq, seq, animated: true, duration: 0.3, timing: "easeInOut", contentSizeBefore: player.contentSize, contentSizeAfter: size,
         contentOffsetBefore: [0, 0], contentOffsetAfter: [0, 0], elements: elementsPlan, settled: elements, sections }, true);
}

// ---- pinned headers ----
function updatePins() {
  const top = scroller.scrollTop, inset = layout === "flow" ? 8 : 0;
  const extent = new Map();
  let first = null;
  for (const node of player.nodes.values()) {
    const el = node._el, f = node._cur;
    if (!el || !isItem(el) || !f) continue;
    const e = extent.get(el.section) || { min: Infinity, max: -Infinity };
    e.min = Math.min(e.min, f[1]); e.max = Math.max(e.max, f[1] + f[3]);
    extent.set(el.section, e);
    if (f[1] + f[3] > top && (!first || el.section < first.section || (el.section === first.section && el.item < first.item))) first = el;
  }
  const headed = new Set();
  for (const node of player.nodes.values()) {
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
    st.left = "0px"; st.width = player.contentSize[0] + "px"; st.height = h + "px"; st.zIndex = "600";
    st.top = Math.min(top, bottom - h) + "px";
    synthetic.hidden = false;
  } else if (synthetic) {
    synthetic.hidden = true;
  }
}

// ---- selection and focus ----
function itemNodes() {
  const list = [];
  for (const node of player.nodes.values()) if (node._el && isItem(node._el)) list.push(node);
  list.sort((a, b) => a._el.section - b._el.section || a._el.item - b._el.item);
  return list;
}
function updateSelectionUI() {
  for (const node of player.nodes.values()) {
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
  if (focusId && player.nodes.has("i:" + focusId)) scroller.setAttribute("aria-activedescendant", "cell-" + focusId);
  else scroller.removeAttribute("aria-activedescendant");
}
function select(id, mode) {
  if (mode === "toggle") {
    if (selection.has(id)) selection.delete(id); else selection.add(id);
    anchorId = id;
  } else if (mode === "extend" && anchorId !== null && player.nodes.has("i:" + anchorId)) {
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
  const node = player.nodes.get("i:" + id);
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
  connection.delete([...selection]);
}
function addItem(header) {
  if (!editable || !header) return;
  const section = sections[header.section];
  const asked = { section: section ? section.id : header.title, title: "New photo" };
  adds.set(connection.add(asked.section, asked.title), asked);
}
function editAdded(asked, doneSeq) {
  for (const key of insertedBySeq.get(doneSeq) || []) {
    const node = player.nodes.get(key);
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
  const node = player.nodes.get("i:" + id);
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
  const node = player.nodes.get("i:" + id);
  const shown = save && value && value !== original ? value : original;
  if (node) { node._el.title = shown; node.title = shown; node.querySelector(".title").textContent = shown; }
  if (save && value && value !== original) connection.rename(id, value);
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
    if (Math.hypot(e.clientX - r.left - drag.x0, e.clientY - r.top - drag.y0) < 5 || !editable || drag.mods.shift || drag.mods.toggle || player.animating) return;
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
  player.place(drag.node, [o[0] + x - drag.x0, o[1] + y - drag.y0, o[2], o[3]], 1, 900);
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
    player.place(n, drag.slots[slot].frame, 1, player.restingZ(n._el));
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
  player.place(d.node, to.frame, 1, player.restingZ(d.node._el));
  const order = d.others.slice();
  order.splice(cancelled ? d.from : d.target, 0, d.node);
  order.forEach((n, i) => { n._el.item = d.slots[i].index; n.dataset.item = d.slots[i].index; if (!moved) player.place(n, d.slots[i].frame, 1, player.restingZ(n._el)); });
  setTimeout(() => order.forEach((n) => n.classList.remove("shifting")), 200);
  if (moved) connection.move(d.id, to.index);
  scroller.focus({ preventScroll: true });
  flushQueued();
}
function flushQueued() {
  const messages = queued;
  queued = [];
  for (const m of messages) handle(m);
  if (!player.animating) sendViewport(false);
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
  player.finish(false);
  const top = scroller.scrollTop;
  const first = itemNodes().find((n) => n._cur[1] + n._cur[3] > top + 40);
  layoutSwitching = first ? { id: first.dataset.id, offset: first._cur[1] - top, skip: viewportsInFlight } : { skip: viewportsInFlight };
  sendViewport(true, name);
}

// ---- the test hook ----
window.tessera = {
  get seq() { return seq; },
  get state() { return state; },
  get animating() { return player.animating || drag !== null || queued.length > 0; },
  get connected() { return connection.connected; },
  get layout() { return layout; },
  get selection() { return [...selection].sort(); },
  get sent() { return connection.sent; },
  get plans() { return plans.slice(); },
  elementFrames() {
    const out = {};
    for (const [key, node] of player.nodes) if (node._cur) out[key] = node._cur.slice(0, 4);
    return out;
  },
  items() {
    return itemNodes().map((n) => ({ id: n.dataset.id, section: n._el.section, item: n._el.item, title: n._el.title, frame: n._cur.slice(0, 4), selected: selection.has(n.dataset.id) }));
  },
  switchLayout,
};

connection.open();
})();
