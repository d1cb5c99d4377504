import Foundation
import TesseraLayout
import TesseraView

/// A self-contained HTML page that plays animation plans: the viewport with
/// every element as a box labelled with its id, play/pause, a scrubber, a
/// speed control and a legend of dispositions. No network, no external
/// scripts or fonts.
///
/// The plans are embedded in the plan format (``PlanJSON``), the live
/// list's. The page draws the plan's own interpolation: each element goes
/// from its `from` to its `to` attributes (frame, alpha, transform; z-index
/// and hidden switch halfway) by the plan's timing fraction, which is sampled
/// from ``AnimationTiming/fraction(at:duration:)`` at ``samples`` + 1 evenly
/// spaced progress values and interpolated linearly in between, so at each
/// sample the boxes are exactly where ``AnimationPlan/attributes(at:)`` puts
/// them.
///
/// Open it with `#plan=K&progress=P` (K from 0, P in 0…1) to show one frame,
/// paused: the browser test reads the boxes' `data-frame` attributes there.
package enum PlanPage {
    /// One plan on the page, with a title and a label per element.
    package struct Entry: Sendable {
        /// The title shown above the viewport (`Transaction 3: …`).
        package var title: String
        /// The plan.
        package var plan: AnimationPlan
        /// A label per element, in plan order.
        package var labels: [String]
        /// The viewport size.
        package var viewport: Size

        /// Creates an entry.
        package init(title: String, plan: AnimationPlan, labels: [String], viewport: Size) {
            self.title = title
            self.plan = plan
            self.labels = labels
            self.viewport = viewport
        }
    }

    /// The number of intervals the timing curve is sampled in.
    package static let samples = 240

    /// The page for a sequence of plans, played in order.
    ///
    /// - Parameter notes: Lines shown under the list of plans: what the
    ///   list leaves out, and why (a transaction rolled back has no plan).
    package static func html(title: String, entries: [Entry], notes: [String] = []) -> String {
        var data = PlanJSON(capacity: 4096)
        data.raw("[")
        for (index, entry) in entries.enumerated() {
            if index > 0 { data.raw(",") }
            write(entry, to: &data)
        }
        data.raw("]")
        let items = notes.map { "<li>\(escapeHTML($0))</li>" }.joined()
        return template
            .replacingOccurrences(of: "__TITLE__", with: escapeHTML(title))
            .replacingOccurrences(of: "__NOTES__", with: items)
            .replacingOccurrences(of: "__DATA__", with: data.text)
    }

    /// The viewport size of a plan when the caller does not know it: the
    /// content size's width and the larger content height, at most 844.
    package static func viewport(guessedFrom plan: AnimationPlan) -> Size {
        let width = max(plan.contentSizeBefore.width, plan.contentSizeAfter.width, 1)
        let height = min(max(plan.contentSizeBefore.height, plan.contentSizeAfter.height, 1), 844)
        return Size(width: width, height: height)
    }

    /// Writes one plan of the page in the plan format (``PlanJSON``): the
    /// plan's members and its elements, each with its label as its `key`
    /// and `title`, and what the page adds: the title, the viewport, the
    /// timing in words and the timing curve's samples.
    private static func write(_ entry: Entry, to out: inout PlanJSON) {
        let plan = entry.plan
        out.raw("{\"title\":"); out.string(entry.title)
        out.raw(",\"width\":"); out.number(entry.viewport.width)
        out.raw(",\"height\":"); out.number(entry.viewport.height)
        out.raw(",\"timingText\":"); out.string(Format.timing(plan.timing))
        out.raw(",\"fractions\":[")
        for i in 0...samples {
            if i > 0 { out.raw(",") }
            out.number(plan.timing.fraction(at: Double(i) / Double(samples), duration: plan.duration))
        }
        out.raw("],")
        out.planMembers(plan)
        out.raw(",\"elements\":[")
        for (index, (element, label)) in zip(plan.elements, entry.labels).enumerated() {
            if index > 0 { out.raw(",") }
            out.raw("{\"key\":"); out.string(label)
            out.raw(",\"kind\":"); out.string(element.category == .cell ? "item" : ChangeDescription.shortKind(element.category.kind ?? ""))
            out.raw(",\"title\":"); out.string(label)
            out.raw(",\"frame\":"); out.rect(element.to.frame)
            out.raw(",\"z\":"); out.int(element.to.zIndex)
            out.elementMotion(element)
            out.raw("}")
        }
        out.raw("]}")
    }

    package static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static let template = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>
  body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px; color: #222; background: #f4f4f6; }
  h1 { font-size: 17px; margin: 0 0 8px; }
  #layout { display: flex; gap: 20px; align-items: flex-start; }
  #viewport { position: relative; overflow: hidden; background: #fff; border: 1px solid #888; flex: none; }
  #content { position: absolute; left: 0; top: 0; }
  .el { position: absolute; box-sizing: border-box; border: 1px solid rgba(0,0,0,.35); font-size: 10px;
        overflow: hidden; white-space: nowrap; padding: 1px 3px; transform-origin: 50% 50%; }
  .d-inserted { background: #b7e4b0; } .d-deleted { background: #f4b4b4; } .d-moved { background: #b5cdf5; }
  .d-reloaded { background: #f8dd94; } .d-shifted { background: #ddd2f2; } .d-unchanged { background: #e6e6e6; }
  .k-header, .k-footer { font-weight: 600; border-style: dashed; }
  #controls { margin: 8px 0; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
  #scrubber { width: 320px; }
  .legend span { display: inline-block; width: 12px; height: 12px; border: 1px solid #0005; vertical-align: middle; margin: 0 4px 0 10px; }
  #plans { list-style: none; padding: 0; margin: 0; max-width: 420px; }
  #plans li { cursor: pointer; padding: 2px 6px; border-radius: 4px; }
  #plans li.current { background: #dde6ff; }
  #status { font-variant-numeric: tabular-nums; }
  #notes { max-width: 420px; padding-left: 18px; color: #555; }
</style>
</head>
<body>
<h1>__TITLE__</h1>
<div id="controls">
  <button id="play" type="button">Play</button>
  <input id="scrubber" type="range" min="0" max="1" step="0.001" value="0" aria-label="progress">
  <label>speed <select id="speed">
    <option value="0.1">0.1×</option><option value="0.25">0.25×</option><option value="0.5">0.5×</option>
    <option value="1" selected>1×</option><option value="2">2×</option></select></label>
  <span id="status"></span>
</div>
<div class="legend">
  <span class="d-inserted"></span>inserted<span class="d-deleted"></span>deleted<span class="d-moved"></span>moved<span class="d-reloaded"></span>reloaded<span class="d-shifted"></span>shifted<span class="d-unchanged"></span>unchanged
</div>
<div id="layout">
  <div>
    <div id="title"></div>
    <div id="viewport"><div id="content"></div></div>
  </div>
  <div>
    <ol id="plans"></ol>
    <ul id="notes">__NOTES__</ul>
  </div>
</div>
<script>
"use strict";
const PLANS = __DATA__;
const SAMPLES = PLANS.length ? PLANS[0].fractions.length - 1 : 1;
const HOLD = 0.8; // seconds between plans while playing
let current = 0, progress = 0, playing = false, holdLeft = 0, last = null;
const viewport = document.getElementById("viewport"), content = document.getElementById("content");
const scrubber = document.getElementById("scrubber"), playButton = document.getElementById("play");
const speed = document.getElementById("speed"), status = document.getElementById("status");
const list = document.getElementById("plans");
scrubber.max = String(Math.max(PLANS.length, 1));

function fraction(plan, p) {
  p = Math.min(Math.max(p, 0), 1);
  if (p >= 1) return 1;
  const x = p * SAMPLES, i = Math.floor(x), f = plan.fractions;
  return f[i] + (f[i + 1] - f[i]) * (x - i);
}
// LayoutAttributes.interpolated(to:progress:): frame, alpha and transform
// mix; z-index and hidden switch halfway. The element is a PlanElement of
// the plan format: its frame after is `frame`, before `from`.
const IDENTITY = [1, 0, 0, 1, 0, 0];
function mix(e, t) {
  const lerp = (x, y) => x + (y - x) * t;
  const frame = [0, 1, 2, 3].map(k => lerp(e.from[k], e.frame[k]));
  const a = e.fromTransform || IDENTITY, b = e.toTransform || IDENTITY;
  const late = t >= 0.5;
  return { frame, alpha: lerp(e.fromAlpha, e.toAlpha), transform: [0, 1, 2, 3, 4, 5].map(k => lerp(a[k], b[k])),
           z: late ? e.toZ : e.fromZ, hidden: late ? !!e.toHidden : !!e.fromHidden };
}
let boxes = [];
function build(plan) {
  content.textContent = "";
  viewport.style.width = plan.width + "px";
  viewport.style.height = plan.height + "px";
  boxes = plan.elements.map((e, i) => {
    const box = document.createElement("div");
    box.className = "el d-" + e.disposition + " k-" + e.kind;
    box.dataset.index = String(i);
    box.dataset.label = e.title;
    box.dataset.disposition = e.disposition;
    box.textContent = e.title;
    box.title = e.title + " (" + e.disposition + ")";
    content.appendChild(box);
    return box;
  });
  document.getElementById("title").textContent = plan.title + " — " + plan.elements.length + " elements, " + plan.duration + " s " + plan.timingText;
  Array.from(list.children).forEach((li, k) => li.classList.toggle("current", k === current));
}
function draw() {
  const plan = PLANS[current];
  if (!plan) return;
  const t = fraction(plan, progress);
  const from = plan.contentOffsetBefore, to = plan.contentOffsetAfter;
  const ox = from[0] + (to[0] - from[0]) * t;
  const oy = from[1] + (to[1] - from[1]) * t;
  content.style.transform = "translate(" + (-ox) + "px," + (-oy) + "px)";
  content.dataset.offset = ox + "," + oy;
  plan.elements.forEach((e, i) => {
    const a = mix(e, t), box = boxes[i], f = a.frame;
    box.style.left = f[0] + "px"; box.style.top = f[1] + "px";
    box.style.width = f[2] + "px"; box.style.height = f[3] + "px";
    box.style.opacity = String(a.alpha);
    box.style.transform = "matrix(" + a.transform.join(",") + ")";
    box.style.zIndex = String(a.z);
    box.style.visibility = a.hidden ? "hidden" : "visible";
    box.dataset.frame = f.join(",");
    box.dataset.alpha = String(a.alpha);
  });
  scrubber.value = String(current + progress);
  status.textContent = "plan " + (current + 1) + " of " + PLANS.length + ", progress " + progress.toFixed(3);
  document.body.dataset.plan = String(current);
  document.body.dataset.progress = String(progress);
}
function show(index, p) {
  index = Math.min(Math.max(index, 0), PLANS.length - 1);
  if (index !== current || !boxes.length) { current = index; build(PLANS[current]); }
  progress = Math.min(Math.max(p, 0), 1);
  draw();
}
function setPlaying(on) {
  playing = on; last = null; holdLeft = 0;
  playButton.textContent = on ? "Pause" : "Play";
  if (on) {
    if (current === PLANS.length - 1 && progress >= 1) show(0, 0);
    requestAnimationFrame(tick);
  }
}
function tick(now) {
  if (!playing) return;
  if (last !== null) {
    let dt = (now - last) / 1000 * Number(speed.value);
    const plan = PLANS[current];
    if (holdLeft > 0) {
      holdLeft -= dt;
      if (holdLeft <= 0) { if (current + 1 < PLANS.length) show(current + 1, 0); else { setPlaying(false); return; } }
    } else {
      progress += dt / (plan.duration > 0 ? plan.duration : 0.3);
      if (progress >= 1) { progress = 1; holdLeft = HOLD; }
      draw();
    }
  }
  last = now;
  requestAnimationFrame(tick);
}
PLANS.forEach((plan, k) => {
  const li = document.createElement("li");
  li.textContent = plan.title;
  li.addEventListener("click", () => { setPlaying(false); show(k, 0); });
  list.appendChild(li);
});
playButton.addEventListener("click", () => setPlaying(!playing));
scrubber.addEventListener("input", () => {
  setPlaying(false);
  const v = Number(scrubber.value), k = Math.min(Math.floor(v), PLANS.length - 1);
  show(k, v - k);
});
function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has("progress") && !params.has("plan")) return false;
  setPlaying(false);
  show(Number(params.get("plan") || 0), Number(params.get("progress") || 0));
  return true;
}
window.addEventListener("hashchange", fromHash);
if (PLANS.length) {
  show(0, 0);
  if (!fromHash()) setPlaying(true);
}
</script>
</body>
</html>
"""#
}
