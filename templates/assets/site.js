// Sortable tables: click a column header to sort by it; click again to reverse.
// Cells may carry data-sort with a numeric key; otherwise the text is compared.
(function () {
  "use strict";
  function key(td) {
    if (!td) return "";
    var s = td.getAttribute("data-sort");
    if (s !== null && s !== "" && !isNaN(Number(s))) return Number(s);
    return td.textContent.trim();
  }
  function cmp(a, b) {
    if (typeof a === "number" && typeof b === "number") return a - b;
    if (typeof a === "number") return -1;
    if (typeof b === "number") return 1;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        // Group headings (Table 3's task categories) hold only in the
        // table's own order: a sorted table hides them.
        var rows = Array.prototype.slice.call(body.rows).filter(function (r) {
          if (r.classList.contains("group")) { r.hidden = true; return false; }
          return true;
        });
        rows.sort(function (r1, r2) { return dir * cmp(key(r1.cells[col]), key(r2.cells[col])); });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });

  // Table filters: a text box, and a drop-down per column named in data-filter-cols.
  document.querySelectorAll("div.filter").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    if (!table) return;
    var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (h) { return h.textContent.trim(); });
    var text = box.querySelector("input.filter-text");
    var selects = [];
    (table.getAttribute("data-filter-cols") || "").split(",").forEach(function (name) {
      name = name.trim();
      var col = heads.indexOf(name);
      if (col < 0) return;
      var vals = {};
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) { if (r.cells[col]) vals[r.cells[col].textContent.trim()] = true; });
      var label = document.createElement("label");
      label.textContent = name + " ";
      var sel = document.createElement("select");
      sel.setAttribute("data-col", String(col));
      var all = document.createElement("option");
      all.value = ""; all.textContent = "all";
      sel.appendChild(all);
      Object.keys(vals).sort().forEach(function (v) {
        var o = document.createElement("option");
        o.value = v; o.textContent = v || "(none)";
        sel.appendChild(o);
      });
      label.appendChild(sel);
      box.appendChild(label);
      selects.push(sel);
    });
    function apply() {
      var q = (text.value || "").toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        if (r.classList.contains("group")) { r.hidden = !!q || selects.some(function (s) { return s.value !== ""; }); return; }
        var ok = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
        selects.forEach(function (s) {
          var c = r.cells[Number(s.getAttribute("data-col"))];
          if (s.value !== "" && (!c || c.textContent.trim() !== s.value)) ok = false;
        });
        r.hidden = !ok;
      });
    }
    text.addEventListener("input", apply);
    selects.forEach(function (s) { s.addEventListener("change", apply); });
  });

  // Charts: ECharts options from the page, tooltips from the per-category
  // texts (with units), dark labels, and a redraw whenever the page or a
  // chart's container changes size.
  if (typeof echarts === "undefined") return;
  var TEXT = "#1b1f24";
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function data(cls, id) {
    var el = document.querySelector("script." + cls + '[data-for="' + id + '"]');
    try { return el ? JSON.parse(el.textContent) : null; } catch (e) { return null; }
  }
  var charts = [];
  var base = {}; // per chart: its height and its grid's top and bottom as built
  var ruler = document.createElement("canvas").getContext("2d");
  document.querySelectorAll(".chart-box").forEach(function (el) {
    var opt = data("chart-opt", el.id);
    if (!opt) return;
    var tips = data("chart-tips", el.id) || [];
    var unit = el.getAttribute("data-unit") || "";
    opt.textStyle = { color: TEXT };
    opt.tooltip = opt.tooltip || {};
    var yAxis = [].concat(opt.yAxis || [])[0]; // go-echarts writes the axes as lists
    var cats = yAxis && yAxis.data;
    if (tips.length && cats) {
      opt.tooltip.formatter = function (ps) {
        var p = Array.isArray(ps) ? ps[0] : ps;
        var i = cats.indexOf(p.axisValue !== undefined ? p.axisValue : p.name);
        return i >= 0 && tips[i] ? esc(tips[i]) : esc(p.name);
      };
    } else if (unit) {
      opt.tooltip.valueFormatter = function (v) { return v === null || v === undefined || v === "-" ? "—" : Number(v).toFixed(1) + " " + unit; };
    }
    var c = echarts.init(el, null, { renderer: "canvas" });
    c.setOption(opt);
    var g = [].concat(opt.grid || [])[0];
    base[el.id] = { h: el.clientHeight, top: g ? Number(g.top) || 0 : 0, bottom: g ? Number(g.bottom) || 0 : 0 };
    fit(c);
    charts.push(c);
  });
  // Room for the title and the legend. Both wrap on a narrow chart: the
  // title at the chart's width, the legend item by item. The plot area
  // moves down by the title's extra lines and up by the legend's, and the
  // chart grows by as much, so that neither covers the axis labels (the
  // browser test measures the drawn labels).
  function lineCount(items, font, width, gap) {
    ruler.font = font;
    var n = 1, x = 0;
    items.forEach(function (it) {
      var w = ruler.measureText(it.text).width + (it.pad || 0);
      if (x > 0 && x + gap + w > width) { n++; x = w; } else { x += (x > 0 ? gap : 0) + w; }
    });
    return n;
  }
  function wordsOf(s) {
    return String(s || "").split(/\s+/).filter(Boolean).map(function (w) { return { text: w }; });
  }
  function fit(c) {
    var el = c.getDom(), b = base[el.id], w = el.clientWidth;
    if (!b || !w) return;
    var o = c.getOption();
    var t = [].concat(o.title || [])[0] || {}, lg = [].concat(o.legend || [])[0], g = [].concat(o.grid || [])[0];
    var tw = Math.max(160, w - 24);
    ruler.font = "bolder 14px sans-serif";
    var top = t.text ? (lineCount(wordsOf(t.text), ruler.font, tw, ruler.measureText(" ").width) - 1) * 18 : 0;
    if (t.subtext) {
      ruler.font = "12px sans-serif";
      top += (lineCount(wordsOf(t.subtext), ruler.font, tw, ruler.measureText(" ").width) - 1) * 15;
    }
    var bottom = 0;
    if (lg && lg.show !== false) {
      var seen = {}, items = [];
      (o.series || []).forEach(function (s) { if (s.name && !seen[s.name]) { seen[s.name] = true; items.push({ text: s.name, pad: 30 }); } });
      bottom = (lineCount(items, "12px sans-serif", w - 10, 10) - 1) * 24;
    }
    var upd = { title: [{ textStyle: { width: tw }, subtextStyle: { width: tw } }] };
    if (g) upd.grid = [{ top: b.top + top, bottom: b.bottom + bottom }];
    // A horizontal value axis gets fewer ticks on a narrow chart, so that
    // its labels ("80 %", "100 %") keep apart.
    // A fixed 0–max axis is cut into 5, 4 or 2 steps, so that its end
    // keeps its label.
    var xs = [].concat(o.xAxis || []);
    if (xs.length && xs.every(function (a) { return a.type === "value"; })) {
      var ticks = Math.max(2, Math.min(5, Math.floor((w - 200) / 50)));
      var steps = ticks >= 5 ? 5 : ticks >= 4 ? 4 : 2;
      upd.xAxis = xs.map(function (a) {
        var fixed = typeof a.max === "number" && (a.min === 0 || a.min === undefined) && !a.minInterval;
        return fixed ? { interval: a.max / steps } : { splitNumber: ticks };
      });
    }
    c.setOption(upd);
    el.style.height = (b.h + top + bottom) + "px";
    c.resize();
  }
  function resizeAll() {
    charts.forEach(fit);
  }
  window.addEventListener("resize", resizeAll);
  if (typeof ResizeObserver !== "undefined") {
    var ro = new ResizeObserver(function (entries) {
      entries.forEach(function (e) {
        var c = echarts.getInstanceByDom(e.target);
        if (c) fit(c);
      });
    });
    document.querySelectorAll(".chart-box").forEach(function (el) { ro.observe(el); });
  }
  window.rexmleCharts = charts;
  window.rexmleResize = resizeAll;
})();
