/*
 * tessera-live.js: the live list's protocol and plan player, for any front
 * end. A classic script with no dependencies and no build step that defines
 * one global, `TesseraLive`. A LiveList mounted at PATH serves it at
 * PATH/tessera-live.js; the list's own page (live.html and live-demo.js)
 * embeds it and uses nothing else of the protocol. The messages are
 * documented in TesseraServe's catalog (Protocol.md), and a whole page in
 * its article "Writing your own front end".
 *
 * TesseraLive.socketAddress(path, token)
 *   The WebSocket of the list whose page is at `path`: ws(s)://HOST/PATH/live,
 *   with `?token=` when there is one. `path` defaults to this page's own path
 *   and `token` to this page's `token` query parameter.
 *
 * TesseraLive.connect(options) -> Connection
 *   Opens the socket, says `hello`, and keeps it open: after a close it
 *   connects again (after 0.25 s, doubling to 8 s) and says `hello` again:
 *   a fresh `snapshot`, or, when `resume` names the `seq` and `state` of the
 *   last snapshot or plan and the server kept that state, one plan from it
 *   marked `resumed`.
 *   options.address          the socket (socketAddress() when absent)
 *   options.hello()          the hello's fields, asked at every connection:
 *                            { layout, viewport, ids, resume: null or
 *                            { seq, state } }
 *   options.onMessage(m)     every message, parsed: snapshot, elements, plan,
 *                            done, error
 *   options.onOpen()         the socket opened (hello is sent just after)
 *   options.onClose(ms)      it closed; it connects again in `ms`
 *   options.onConnecting()   it is connecting
 *   options.onInvalid(text)  a frame that is not JSON
 *   A Connection has `connected`, `sent` (the messages it sent),
 *   `send(message)` (false when the socket is not open), `viewport(rect, layout)`, the edits `move(id, to)`,
 *   `rename(id, title)`, `delete(ids)`, `add(section, title)` and
 *   `request(message)` (each returns the request number its `done` or
 *   `error` echoes), `resync()` (closes and connects again) and `close()`
 *   (for good).
 *
 * TesseraLive.viewportFor(scroller) -> [x, y, width, height]
 *   The rectangle to ask for: what `scroller` shows and a screen above and
 *   below it, within the area the server answers (8,192 × 8,192).
 *
 * new TesseraLive.Player(options)
 *   Draws elements into options.content (absolutely positioned at their
 *   frames, in content coordinates) inside options.scroller, and plays plans
 *   from their own frames, alpha, z order, duration and timing.
 *   options.create(element) -> node   a new element's node (a div with its
 *                                     title when absent)
 *   options.update(node, element)     shows an element's content (the title
 *                                     when absent)
 *   options.remove(node)              before a node leaves
 *   options.drawn()                   after each drawing and animation frame
 *   options.finished(asksForViewport) an animation ended, its elements settled
 *   A Player has `nodes` (key -> node; node._el is its element and node._cur
 *   its [x, y, width, height, alpha]), `contentSize`, `animating`,
 *   `render(elements)` (shows exactly those, at rest), `play(plan)` (true
 *   while it animates, false when it settled at once: a plan with
 *   `animated: false`, or a hidden page), `retarget(elements, contentSize)`
 *   (what an animation under way settles on), `finish(asksForViewport)`,
 *   `place(node, frame, alpha, z)`, `restingZ(element)` and
 *   `setContentSize(size)`. A moving element has the class `flying` while
 *   it flies.
 *
 * TesseraLive.applyChangeset(sections, changeset) -> sections
 *   Replays a plan's `changeset` (sent after a hello with `ids: true`) on the
 *   list's ids, [{ id, ids: ["1", "2"] }, …] as a snapshot's `sections` and
 *   `ids` give them, as UIKit applies a batch; returns the list after the
 *   change, or throws when the changeset does not fit the list.
 *
 * TesseraLive.fraction(timing, progress, duration, plan)
 *   How far an animation of `duration` seconds is at `progress` (0 to 1) on
 *   a plan's timing curve (the curves of AnimationTiming).
 */
(function (global) {
"use strict";

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
function socketAddress(path, token) {
  if (path === undefined || path === null) path = location.pathname;
  if (token === undefined) token = new URLSearchParams(location.search).get("token");
  // The socket is "live" under the page's own path (/live for a page at /).
  const base = String(path).replace(/\/+$/, "");
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "/live" + (token ? "?token=" + encodeURIComponent(token) : "");
}

class Connection {
  constructor(options) {
    this.options = options || {};
    this.address = this.options.address || socketAddress();
    this.socket = null;
    this.connected = false;
    this.backoff = 250;
    this.timer = null;
    this.closed = false;
    this.nextRequest = 1;
    this.sent = 0;
  }
  open() {
    this.timer = null;
    if (this.closed) return;
    if (this.options.onConnecting) this.options.onConnecting();
    let socket;
    try { socket = new WebSocket(this.address); } catch (e) { this.retry(); return; }
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.connected = true; this.backoff = 250;
      if (this.options.onOpen) this.options.onOpen();
      const fields = this.options.hello ? this.options.hello() : {};
      this.send(Object.assign({ type: "hello" }, fields));
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      let message;
      try { message = JSON.parse(event.data); } catch (e) { if (this.options.onInvalid) this.options.onInvalid(event.data); return; }
      if (this.options.onMessage) this.options.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null; this.connected = false;
      this.retry();
    };
    socket.onerror = () => { try { socket.close(); } catch (e) {} };
  }
  retry() {
    if (this.timer || this.closed) return;
    const wait = this.backoff;
    this.timer = setTimeout(() => this.open(), wait);
    this.backoff = Math.min(this.backoff * 2, 8000);
    if (this.options.onClose) this.options.onClose(wait);
  }
  send(message) {
    if (!this.socket || this.socket.readyState !== 1) return false;
    this.socket.send(JSON.stringify(message));
    this.sent += 1;
    return true;
  }
  request(message) {
    message.request = this.nextRequest++;
    this.send(message);
    return message.request;
  }
  viewport(rect, layout) {
    const message = { type: "viewport", viewport: rect };
    if (layout) message.layout = layout;
    return this.send(message);
  }
  move(id, to) { return this.request({ type: "move", id, to }); }
  rename(id, title) { return this.request({ type: "rename", id, title }); }
  delete(ids) { return this.request({ type: "delete", ids }); }
  add(section, title) { return this.request({ type: "add", section, title }); }
  resync() { if (this.socket) { try { this.socket.close(); } catch (e) {} } }
  close() {
    this.closed = true;
    clearTimeout(this.timer); this.timer = null;
    const socket = this.socket;
    this.socket = null; this.connected = false;
    if (socket) { try { socket.close(); } catch (e) {} }
  }
}
function connect(options) {
  const connection = new Connection(options);
  connection.open();
  return connection;
}

// ---- viewport ----
function viewportFor(scroller) {
  const w = Math.max(1, scroller.clientWidth), h = Math.max(1, scroller.clientHeight), top = scroller.scrollTop;
  // The window, and a window above and below it, within the area the
  // server answers (8192 × 8192): less margin on a very large window.
  const tall = Math.floor(8192 * 8192 / Math.round(w)) - 2;
  const margin = Math.max(0, Math.min(h, Math.floor((tall - h) / 2)));
  const y0 = Math.max(0, top - margin), y1 = Math.min(top + h + margin, y0 + tall);
  return [0, Math.round(y0), Math.round(w), Math.max(1, Math.floor(y1 - y0))];
}

// ---- the player ----
class Player {
  constructor(options) {
    this.options = options;
    this.scroller = options.scroller;
    this.content = options.content;
    this.nodes = new Map();
    this.contentSize = [0, 0];
    this.anim = null;
  }
  get animating() { return this.anim !== null; }
  setContentSize(size) {
    this.contentSize = size;
    this.content.style.width = size[0] + "px";
    this.content.style.height = size[1] + "px";
  }
  makeNode(el) {
    let node;
    if (this.options.create) node = this.options.create(el);
    else { node = document.createElement("div"); node.style.position = "absolute"; node.style.overflow = "hidden"; }
    node.dataset.key = el.key;
    this.content.appendChild(node);
    this.nodes.set(el.key, node);
    return node;
  }
  updateNode(node, el) {
    node._el = el;
    if (this.options.update) this.options.update(node, el);
    else node.textContent = el.title;
  }
  place(node, frame, alpha, z) {
    const s = node.style;
    s.left = frame[0] + "px"; s.top = frame[1] + "px"; s.width = frame[2] + "px"; s.height = frame[3] + "px";
    s.opacity = alpha >= 1 ? "" : String(Math.max(0, alpha));
    s.zIndex = String(z);
    node._cur = [frame[0], frame[1], frame[2], frame[3], alpha];
    node.dataset.frame = frame.join(",");
  }
  restingZ(el) { return (isItem(el) ? 1 : 500) + (el.z || 0); }
  removeNode(key) {
    const node = this.nodes.get(key);
    if (!node) return;
    if (this.options.remove) this.options.remove(node);
    node.remove(); this.nodes.delete(key);
  }
  drawn() { if (this.options.drawn) this.options.drawn(); }
  render(elements) {
    const keep = new Set(elements.map((el) => el.key));
    for (const key of [...this.nodes.keys()]) if (!keep.has(key)) this.removeNode(key);
    for (const el of elements) {
      const node = this.nodes.get(el.key) || this.makeNode(el);
      node.classList.remove("flying");
      this.updateNode(node, el);
      this.place(node, el.frame, 1, this.restingZ(el));
    }
    this.drawn();
  }
  retarget(elements, contentSize) {
    if (!this.anim) return;
    this.anim.settled = elements; this.anim.sizeAfter = contentSize;
  }
  play(plan) {
    const scroller = this.scroller;
    let dy = (plan.contentOffsetAfter ? plan.contentOffsetAfter[1] : 0) - (plan.contentOffsetBefore ? plan.contentOffsetBefore[1] : 0);
    // The server never moves the viewport (its offsets are the origin of the
    // rectangle the page sent): the player keeps its own scrolling within
    // the content, as the browser does, and moves it with the animation, so
    // that content shrinking under a screen at the end brings the screen up
    // with the plan rather than at its end.
    const scrollNow = this.anim ? this.anim.scrollTo : scroller.scrollTop;
    if (plan.contentSizeAfter) {
      const limit = Math.max(0, plan.contentSizeAfter[1] - scroller.clientHeight);
      dy = Math.max(-scrollNow, Math.min(dy, limit - scrollNow));
    }
    const interrupting = this.anim !== null;
    let scrollFrom = scroller.scrollTop, scrollBase = scrollFrom;
    if (interrupting) { scrollBase = this.anim.scrollTo; cancelAnimationFrame(this.anim.frame); this.anim = null; }
    if (!plan.animated || !(plan.duration > 0) || document.hidden) {
      this.setContentSize(plan.contentSizeAfter);
      if (dy) scroller.scrollTop = scrollBase + dy;
      this.render(plan.settled || []);
      return false;
    }
    const size = this.contentSize;
    this.setContentSize([Math.max(plan.contentSizeBefore[0], plan.contentSizeAfter[0], size[0]), Math.max(plan.contentSizeBefore[1], plan.contentSizeAfter[1], size[1])]);
    const tracks = [];
    for (const pe of plan.elements || []) {
      const existing = this.nodes.get(pe.key);
      const node = existing || this.makeNode(pe);
      this.updateNode(node, pe);
      // A hidden end is drawn with alpha 0.
      const fromAlpha = pe.fromHidden ? 0 : pe.fromAlpha ?? 1, toAlpha = pe.toHidden ? 0 : pe.toAlpha ?? 1;
      const start = interrupting && existing && existing._cur ? existing._cur.slice() : pe.from.concat([fromAlpha]);
      const d = pe.disposition || "";
      const moving = d.startsWith("move");
      const z = (isItem(pe) ? (moving ? 700 : d.startsWith("insert") || d.startsWith("delete") ? 100 : 1) : 500) + Math.max(pe.fromZ ?? 0, pe.toZ ?? pe.z ?? 0);
      node.classList.toggle("flying", moving);
      tracks.push({ node, from: start, to: pe.frame.concat([toAlpha]), z });
      this.place(node, start.slice(0, 4), start[4], z);
    }
    this.anim = {
      start: performance.now(), duration: plan.duration * 1000, timing: plan.timing, plan, tracks,
      scrollFrom, scrollTo: scrollBase + dy, settled: plan.settled || [], sizeAfter: plan.contentSizeAfter, frame: 0
    };
    this.anim.frame = requestAnimationFrame(() => this.step());
    return true;
  }
  step() {
    const anim = this.anim;
    if (!anim) return;
    const now = performance.now();
    const p = Math.min(1, Math.max(0, (now - anim.start) / anim.duration));
    const f = fraction(anim.timing, p, anim.duration / 1000, anim.plan);
    for (const t of anim.tracks) {
      const frame = [0, 1, 2, 3].map((i) => t.from[i] + (t.to[i] - t.from[i]) * f);
      this.place(t.node, frame, t.from[4] + (t.to[4] - t.from[4]) * f, t.z);
    }
    if (anim.scrollTo !== anim.scrollFrom) this.scroller.scrollTop = anim.scrollFrom + (anim.scrollTo - anim.scrollFrom) * f;
    this.drawn();
    if (p >= 1) { this.finish(); return; }
    anim.frame = requestAnimationFrame(() => this.step());
  }
  finish(asksForViewport = true) {
    if (!this.anim) return;
    const done = this.anim;
    this.anim = null;
    cancelAnimationFrame(done.frame);
    if (done.scrollTo !== done.scrollFrom) this.scroller.scrollTop = done.scrollTo;
    this.setContentSize(done.sizeAfter);
    this.render(done.settled);
    if (this.options.finished) this.options.finished(asksForViewport);
  }
}

// ---- changesets ----
function applyChangeset(sections, changeset) {
  const fail = (what) => { throw new Error("the changeset does not fit the list: " + what); };
  const old = sections;
  const sectionDeletes = new Set(changeset.sectionDeletes || []);
  const sectionInserts = new Map();
  for (const insert of changeset.sectionInserts || []) sectionInserts.set(insert.index, { id: insert.id, ids: (insert.ids || []).slice() });
  const sectionMoves = new Map(), movedFrom = new Set();
  for (const [from, to] of changeset.sectionMoves || []) { sectionMoves.set(to, from); movedFrom.add(from); }
  const count = old.length - sectionDeletes.size + sectionInserts.size;
  const survivors = [];
  for (let s = 0; s < old.length; s++) if (!sectionDeletes.has(s) && !movedFrom.has(s)) survivors.push(s);
  const origins = [];
  for (let index = 0, next = 0; index < count; index++) {
    if (sectionInserts.has(index)) origins.push(null);
    else if (sectionMoves.has(index)) origins.push(sectionMoves.get(index));
    else if (next < survivors.length) origins.push(survivors[next++]);
    else fail("sections do not add up at " + index);
  }
  // Per section: the old indexes that leave, and the new indexes taken.
  const removed = new Map(), placed = new Map();
  const removedIn = (s) => { if (!removed.has(s)) removed.set(s, new Set()); return removed.get(s); };
  const placedIn = (s) => { if (!placed.has(s)) placed.set(s, new Map()); return placed.get(s); };
  for (const [s, i] of changeset.itemDeletes || []) removedIn(s).add(i);
  for (const insert of changeset.itemInserts || []) placedIn(insert.at[0]).set(insert.at[1], insert.id);
  for (const move of changeset.itemMoves || []) {
    const [s, i] = move.from;
    if (!old[s] || i >= old[s].ids.length) fail("a move from " + move.from);
    removedIn(s).add(i);
    placedIn(move.to[0]).set(move.to[1], old[s].ids[i]);
  }
  return origins.map((origin, index) => {
    if (origin === null) return sectionInserts.get(index);
    const gone = removed.get(origin) || new Set(), fixed = placed.get(index) || new Map();
    const rest = old[origin].ids.filter((_, i) => !gone.has(i));
    const total = rest.length + fixed.size;
    const ids = [];
    for (let position = 0, next = 0; position < total; position++) {
      if (fixed.has(position)) ids.push(fixed.get(position));
      else if (next < rest.length) ids.push(rest[next++]);
      else fail("the items of section " + index + " do not add up");
    }
    if (ids.length !== total || [...fixed.keys()].some((p) => p >= total)) fail("items of section " + index + " left over");
    return { id: old[origin].id, ids };
  });
}

global.TesseraLive = { socketAddress, connect, Connection, viewportFor, Player, applyChangeset, fraction };
})(typeof window !== "undefined" ? window : globalThis);
